/* test_copy_cuda.c - samrt_copy_cuda against the C reference on seeded random inputs, every
 * src/dst dtype pair, at the model's uses (tiny's patch-embed NCHW -> NHWC with the position
 * embedding added, the FPN's nearest x2 through zero strides, an NHWC -> NCHW dump of a
 * stage output) and odd shapes. Conversion and the add are deterministic fp32 steps, so the
 * result must equal the reference bit for bit; outputs start as NaN bytes.
 * Run: test_copy_cuda [--bench]   (exit 77 without a GPU) */
#include "copy.h"
#include "samrt_impl.h"
#include "smallops_cuda.h"

struct copy_case {
    const char *name;
    int64_t ne[4], s[4];   /* output extents and input strides */
    int64_t n_src;         /* input elements */
    int with_add, bench;
};

static const struct copy_case CASES[] = {
    {"t_embed_nchw_nhwc", {1, 256, 256, 96}, {96 * 65536, 256, 1, 65536}, 96 * 65536, 1, 1},
    {"fpn_up_cols", {32, 32, 2, 256}, {32 * 256, 256, 0, 1}, 32 * 32 * 256, 0, 1},
    {"fpn_up_rows_add", {1, 32, 2, 64 * 256}, {0, 64 * 256, 0, 1}, 32 * 64 * 256, 1, 1},
    {"dump_nhwc_nchw", {1, 384, 64, 64}, {0, 1, 64 * 384, 384}, 64 * 64 * 384, 0, 0},
    {"odd", {3, 5, 7, 11}, {1, 3 * 7 * 11, 3, 7 * 3}, 3 * 5 * 7 * 11, 1, 0},
    {"scalar", {1, 1, 1, 1}, {0, 0, 0, 0}, 1, 1, 0},
};

static enum samrt_status copy_launch(void *ctx, cudaStream_t s) {
    return samrt_copy_cuda((const struct samrt_copy_args *)ctx, s);
}

static void run_case(const struct copy_case *c, enum samrt_dtype src, enum samrt_dtype dst, uint64_t seed,
                     int bench) {
    const int64_t n = c->ne[0] * c->ne[1] * c->ne[2] * c->ne[3];
    void *hx = sc_host_random(src, (long)c->n_src, seed, -3, 3);
    void *ha = c->with_add ? sc_host_random(dst, (long)n, seed + 1, -1, 1) : NULL;
    void *ref = sc_host_alloc(samrt_dtype_size(dst) * (size_t)n);
    struct samrt_copy_args a = {src, dst, {c->ne[0], c->ne[1], c->ne[2], c->ne[3]},
                                {c->s[0], c->s[1], c->s[2], c->s[3]}, hx, ha, ref};
    CHECK_STATUS(samrt_copy_ref(&a), SAMRT_OK);
    a.x = sc_dev_at(hx, samrt_dtype_size(src) * (size_t)c->n_src, 0);
    a.add = ha ? sc_dev_at(ha, samrt_dtype_size(dst) * (size_t)n, 0) : NULL;
    a.out = sc_dev_at(NULL, samrt_dtype_size(dst) * (size_t)n, 0);
    CHECK_STATUS(samrt_copy_cuda(&a, 0), SAMRT_OK);
    SC_CUDA(cudaDeviceSynchronize());
    char what[96];
    snprintf(what, sizeof what, "%s %s->", c->name, samrt_dtype_name(src));
    sc_compare(what, dst, a.out, ref, (long)n, 0.0, 0.0);
    if (bench && c->bench && src == dst) {
        const double bytes = (double)n * samrt_dtype_size(dst) * (c->with_add ? 3 : 2);
        sc_bench("copy", c->name, dst, bytes, copy_launch, &a);
    }
    sc_free_all();
}

int main(int argc, char **argv) {
    int rc = 0;
    if (!sc_gpu_or_skip("test_copy_cuda", &rc)) return rc;
    const int bench = sc_has_flag(argc, argv, "--bench");
    struct samrt_copy_args bad = {SAMRT_DTYPE_F32, SAMRT_DTYPE_F32, {1, 1, 1, 1}, {0, 0, 0, 0}, NULL, NULL, NULL};
    CHECK_STATUS(samrt_copy_cuda(&bad, 0), SAMRT_E_INVALID_ARG);
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(CASES); i++)
        for (int s = 0; s < 3; s++)
            for (int d = 0; d < 3; d++) run_case(&CASES[i], sc_dtypes[s], sc_dtypes[d], 900 + 10 * i, bench);
    return check_report("test_copy_cuda");
}

/* test_finite_cuda.c - samrt_finite_cuda against the C reference: f32 / f16 / bf16 segments
 * of seeded finite values, clean and with one NaN or infinity planted at the start, the
 * middle and the end (aligned and one element off 16-byte alignment, lengths that leave a
 * tail), up to SAMRT_FINITE_MAX_SEGS segments of mixed dtypes; the partial words start as
 * garbage (nothing needs zeroing); and the two launches replay from a captured CUDA graph as
 * the inputs change between replays.
 * Run: test_finite_cuda [--bench]   (exit 77 without a GPU) */
#include <string.h>

#include "check.h"
#include "finite.h"
#include "smallops_cuda.h"
#include "test_util.h"

static const uint16_t H_INF = 0x7c00, B_NAN = 0x7fc0;
static const uint32_t F_NINF = 0xff800000u;

/* Plants the bad value of dt at element i of the host buffer h. */
static void plant(enum samrt_dtype dt, void *h, long i) {
    if (dt == SAMRT_DTYPE_F32) memcpy((char *)h + 4 * i, &F_NINF, 4);
    else memcpy((char *)h + 2 * i, dt == SAMRT_DTYPE_F16 ? &H_INF : &B_NAN, 2);
}

static int32_t run_gpu(const struct samrt_finite_args *host_args, void *const *dev, cudaStream_t s) {
    struct samrt_finite_args a = *host_args;
    for (int i = 0; i < a.n_seg; i++) a.seg[i].data = dev[i];
    int32_t *dflags = (int32_t *)sc_dev_at(NULL, sizeof(int32_t) * SAMRT_FINITE_FLAG_WORDS, 0);  /* 0xff garbage */
    a.flags = dflags;
    CHECK_STATUS(samrt_finite_cuda(&a, s), SAMRT_OK);
    int32_t got = -7;
    SC_CUDA(cudaStreamSynchronize(s));
    SC_CUDA(cudaMemcpy(&got, dflags, sizeof got, cudaMemcpyDeviceToHost));
    return got;
}

static void test_cases(uint64_t seed) {
    static const enum samrt_dtype DT[3] = {SAMRT_DTYPE_F32, SAMRT_DTYPE_F16, SAMRT_DTYPE_BF16};
    static const long LEN[] = {1, 7, 8, 9, 1000, 65536, 1048576 + 3};
    for (int d = 0; d < 3; d++)
        for (size_t l = 0; l < sizeof LEN / sizeof LEN[0]; l++)
            for (int off = 0; off < 2; off++)
                for (int where = -1; where < 3; where++) {
                    const enum samrt_dtype dt = DT[d];
                    const long n = LEN[l];
                    const size_t es = samrt_dtype_size(dt);
                    void *h = sc_host_random(dt, n, seed++, -60000.0f, 60000.0f);
                    if (where >= 0) plant(dt, h, where == 0 ? 0 : where == 1 ? n / 2 : n - 1);
                    void *dv = sc_dev_at(h, es * (size_t)n, off ? es : 0);
                    struct samrt_finite_args a;
                    memset(&a, 0, sizeof a);
                    a.n_seg = 1;
                    a.seg[0] = (struct samrt_finite_seg){h, n, dt};
                    int32_t want[SAMRT_FINITE_FLAG_WORDS];
                    a.flags = want;
                    CHECK_STATUS(samrt_finite_ref(&a), SAMRT_OK);
                    CHECK_EQ_INT(want[0], where >= 0);
                    const int32_t got = run_gpu(&a, &dv, 0);
                    CHECK_MSG(got == want[0], "%s n %ld off %d bad@%d: gpu %d ref %d", samrt_dtype_name(dt), n, off,
                              where, got, want[0]);
                    sc_free_all();
                }
}

/* All segment slots, mixed dtypes, one bad value in every other segment. */
static void test_many(uint64_t seed) {
    struct samrt_finite_args a;
    memset(&a, 0, sizeof a);
    void *dev[SAMRT_FINITE_MAX_SEGS];
    a.n_seg = SAMRT_FINITE_MAX_SEGS;
    for (int i = 0; i < a.n_seg; i++) {
        const enum samrt_dtype dt = i % 3 == 0 ? SAMRT_DTYPE_F32 : i % 3 == 1 ? SAMRT_DTYPE_F16 : SAMRT_DTYPE_BF16;
        const long n = 4096 + 17 * i;
        void *h = sc_host_random(dt, n, seed + (uint64_t)i, -1.0f, 1.0f);
        if (i % 2) plant(dt, h, (n * i) / 9);
        a.seg[i] = (struct samrt_finite_seg){h, n, dt};
        dev[i] = sc_dev_at(h, samrt_dtype_size(dt) * (size_t)n, (size_t)(i % 2) * samrt_dtype_size(dt));
    }
    int32_t want[SAMRT_FINITE_FLAG_WORDS];
    a.flags = want;
    CHECK_STATUS(samrt_finite_ref(&a), SAMRT_OK);
    CHECK_EQ_INT(want[0], 0xaa);
    CHECK_EQ_INT(run_gpu(&a, dev, 0), want[0]);
    sc_free_all();
}

static enum samrt_status fin_launch(void *user, cudaStream_t s) {
    return samrt_finite_cuda((const struct samrt_finite_args *)user, s);
}

/* Captured once, replayed on a clean and then a poisoned input. */
static void test_graph(uint64_t seed) {
    const long n = 300000;
    void *h = sc_host_random(SAMRT_DTYPE_F16, n, seed, -1.0f, 1.0f);
    void *dv = sc_dev_at(h, 2 * (size_t)n, 0);
    int32_t *dflags = (int32_t *)sc_dev_at(NULL, sizeof(int32_t) * SAMRT_FINITE_FLAG_WORDS, 0);
    struct samrt_finite_args a;
    memset(&a, 0, sizeof a);
    a.n_seg = 1;
    a.seg[0] = (struct samrt_finite_seg){dv, n, SAMRT_DTYPE_F16};
    a.flags = dflags;
    struct sc_graph gr;
    sc_graph_capture(&gr, fin_launch, &a);
    cudaStream_t s = gr.s;
    for (int rep = 0; rep < 3; rep++) {
        if (rep == 1) SC_CUDA(cudaMemcpyAsync((char *)dv + 2 * (n - 5), &H_INF, 2, cudaMemcpyHostToDevice, s));
        if (rep == 2) SC_CUDA(cudaMemcpyAsync(dv, h, 2 * (size_t)n, cudaMemcpyHostToDevice, s));
        SC_CUDA(cudaGraphLaunch(gr.exec, s));
        int32_t got = -7;
        SC_CUDA(cudaMemcpyAsync(&got, dflags, sizeof got, cudaMemcpyDeviceToHost, s));
        SC_CUDA(cudaStreamSynchronize(s));
        CHECK_MSG(got == (rep == 1), "graph replay %d: %d", rep, got);
    }
    sc_graph_free(&gr);
    sc_free_all();
}

int main(int argc, char **argv) {
    char why[256];
    if (!tu_have_gpu(why, sizeof why)) return check_skip("test_finite_cuda", why);
    test_cases(0xf1417eull);
    test_many(0xabcdull);
    test_graph(0x5eedull);
    if (sc_has_flag(argc, argv, "--bench")) {  /* a tracked frame's checks at 1024: embedding + 1 object */
        struct samrt_finite_args b;
        memset(&b, 0, sizeof b);
        b.n_seg = 4;
        b.seg[0] = (struct samrt_finite_seg){sc_dev_at(sc_host_random(SAMRT_DTYPE_F16, 1 << 20, 1, -1, 1), 2 << 20, 0),
                                               1 << 20, SAMRT_DTYPE_F16};
        b.seg[1] = (struct samrt_finite_seg){sc_dev_at(sc_host_random(SAMRT_DTYPE_F32, 65536, 2, -1, 1), 4 * 65536, 0),
                                               65536, SAMRT_DTYPE_F32};
        b.seg[2] = (struct samrt_finite_seg){sc_dev_at(sc_host_random(SAMRT_DTYPE_BF16, 262144, 3, -1, 1), 2 * 262144, 0),
                                               262144, SAMRT_DTYPE_BF16};
        b.seg[3] = (struct samrt_finite_seg){sc_dev_at(sc_host_random(SAMRT_DTYPE_F32, 256, 4, -1, 1), 4 * 256, 0), 256,
                                               SAMRT_DTYPE_F32};
        b.flags = (int32_t *)sc_dev_at(NULL, sizeof(int32_t) * SAMRT_FINITE_FLAG_WORDS, 0);
        sc_bench("finite", "frame_1024_1obj", SAMRT_DTYPE_F16, 2.0 * (1 << 20) + 4.0 * 65536 + 2.0 * 262144 + 1024.0,
                 fin_launch, &b);
        sc_free_all();
    }
    return check_report("test_finite_cuda");
}

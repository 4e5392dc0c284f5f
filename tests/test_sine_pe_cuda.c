/* test_sine_pe_cuda.c - samrt_sine_pe_cuda and samrt_sine_pe_1d_cuda against the C
 * references, f32/f16/bf16, at every map the models build (neck levels 256x256 / 128x128
 * / 64x64 with 256 channels, the 64-channel memory map, EdgeTAM's 16x16 perceiver map),
 * both layouts, an odd 3x5 map, and the 16 object-pointer distances. Outputs start as NaN
 * bytes. Values lie in [-1, 1], so the tolerance is absolute plus one stored ulp.
 * Run: test_sine_pe_cuda [--bench]   (exit 77 without a GPU) */
#include "samrt_impl.h"
#include "sine_pe.h"
#include "smallops_cuda.h"

/* Device powf/sinf/cosf differ from glibc's by a few ulp at arguments up to 2pi. */
static const double PE_ATOL[3] = {4e-6, 4e-6, 4e-6};
static const double PE_RTOL[3] = {0.0, 1.0 / 1024, 1.0 / 128};

struct pe_case {
    const char *name;
    int d, h, w, channels_last, bench;
};

static const struct pe_case PE_CASES[] = {
    {"neck_pos2", 256, 64, 64, 1, 1},     /* memory-attention query PE, as tokens */
    {"neck_pos2_chw", 256, 64, 64, 0, 0},
    {"neck_pos1", 256, 128, 128, 0, 0},
    {"neck_pos0", 256, 256, 256, 0, 1},
    {"maskmem_pos", 64, 64, 64, 1, 0},
    {"perceiver_pos2", 64, 16, 16, 1, 0},
    {"odd", 8, 3, 5, 0, 0},
};

static enum samrt_status pe_launch(void *ctx, cudaStream_t s) {
    return samrt_sine_pe_cuda((const struct samrt_sine_pe_args *)ctx, s);
}

static void run_pe(const struct pe_case *c, enum samrt_dtype dt, int bench) {
    const long n = (long)c->d * c->h * c->w;
    const size_t bytes = (size_t)n * samrt_dtype_size(dt);
    void *rout = sc_host_alloc(bytes);
    struct samrt_sine_pe_args ra = {dt, c->d, c->h, c->w, c->channels_last, rout};
    CHECK_STATUS(samrt_sine_pe_ref(&ra), SAMRT_OK);
    struct samrt_sine_pe_args ga = ra;
    ga.out = sc_dev_at(NULL, bytes, 0);
    CHECK_STATUS(samrt_sine_pe_cuda(&ga, 0), SAMRT_OK);
    SC_CUDA(cudaDeviceSynchronize());
    sc_compare(c->name, dt, ga.out, rout, n, PE_ATOL[dt], PE_RTOL[dt]);
    if (bench && c->bench) {
        char shape[48];
        snprintf(shape, sizeof shape, "%dx%dx%d", c->d, c->h, c->w);
        sc_bench("sine_pe", shape, dt, (double)bytes, pe_launch, &ga);
    }
    sc_free_all();
}

static void run_pe_1d(enum samrt_dtype dt) {
    enum { N = 16, DIM = 256 };
    float pos[N];
    for (int d = 0; d < N; d++) pos[d] = (float)d / 15.0f;  /* d / (max_ptr - 1) */
    const size_t bytes = (size_t)N * DIM * samrt_dtype_size(dt);
    void *rout = sc_host_alloc(bytes);
    struct samrt_sine_pe_1d_args ra = {dt, N, DIM, pos, rout};
    CHECK_STATUS(samrt_sine_pe_1d_ref(&ra), SAMRT_OK);
    struct samrt_sine_pe_1d_args ga = {dt, N, DIM, (const float *)sc_dev_at(pos, sizeof pos, 0),
                                       sc_dev_at(NULL, bytes, 0)};
    CHECK_STATUS(samrt_sine_pe_1d_cuda(&ga, 0), SAMRT_OK);
    SC_CUDA(cudaDeviceSynchronize());
    sc_compare("sine_pe_1d ptr", dt, ga.out, rout, N * DIM, PE_ATOL[dt], PE_RTOL[dt]);
    sc_free_all();
}

int main(int argc, char **argv) {
    int rc = 0;
    if (!sc_gpu_or_skip("test_sine_pe_cuda", &rc)) return rc;
    const int bench = sc_has_flag(argc, argv, "--bench");

    struct samrt_sine_pe_args bad = {SAMRT_DTYPE_F32, 10, 4, 4, 0, NULL};
    CHECK_STATUS(samrt_sine_pe_cuda(&bad, 0), SAMRT_E_INVALID_ARG);

    for (size_t i = 0; i < SAMRT_ARRAY_LEN(PE_CASES); i++)
        for (int d = 0; d < 3; d++) run_pe(&PE_CASES[i], sc_dtypes[d], bench);
    for (int d = 0; d < 3; d++) run_pe_1d(sc_dtypes[d]);
    return check_report("test_sine_pe_cuda");
}

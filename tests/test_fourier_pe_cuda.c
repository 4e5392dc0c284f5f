/* test_fourier_pe_cuda.c - samrt_fourier_pe_dense_cuda and samrt_fourier_pe_points_cuda
 * against the C references with a seeded Gaussian-like matrix, f32/f16/bf16: the decoder's
 * 64x64 image PE in both layouts, an odd 5x7 grid with 6 frequencies, and point sets
 * (one click plus the padding point, a box plus clicks, random points over the frame).
 * Angles are computed in the same rounded order on both sides, so only sinf/cosf differ.
 * Outputs start as NaN bytes.
 * Run: test_fourier_pe_cuda [--bench]   (exit 77 without a GPU) */
#include "fourier_pe.h"
#include "samrt_impl.h"
#include "smallops_cuda.h"

static const double FPE_ATOL[3] = {1e-6, 1e-6, 1e-6};
static const double FPE_RTOL[3] = {1e-6, 1.0 / 1024, 1.0 / 128};

struct dense_case {
    const char *name;
    int f, h, w, channels_last, bench;
};

static const struct dense_case DENSE_CASES[] = {
    {"image_pe", 128, 64, 64, 1, 1},
    {"image_pe_chw", 128, 64, 64, 0, 0},
    {"odd", 6, 5, 7, 0, 0},
};

static enum samrt_status dense_launch(void *ctx, cudaStream_t s) {
    return samrt_fourier_pe_dense_cuda((const struct samrt_fourier_pe_dense_args *)ctx, s);
}

static float *random_gauss(int f, uint64_t seed) {
    float *g = (float *)sc_host_alloc(sizeof(float) * 2 * f);
    tu_fill_uniform(g, 2 * f, seed, -3.0f, 3.0f);  /* randn scale: |G| up to ~3 */
    return g;
}

static void run_dense(const struct dense_case *c, enum samrt_dtype dt, uint64_t seed, int bench) {
    const long n = 2L * c->f * c->h * c->w;
    const size_t bytes = (size_t)n * samrt_dtype_size(dt);
    float *g = random_gauss(c->f, seed);
    void *rout = sc_host_alloc(bytes);
    struct samrt_fourier_pe_dense_args ra = {dt, c->f, g, c->h, c->w, c->channels_last, rout};
    CHECK_STATUS(samrt_fourier_pe_dense_ref(&ra), SAMRT_OK);
    struct samrt_fourier_pe_dense_args ga = ra;
    ga.gauss = (const float *)sc_dev_at(g, sizeof(float) * 2 * c->f, 0);
    ga.out = sc_dev_at(NULL, bytes, 0);
    CHECK_STATUS(samrt_fourier_pe_dense_cuda(&ga, 0), SAMRT_OK);
    SC_CUDA(cudaDeviceSynchronize());
    sc_compare(c->name, dt, ga.out, rout, n, FPE_ATOL[dt], FPE_RTOL[dt]);
    if (bench && c->bench) {
        char shape[48];
        snprintf(shape, sizeof shape, "%dx%dx%d", 2 * c->f, c->h, c->w);
        sc_bench("fourier_pe_dense", shape, dt, (double)bytes, dense_launch, &ga);
    }
    sc_free_all();
}

static void run_points(const char *name, int n_points, const float *xy_fixed, enum samrt_dtype dt, uint64_t seed) {
    enum { F = 128 };
    float *g = random_gauss(F, seed);
    float *xy = (float *)sc_host_alloc(sizeof(float) * 2 * n_points);
    if (xy_fixed) memcpy(xy, xy_fixed, sizeof(float) * 2 * n_points);
    else tu_fill_uniform(xy, 2 * n_points, seed + 1, 0.0f, 1024.0f);
    const size_t bytes = (size_t)n_points * 2 * F * samrt_dtype_size(dt);
    void *rout = sc_host_alloc(bytes);
    struct samrt_fourier_pe_points_args ra = {dt, F, g, n_points, xy, 0.5f, 1024, 1024, rout};
    CHECK_STATUS(samrt_fourier_pe_points_ref(&ra), SAMRT_OK);
    struct samrt_fourier_pe_points_args ga = ra;
    ga.gauss = (const float *)sc_dev_at(g, sizeof(float) * 2 * F, 0);
    ga.coords = (const float *)sc_dev_at(xy, sizeof(float) * 2 * n_points, 0);
    ga.out = sc_dev_at(NULL, bytes, 0);
    CHECK_STATUS(samrt_fourier_pe_points_cuda(&ga, 0), SAMRT_OK);
    SC_CUDA(cudaDeviceSynchronize());
    sc_compare(name, dt, ga.out, rout, (long)n_points * 2 * F, FPE_ATOL[dt], FPE_RTOL[dt]);
    sc_free_all();
}

int main(int argc, char **argv) {
    int rc = 0;
    if (!sc_gpu_or_skip("test_fourier_pe_cuda", &rc)) return rc;
    const int bench = sc_has_flag(argc, argv, "--bench");

    struct samrt_fourier_pe_points_args bad = {SAMRT_DTYPE_F32, 128, NULL, 1, NULL, 0.5f, 1024, 1024, NULL};
    CHECK_STATUS(samrt_fourier_pe_points_cuda(&bad, 0), SAMRT_E_INVALID_ARG);

    /* one click then the padding point (its coordinates are (0, 0) minus the shift) */
    const float click[4] = {412.3f, 600.8f, -0.5f, -0.5f};
    /* box corners (labels 2, 3) then a click and the padding point */
    const float box[8] = {100.0f, 200.0f, 900.5f, 1000.25f, 512.0f, 512.0f, -0.5f, -0.5f};
    for (int d = 0; d < 3; d++) {
        for (size_t i = 0; i < SAMRT_ARRAY_LEN(DENSE_CASES); i++)
            run_dense(&DENSE_CASES[i], sc_dtypes[d], 900 + 10 * i, bench);
        run_points("points_click", 2, click, sc_dtypes[d], 950);
        run_points("points_box", 4, box, sc_dtypes[d], 960);
        run_points("points_random", 37, NULL, sc_dtypes[d], 970);
    }
    return check_report("test_fourier_pe_cuda");
}

/* test_fill_holes_cuda.c - samrt_fill_holes_cuda against the C reference on seeded random
 * blob masks: the tracker's shape (K maps of 256x256, fill_hole_area 8) and odd ones (1xN,
 * Nx1, prime sides, a batch of many small maps, all background, thresholds from 1 to large),
 * in place and out of place. Blobs are sums of random Gaussian bumps minus an offset, plus
 * salt noise, so the background has many components of every size from 1 pixel up, touching
 * borders and each other diagonally. The fill only copies values or writes 0.1, so the
 * result must equal the reference bit for bit. Outputs start as NaN bytes.
 * Also checks that the 4 launches replay from a captured CUDA graph.
 * Run: test_fill_holes_cuda [--bench]   (exit 77 without a GPU) */
#include <math.h>

#include "fill_holes.h"
#include "samrt_impl.h"
#include "smallops_cuda.h"

struct fh_case {
    const char *name;
    int batch, h, w, max_area;
    float offset;      /* larger: more background */
    int salt_every;    /* every n-th pixel flipped (0: none) */
    int bench;
};

static const struct fh_case FH_CASES[] = {
    {"track_k1", 1, 256, 256, 8, 0.3f, 13, 1},
    {"track_k4", 4, 256, 256, 8, 0.5f, 7, 1},
    {"track_k16", 16, 256, 256, 8, 0.2f, 29, 1},
    {"odd_prime", 3, 97, 131, 8, 0.4f, 5, 0},
    {"row", 2, 1, 257, 3, 0.5f, 3, 0},
    {"column", 2, 263, 1, 3, 0.5f, 3, 0},
    {"many_small", 200, 7, 5, 4, 0.5f, 3, 0},
    {"area1", 2, 64, 64, 1, 0.5f, 2, 0},
    {"area_big", 2, 64, 64, 500, 0.6f, 11, 0},
    {"all_background", 2, 33, 17, 8, 1e9f, 0, 0},
    {"all_background_fill", 1, 3, 3, 9, 1e9f, 0, 0},
};

/* Random blobs: a few Gaussian bumps, minus offset, and salt noise; a few exact zeros. */
static float *make_masks(const struct fh_case *c, uint64_t seed) {
    const long n = (long)c->batch * c->h * c->w;
    float *x = (float *)sc_host_alloc(sizeof(float) * (size_t)n);
    uint64_t st = seed * 0x9E3779B97F4A7C15ull + 1;
    for (int b = 0; b < c->batch; b++) {
        float cx[6], cy[6], r[6];
        for (int i = 0; i < 6; i++) {
            cx[i] = tu_rand_uniform(&st, 0, (float)c->w);
            cy[i] = tu_rand_uniform(&st, 0, (float)c->h);
            r[i] = tu_rand_uniform(&st, 2, 0.3f * (float)(c->h > c->w ? c->h : c->w) + 2);
        }
        for (int y = 0; y < c->h; y++)
            for (int xx = 0; xx < c->w; xx++) {
                float v = -c->offset;
                for (int i = 0; i < 6; i++) {
                    const float dx = (xx - cx[i]) / r[i], dy = (y - cy[i]) / r[i];
                    v += expf(-(dx * dx + dy * dy));
                }
                const long p = ((long)b * c->h + y) * c->w + xx;
                if (c->salt_every && tu_rand_u32(&st) % (uint32_t)c->salt_every == 0) v = -v;
                if (tu_rand_u32(&st) % 97 == 0) v = 0.0f;
                x[p] = v;
            }
    }
    return x;
}

static void compare_exact(const char *what, const float *d, const float *want, long n) {
    float *got = (float *)sc_host_alloc(sizeof(float) * (size_t)n);
    SC_CUDA(cudaMemcpy(got, d, sizeof(float) * (size_t)n, cudaMemcpyDeviceToHost));
    long bad = 0, first = -1, filled = 0;
    for (long i = 0; i < n; i++) {
        if (!(got[i] == want[i]) && bad++ == 0) first = i;
        filled += want[i] == SAMRT_FILL_HOLES_VALUE;
    }
    CHECK_MSG(bad == 0, "%s: %ld of %ld differ, first at %ld (got %g want %g)", what, bad, n, first,
              first >= 0 ? got[first] : 0.0, first >= 0 ? want[first] : 0.0);
    if (getenv("SAMRT_TEST_VERBOSE")) printf("%s: %ld pixels filled\n", what, filled);
}

static enum samrt_status fh_launch(void *ctx, cudaStream_t s) {
    return samrt_fill_holes_cuda((const struct samrt_fill_holes_args *)ctx, s);
}

static void run_case(const struct fh_case *c, uint64_t seed, int bench) {
    const long n = (long)c->batch * c->h * c->w;
    const size_t bytes = sizeof(float) * (size_t)n;
    float *hx = make_masks(c, seed);
    float *want = (float *)sc_host_alloc(bytes);
    int32_t *hws = (int32_t *)sc_host_alloc(samrt_fill_holes_ws_bytes(c->batch, c->h, c->w));
    const struct samrt_fill_holes_args ra = {c->batch, c->h, c->w, c->max_area, hx, want, hws};
    CHECK_STATUS(samrt_fill_holes_ref(&ra), SAMRT_OK);

    float *dx = (float *)sc_dev_at(hx, bytes, 0), *dout = (float *)sc_dev_at(NULL, bytes, 0);
    int32_t *dws = (int32_t *)sc_dev_at(NULL, samrt_fill_holes_ws_bytes(c->batch, c->h, c->w), 0);
    struct samrt_fill_holes_args a = {c->batch, c->h, c->w, c->max_area, dx, dout, dws};
    char what[128];
    CHECK_STATUS(samrt_fill_holes_cuda(&a, 0), SAMRT_OK);
    SC_CUDA(cudaDeviceSynchronize());
    snprintf(what, sizeof what, "%s out of place", c->name);
    compare_exact(what, dout, want, n);
    /* twice more: the workspace holds the previous call's labels, which must not matter */
    CHECK_STATUS(samrt_fill_holes_cuda(&a, 0), SAMRT_OK);
    SC_CUDA(cudaDeviceSynchronize());
    snprintf(what, sizeof what, "%s repeated", c->name);
    compare_exact(what, dout, want, n);
    a.out = dx;  /* in place */
    CHECK_STATUS(samrt_fill_holes_cuda(&a, 0), SAMRT_OK);
    SC_CUDA(cudaDeviceSynchronize());
    snprintf(what, sizeof what, "%s in place", c->name);
    compare_exact(what, dx, want, n);
    if (bench && c->bench) {
        a.x = dout;  /* already filled: same work, nothing changes between reps */
        a.out = dout;
        sc_bench("fill_holes", c->name, SAMRT_DTYPE_F32, 2.0 * (double)bytes + 16.0 * (double)n, fh_launch, &a);
    }
    sc_free_all();
}

/* The launcher under stream capture, replayed twice on fresh inputs. */
static void test_graph(uint64_t seed) {
    const struct fh_case c = {"graph", 4, 256, 256, 8, 0.4f, 9, 0};
    const long n = (long)c.batch * c.h * c.w;
    const size_t bytes = sizeof(float) * (size_t)n;
    float *dx = (float *)sc_dev_at(NULL, bytes, 0), *dout = (float *)sc_dev_at(NULL, bytes, 0);
    int32_t *dws = (int32_t *)sc_dev_at(NULL, samrt_fill_holes_ws_bytes(c.batch, c.h, c.w), 0);
    const struct samrt_fill_holes_args a = {c.batch, c.h, c.w, c.max_area, dx, dout, dws};
    struct sc_graph gr;
    sc_graph_capture(&gr, fh_launch, (void *)&a);
    cudaStream_t s = gr.s;
    for (int rep = 0; rep < 2; rep++) {
        float *hx = make_masks(&c, seed + (uint64_t)rep);
        float *want = (float *)sc_host_alloc(bytes);
        int32_t *hws = (int32_t *)sc_host_alloc(samrt_fill_holes_ws_bytes(c.batch, c.h, c.w));
        const struct samrt_fill_holes_args ra = {c.batch, c.h, c.w, c.max_area, hx, want, hws};
        CHECK_STATUS(samrt_fill_holes_ref(&ra), SAMRT_OK);
        /* on the graph's stream: a cudaMemcpy from pageable memory may return before its DMA
         * lands, and the non-blocking stream does not wait for the legacy stream */
        SC_CUDA(cudaMemcpyAsync(dx, hx, bytes, cudaMemcpyHostToDevice, s));
        SC_CUDA(cudaGraphLaunch(gr.exec, s));
        SC_CUDA(cudaStreamSynchronize(s));
        compare_exact(rep ? "graph replay 2" : "graph replay 1", dout, want, n);
    }
    sc_graph_free(&gr);
    sc_free_all();
}

int main(int argc, char **argv) {
    char why[256];
    if (!tu_have_gpu(why, sizeof why)) return check_skip("test_fill_holes_cuda", why);
    const int bench = sc_has_flag(argc, argv, "--bench");
    uint64_t seed = 0x5eed0f111ull;
    for (size_t i = 0; i < sizeof FH_CASES / sizeof FH_CASES[0]; i++)
        for (int rep = 0; rep < 3; rep++) run_case(&FH_CASES[i], seed++, bench && rep == 0);
    test_graph(seed);
    return check_report("test_fill_holes_cuda");
}

/* fill_holes_ref.c - plain C11 reference for fill_holes.h: a breadth-first flood fill of each
 * background component (8 neighbours), its pixels collected in the workspace queue, which
 * then holds exactly the component when its area is known, so filling it is one pass over
 * the queue. Written independently of the CUDA union-find, so the two check each other.
 * Tests: tests/test_fill_holes.c (hand masks), tests/test_fill_holes_cuda.c (vs the kernel). */
#include "fill_holes.h"

#include <string.h>

#include "samrt_impl.h"

enum samrt_status samrt_fill_holes_check(const struct samrt_fill_holes_args *a) {
    if (!a || a->n_batch <= 0 || a->h <= 0 || a->w <= 0 || a->max_area <= 0) return SAMRT_E_INVALID_ARG;
    if ((int64_t)a->n_batch * a->h * a->w > INT32_MAX) return SAMRT_E_INVALID_ARG;
    if (!a->x || !a->out || !a->ws) return SAMRT_E_INVALID_ARG;
    return SAMRT_OK;
}

static int is_bg(const float *x, int64_t p) { return x[p] <= 0.0f; }

/* One map: seen (n) marks visited background pixels, queue (n) the current component. */
static void fill_map(const float *x, float *out, int h, int w, int max_area, int32_t *seen, int32_t *queue) {
    const int64_t n = (int64_t)h * w;
    memset(seen, 0, sizeof *seen * (size_t)n);
    for (int64_t p0 = 0; p0 < n; p0++) {
        if (seen[p0] || !is_bg(x, p0)) continue;
        int64_t head = 0, tail = 0;
        queue[tail++] = (int32_t)p0;
        seen[p0] = 1;
        while (head < tail) {
            const int32_t p = queue[head++];
            const int y = p / w, xx = p % w;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    const int yy = y + dy, xn = xx + dx;
                    if ((dy == 0 && dx == 0) || yy < 0 || yy >= h || xn < 0 || xn >= w) continue;
                    const int64_t q = (int64_t)yy * w + xn;
                    if (seen[q] || !is_bg(x, q)) continue;
                    seen[q] = 1;
                    queue[tail++] = (int32_t)q;
                }
        }
        if (tail <= max_area)  /* tail = the component's area */
            for (int64_t i = 0; i < tail; i++) out[queue[i]] = SAMRT_FILL_HOLES_VALUE;
    }
}

enum samrt_status samrt_fill_holes_ref(const struct samrt_fill_holes_args *a) {
    SAMRT_TRY(samrt_fill_holes_check(a));
    const int64_t n = (int64_t)a->h * a->w;
    /* a filled pixel is never read again (it is marked seen), so in place is safe */
    if (a->out != a->x) memmove(a->out, a->x, sizeof(float) * (size_t)(n * a->n_batch));
    for (int32_t b = 0; b < a->n_batch; b++)
        fill_map(a->out + b * n, a->out + b * n, a->h, a->w, a->max_area, a->ws, a->ws + n);
    return SAMRT_OK;
}

/* health.c - the non-finite check of a call's results (health.h). */
#include "health.h"

#include <stdio.h>
#include <string.h>

#include "samrt_impl.h"

enum samrt_status samrt_health_plan(struct samrt_op_ctx *c, const char *slot_name, struct samrt_health *h) {
    memset(h, 0, sizeof *h);
    h->slot = -1;
    return samrt_ctx_persistent(c, slot_name, SAMRT_REGION_STAGING, SAMRT_DTYPE_I32, 1,
                                SAMRT_SHAPE(SAMRT_FINITE_FLAG_WORDS), &h->flags, &h->slot);
}

void samrt_health_prepare(struct samrt_health *h, const struct samrt_arena *a) {
    if (h->slot >= 0) h->flags.data = samrt_arena_ptr(a, h->slot);
    h->host = 0;
}

enum samrt_status samrt_health_enqueue(const struct samrt_engine *e, struct samrt_health *h,
                                       const struct samrt_health_seg *segs, int n, samrt_stream *stream) {
    SAMRT_CHECK(h->flags.data && n >= 1 && n <= SAMRT_FINITE_MAX_SEGS, SAMRT_E_BAD_STATE,
                "health: not planned, or %d tensors", n);
    struct samrt_finite_args a;
    memset(&a, 0, sizeof a);
    a.n_seg = n;
    a.flags = h->flags.data;
    for (int i = 0; i < n; i++) {
        const struct samrt_tensor *t = segs[i].t;
        int64_t count = samrt_tensor_nelements(t);
        if (segs[i].n_rows >= 0 && t->ne[0] > 0) count = count / t->ne[0] * segs[i].n_rows;
        a.seg[i] = (struct samrt_finite_seg){t->data, count, t->dtype};
        h->names[i] = segs[i].name;
    }
    h->n_seg = n;
    return samrt_op_finite(samrt_engine_on_device(e), &a, stream);
}

enum samrt_status samrt_health_download(const struct samrt_engine *e, struct samrt_health *h, samrt_stream *stream) {
    if (!samrt_engine_on_device(e)) {
        memcpy(&h->host, h->flags.data, sizeof h->host);
        return SAMRT_OK;
    }
    return samrt_stream_copy(&h->host, h->flags.data, sizeof h->host, SAMRT_COPY_D2H, stream);
}

enum samrt_status samrt_health_verdict(const struct samrt_engine *e, const struct samrt_health *h, const char *what) {
    if (h->host == 0) return SAMRT_OK;
    char list[256] = {0};
    for (int i = 0; i < h->n_seg; i++) {
        if (!(h->host & (1 << i))) continue;
        if (list[0]) strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, h->names[i] ? h->names[i] : "?", sizeof list - strlen(list) - 1);
    }
    if (e->precision == SAMRT_DTYPE_F16)
        SAMRT_LOG_ERROR("%s: non-finite values in the %s: fp16 overflowed (its range ends at 65504); "
                        "run this checkpoint with bf16 precision (--precision bf16, params.precision = "
                        "SAMRT_DTYPE_BF16)", what, list);
    else
        SAMRT_LOG_ERROR("%s: non-finite values in the %s at %s precision: the checkpoint or the frame yields "
                        "NaN or infinity", what, list, samrt_dtype_name(e->precision));
    return SAMRT_E_NUMERIC;
}

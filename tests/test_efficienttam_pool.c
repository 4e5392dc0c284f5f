/* test_efficienttam_pool.c - EfficientTAM's pooled memory keys and values
 * (models/efficienttam/pooled_kv.c) on the CPU backend against a plain C transcription of
 * EfficientRoPEAttention1 / 2's forward (sam/transformer.py): k = k_proj(kin), RoPE on the
 * memory rows with the g x g table repeated per memory (rope_k_repeat), each memory seen as a
 * g x g map and 2x2 average-pooled (F.avg_pool2d, row-major), /2: + 2 ln 2 on every pooled key
 * element; values projected and pooled alike; the pointer rows appended unchanged. /1 gives each
 * pooled row four times. g = 4, two memories, two pointers (8 tokens), f32.
 * Run: ctest -R test_efficienttam_pool */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ops.h"
#include "pooled_kv.h"
#include "test_util.h"

#define G 4
#define NQ (G * G)
#define M 2
#define P 8
#define L (M * NQ + P)
#define D 256
#define KV 64

struct rig {
    struct samrt_plan plan;
    struct samrt_arena_slot slots[128];
    struct samrt_exec ex;
    struct samrt_op_ctx c;
    struct samrt_arena arena;
    struct samrt_tensor kin, vin, kw, kb, vw, vb, rope, pw, pb, kout, vout;
    int slot[11];
    void *pool;
};

static void pass(struct rig *r, enum samrt_efftam_pool variant) {
    const struct samrt_efftam_pool_args a = {variant, G, M, P, &r->rope, &r->pw, &r->pb};
    struct samrt_tensor k, v;
    samrt_efftam_pool_kv(&r->c, &a, &r->kin, &r->vin, &r->kw, &r->kb, &r->vw, &r->vb, &k, &v);
    samrt_op_copy_into(&r->c, &k, NULL, &r->kout);
    samrt_op_copy_into(&r->c, &v, NULL, &r->vout);
}

/* The transcription: out (rows, D) from in (L, KV), W (D, KV), b (D). */
static void reference(const float *in, const float *w, const float *b, const float *table, int rotate,
                      float add, int rep, float *out) {
    static float x[L * D];
    for (int t = 0; t < L; t++)
        for (int o = 0; o < D; o++) {
            double s = b[o];
            for (int i = 0; i < KV; i++) s += (double)in[t * KV + i] * w[o * KV + i];
            x[t * D + o] = (float)s;
        }
    for (int t = 0; rotate && t < M * NQ; t++)  /* apply_rotary_enc, repeat_freqs_k */
        for (int p = 0; p < D / 2; p++) {
            const float *cs = &table[((t % NQ) * (D / 2) + p) * 2];
            const float re = x[t * D + 2 * p], im = x[t * D + 2 * p + 1];
            x[t * D + 2 * p] = re * cs[0] - im * cs[1];
            x[t * D + 2 * p + 1] = re * cs[1] + im * cs[0];
        }
    int row = 0;
    for (int j = 0; j < M; j++)
        for (int y = 0; y < G; y += 2)
            for (int xx = 0; xx < G; xx += 2) {
                for (int o = 0; o < D; o++) {
                    const float *m = &x[j * NQ * D];
                    const float s = m[(y * G + xx) * D + o] + m[(y * G + xx + 1) * D + o] +
                                    m[((y + 1) * G + xx) * D + o] + m[((y + 1) * G + xx + 1) * D + o];
                    for (int k = 0; k < rep; k++) out[(row + k) * D + o] = s / 4 + add;
                }
                row += rep;
            }
    memcpy(&out[row * D], &x[M * NQ * D], sizeof(float) * P * D);
}

static void run(enum samrt_efftam_pool variant) {
    const int rep = variant == SAMRT_EFFTAM_POOL_LOGIT ? 4 : 1, rows = rep * M * NQ / 4 + P;
    struct rig *r = calloc(1, sizeof *r);
    samrt_plan_init(&r->plan, r->slots, 128);
    CHECK_STATUS(samrt_ctx_init_backend(&r->c, SAMRT_BACKEND_CPU, SAMRT_DTYPE_F32, NULL, &r->ex, &r->plan), SAMRT_OK);
    struct samrt_tensor *t[11] = {&r->kin, &r->vin, &r->kw, &r->kb, &r->vw, &r->vb, &r->rope, &r->pw, &r->pb,
                                  &r->kout, &r->vout};
    const int64_t shapes[11][4] = {{1, L, KV}, {1, L, KV}, {D, KV}, {D}, {D, KV}, {D}, {NQ, D / 2, 2}, {D, 2, 2, 1},
                                   {D}, {1, rows, D}, {1, rows, D}};
    const int dims[11] = {3, 3, 2, 1, 2, 1, 3, 4, 1, 3, 3};
    for (int i = 0; i < 11; i++)
        CHECK_STATUS(samrt_ctx_persistent(&r->c, "t", SAMRT_REGION_STAGING, SAMRT_DTYPE_F32, dims[i], shapes[i], t[i],
                                          &r->slot[i]), SAMRT_OK);
    samrt_ctx_begin(&r->c, SAMRT_EXEC_PLAN, NULL);
    pass(r, variant);
    CHECK_STATUS(samrt_ctx_end(&r->c), SAMRT_OK);
    CHECK_STATUS(samrt_plan_finalize(&r->plan), SAMRT_OK);
    r->pool = aligned_alloc(SAMRT_ALIGN, SAMRT_PAD(r->plan.total_bytes, SAMRT_ALIGN));
    CHECK_STATUS(samrt_arena_commit(&r->arena, &r->plan, r->pool, r->plan.total_bytes), SAMRT_OK);
    for (int i = 0; i < 11; i++) t[i]->data = samrt_arena_ptr(&r->arena, r->slot[i]);
    tu_fill_uniform(r->kin.data, L * KV, 1, -1, 1);
    tu_fill_uniform(r->vin.data, L * KV, 2, -1, 1);
    tu_fill_uniform(r->kw.data, D * KV, 3, -0.2f, 0.2f);
    tu_fill_uniform(r->kb.data, D, 4, -0.1f, 0.1f);
    tu_fill_uniform(r->vw.data, D * KV, 5, -0.2f, 0.2f);
    tu_fill_uniform(r->vb.data, D, 6, -0.1f, 0.1f);
    CHECK_STATUS(samrt_op_host_rope_table(r->rope.data, D, G, G, 10000.0f), SAMRT_OK);
    samrt_efftam_pool_fill(r->pw.data, r->pb.data);
    samrt_ctx_begin(&r->c, SAMRT_EXEC_RUN, &r->arena);
    pass(r, variant);
    CHECK_STATUS(samrt_ctx_end(&r->c), SAMRT_OK);
    static float kref[L * 4 * D], vref[L * 4 * D];
    const float add = variant == SAMRT_EFFTAM_POOL_KEY ? (float)(2.0 * log(2.0)) : 0.0f;
    reference(r->kin.data, r->kw.data, r->kb.data, r->rope.data, 1, add, rep, kref);
    reference(r->vin.data, r->vw.data, r->vb.data, r->rope.data, 0, 0.0f, rep, vref);
    double worst = 0;
    const float *k = r->kout.data, *v = r->vout.data;
    for (int i = 0; i < rows * D; i++) worst = fmax(worst, fmax(fabs(k[i] - kref[i]), fabs(v[i] - vref[i])));
    printf("pooled kv /%d: %d rows, max |samrt - transcription| %.3g\n", (int)variant, rows, worst);
    CHECK_MSG(worst < 1e-5, "variant %d: %.3g", (int)variant, worst);
    samrt_ctx_free(&r->c);
    free(r->pool);
    free(r);
}

int main(void) {
    run(SAMRT_EFFTAM_POOL_KEY);
    run(SAMRT_EFFTAM_POOL_LOGIT);
    return check_report("test_efficienttam_pool");
}

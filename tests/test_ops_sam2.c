/* test_ops_sam2.c - the op entries that moved out of the networks into ops/ (ops_sam2.h, and
 * in ops.h the key-prefix attention, the 1-D sine encoding, the host tables and the fetch),
 * on the CPU backend: one PLAN and one RUN pass over small shapes, each output compared with
 * its kernel's C reference called directly on the same inputs. What is checked is the
 * wiring (which tensor becomes which argument, offsets, strides, counts); the kernels have
 * their own tests (test_sam2_select, test_mask_decode, test_sam2_memory, test_sine_pe,
 * test_fill_holes, test_attention). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fill_holes.h"
#include "fourier_pe.h"
#include "interp.h"
#include "mask_decode.h"
#include "mem_store.h"
#include "ops_sam2.h"
#include "sine_pe.h"

#define B 2          /* objects */
#define LQ 3         /* queries */
#define TK 5         /* keys (the longest prefix) */
#define NH 2         /* heads */
#define HD 4         /* head dim */
#define P 16         /* pixels of a low-res mask (4 x 4) */
#define LOW 4
#define SIDE 16
#define DIM 8        /* token width */
#define NT 6         /* memory tokens */
#define MD 4         /* memory channels */
#define NPOS 3
#define FH 8         /* fill-holes map side */

static const int32_t g_n_keys[B] = {2, 5};

/* Inputs (staging) and persistent outputs, and host copies of what the RUN pass produced. */
static struct {
    struct samrt_tensor q, k, v, masks, iou, score, tokens, low_res, result, tok_out, ptr, no_obj_ptr, obj_ptr;
    struct samrt_tensor low, x, mscore, no_obj, mem, pos, fx, fout, fws;
    int slot[22];
    float o[B * LQ * NH * HD], o_ref[B * LQ * NH * HD], m_in[B * SIDE * SIDE], sine[NPOS * DIM];
} g;

static void fill(struct samrt_tensor *t, uint32_t seed, float lo, float hi) {
    float *p = t->data;
    for (int64_t i = 0; i < samrt_tensor_nelements(t); i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = lo + (hi - lo) * (float)(seed >> 8) / (float)(1u << 24);
    }
}

static void forward(struct samrt_op_ctx *c) {
    const int run = samrt_exec_running(c->ex);
    /* key-prefix attention on scratch copies, against the general op on each prefix */
    struct samrt_tensor q = samrt_op_copy(c, "q", &g.q, SAMRT_DTYPE_F32, NULL);
    struct samrt_tensor k = samrt_op_copy(c, "k", &g.k, SAMRT_DTYPE_F32, NULL);
    struct samrt_tensor v = samrt_op_copy(c, "v", &g.v, SAMRT_DTYPE_F32, NULL);
    struct samrt_tensor o = samrt_op_attention_key_prefix(c, "o", &q, &k, &v, NH, HD, g_n_keys);
    if (run) memcpy(g.o, o.data, sizeof g.o);
    for (int b = 0; b < B; b++) {
        const int64_t n = g_n_keys[b];
        struct samrt_tensor qb = samrt_tensor_view(&q, b * LQ * NH * HD, 3, SAMRT_SHAPE(1, LQ, NH * HD), q.s);
        struct samrt_tensor kb = samrt_tensor_view(&k, b * TK * NH * HD, 3, SAMRT_SHAPE(1, n, NH * HD), k.s);
        struct samrt_tensor vb = samrt_tensor_view(&v, b * TK * NH * HD, 3, SAMRT_SHAPE(1, n, NH * HD), v.s);
        struct samrt_op_attn_args a;
        memset(&a, 0, sizeof a);
        a.n_head = NH;
        a.d_qk = a.d_v = HD;
        struct samrt_tensor ob = samrt_op_attention(c, "o_ref", &qb, &kb, &vb, &a);
        if (run) memcpy(g.o_ref + b * LQ * NH * HD, ob.data, sizeof(float) * LQ * NH * HD);
    }
    /* selection and gate: the mask tokens start at token 2 of the (B, 6, DIM) tokens */
    const struct samrt_tensor mt = samrt_tensor_view(&g.tokens, 2 * DIM, 3, SAMRT_SHAPE(B, 4, DIM),
                                                     SAMRT_SHAPE(g.tokens.s[0], DIM, 1));
    const uint8_t mode[B] = {SAMRT_SAM2_MODE_MULTI, SAMRT_SAM2_MODE_SINGLE_DYNAMIC};
    samrt_op_sam2_select(c, &g.masks, &g.iou, &g.score, &mt, mode, &g.low_res, &g.result, &g.tok_out);
    samrt_op_sam2_ptr_gate(c, &g.ptr, &g.no_obj_ptr, &g.result, &g.obj_ptr);
    /* memory encoder: mask input, store */
    struct samrt_tensor m = samrt_op_sam2_mem_input(c, "m_in", &g.low, B, LOW, SIDE, 0, 20.0f, -10.0f);
    if (run) memcpy(g.m_in, m.data, sizeof g.m_in);
    samrt_op_sam2_mem_store(c, &g.x, &g.mscore, &g.no_obj, &g.mem);
    struct samrt_tensor s = samrt_op_sine_pe_1d(c, "sine", &g.pos, NPOS, DIM);
    if (run) memcpy(g.sine, s.data, sizeof g.sine);
}

static void add(struct samrt_op_ctx *c, const char *name, struct samrt_tensor *t, int i, enum samrt_dtype dt,
                int nd, const int64_t *ne) {
    CHECK_STATUS(samrt_ctx_persistent(c, name, SAMRT_REGION_STAGING, dt, nd, ne, t, &g.slot[i]), SAMRT_OK);
}

static void plan_all(struct samrt_op_ctx *c) {
    const enum samrt_dtype f = SAMRT_DTYPE_F32;
    add(c, "q", &g.q, 0, f, 3, SAMRT_SHAPE(B, LQ, NH * HD));
    add(c, "k", &g.k, 1, f, 3, SAMRT_SHAPE(B, TK, NH * HD));
    add(c, "v", &g.v, 2, f, 3, SAMRT_SHAPE(B, TK, NH * HD));
    add(c, "masks", &g.masks, 3, f, 3, SAMRT_SHAPE(B, 4, P));
    add(c, "iou", &g.iou, 4, f, 2, SAMRT_SHAPE(B, 4));
    add(c, "score", &g.score, 5, f, 2, SAMRT_SHAPE(B, 1));
    add(c, "tokens", &g.tokens, 6, f, 3, SAMRT_SHAPE(B, 6, DIM));
    add(c, "low_res", &g.low_res, 7, f, 2, SAMRT_SHAPE(B, P));
    add(c, "result", &g.result, 8, f, 2, SAMRT_SHAPE(B, SAMRT_SAM2_RES_COLS));
    add(c, "tok_out", &g.tok_out, 9, f, 2, SAMRT_SHAPE(B, DIM));
    add(c, "ptr", &g.ptr, 10, f, 2, SAMRT_SHAPE(B, DIM));
    add(c, "no_obj_ptr", &g.no_obj_ptr, 11, f, 1, SAMRT_SHAPE(DIM));
    add(c, "obj_ptr", &g.obj_ptr, 12, f, 2, SAMRT_SHAPE(B, DIM));
    add(c, "low", &g.low, 13, f, 4, SAMRT_SHAPE(B, 1, LOW, LOW));
    add(c, "x", &g.x, 14, f, 3, SAMRT_SHAPE(B, NT, MD));
    add(c, "mscore", &g.mscore, 15, f, 1, SAMRT_SHAPE(B));
    add(c, "no_obj", &g.no_obj, 16, f, 1, SAMRT_SHAPE(MD));
    add(c, "mem", &g.mem, 17, SAMRT_DTYPE_BF16, 3, SAMRT_SHAPE(B, NT, MD));
    add(c, "pos", &g.pos, 18, f, 1, SAMRT_SHAPE(NPOS));
    add(c, "fx", &g.fx, 19, f, 4, SAMRT_SHAPE(B, 1, FH, FH));
    add(c, "fout", &g.fout, 20, f, 4, SAMRT_SHAPE(B, 1, FH, FH));
    add(c, "fws", &g.fws, 21, SAMRT_DTYPE_I32, 1, SAMRT_SHAPE(2 * B * FH * FH));
}

static void resolve_all(const struct samrt_arena *arena) {
    struct samrt_tensor *t[22] = {&g.q, &g.k, &g.v, &g.masks, &g.iou, &g.score, &g.tokens, &g.low_res,
                                  &g.result, &g.tok_out, &g.ptr, &g.no_obj_ptr, &g.obj_ptr, &g.low, &g.x,
                                  &g.mscore, &g.no_obj, &g.mem, &g.pos, &g.fx, &g.fout, &g.fws};
    for (int i = 0; i < 22; i++) t[i]->data = samrt_arena_ptr(arena, g.slot[i]);
    struct samrt_tensor *in[13] = {&g.q, &g.k, &g.v, &g.masks, &g.iou, &g.score, &g.tokens, &g.ptr,
                                   &g.no_obj_ptr, &g.low, &g.x, &g.no_obj, &g.fx};
    for (int i = 0; i < 13; i++) fill(in[i], 17u + 31u * (uint32_t)i, -2.0f, 2.0f);
    for (int i = 0; i < B * P; i++) ((float *)g.masks.data)[i] *= 10.0f;        /* logits around 0 */
    ((float *)g.score.data)[0] = 2.5f, ((float *)g.score.data)[1] = -1.0f;    /* one present, one absent */
    ((float *)g.mscore.data)[0] = 1.5f, ((float *)g.mscore.data)[1] = -0.5f;
    for (int i = 0; i < NPOS; i++) ((float *)g.pos.data)[i] = (float)i / (NPOS - 1);
    float *fx = g.fx.data;  /* a positive map with a 2x2 negative hole */
    for (int i = 0; i < B * FH * FH; i++) fx[i] = 1.0f;
    fx[3 * FH + 3] = fx[3 * FH + 4] = fx[4 * FH + 3] = fx[4 * FH + 4] = -1.0f;
}

/* Each RUN output against its kernel's reference on the same inputs. */
static void check_against_refs(void) {
    check_close_f32("attention_key_prefix", g.o, g.o_ref, B * LQ * NH * HD, 1e-6, 1e-6);
    float low_res[B * P], result[B * SAMRT_SAM2_RES_COLS], tok[B * DIM], gate[B * DIM];
    struct samrt_sam2_select_args a = {SAMRT_DTYPE_F32, B, P, DIM, g.masks.data, g.iou.data, g.score.data,
                                       (const float *)g.tokens.data + 2 * DIM, 6 * DIM, SAMRT_SAM2_STABILITY_DELTA,
                                       SAMRT_SAM2_STABILITY_THRESH, SAMRT_SAM2_NO_OBJ_SCORE, {0}, low_res, result, tok};
    a.mode[0] = SAMRT_SAM2_MODE_MULTI;
    a.mode[1] = SAMRT_SAM2_MODE_SINGLE_DYNAMIC;
    CHECK_STATUS(samrt_sam2_select_ref(&a), SAMRT_OK);
    check_close_f32("select low_res", g.low_res.data, low_res, B * P, 0, 0);
    check_close_f32("select result", g.result.data, result, B * SAMRT_SAM2_RES_COLS, 0, 0);
    check_close_f32("select token", g.tok_out.data, tok, B * DIM, 0, 0);
    const struct samrt_sam2_ptr_gate_args pg = {SAMRT_DTYPE_F32, B, DIM, g.ptr.data, g.no_obj_ptr.data, result, gate};
    CHECK_STATUS(samrt_sam2_ptr_gate_ref(&pg), SAMRT_OK);
    check_close_f32("ptr_gate", g.obj_ptr.data, gate, B * DIM, 0, 0);
    static float m_in[B * SIDE * SIDE];
    const struct samrt_mask_mem_desc d = {B, LOW, LOW, SIDE, SIDE, 0, 20.0f, -10.0f, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32};
    CHECK_STATUS(samrt_mask_decode_mem_input_ref(&d, g.low.data, m_in), SAMRT_OK);
    check_close_f32("mem_input", g.m_in, m_in, B * SIDE * SIDE, 0, 0);
    uint16_t mem[B * NT * MD];
    const struct samrt_sam2_mem_store_args ms = {SAMRT_DTYPE_F32, B, NT, MD, g.x.data, g.mscore.data,
                                                 g.no_obj.data, mem};
    CHECK_STATUS(samrt_sam2_mem_store_ref(&ms), SAMRT_OK);
    CHECK(memcmp(g.mem.data, mem, sizeof mem) == 0);
    float sine[NPOS * DIM];
    const struct samrt_sine_pe_1d_args sa = {SAMRT_DTYPE_F32, NPOS, DIM, g.pos.data, sine};
    CHECK_STATUS(samrt_sine_pe_1d_ref(&sa), SAMRT_OK);
    check_close_f32("sine_pe_1d", g.sine, sine, NPOS * DIM, 0, 0);
}

/* The entries outside a pass: hole filling, fetch, and the host tables. */
static void check_outside_pass(const struct samrt_op_ctx *c) {
    CHECK_STATUS(samrt_op_fill_holes(c, &g.fx, 8, &g.fout, &g.fws), SAMRT_OK);
    static float want[B * FH * FH], out[B * FH * FH];
    static int32_t ws[2 * B * FH * FH];
    const struct samrt_fill_holes_args fa = {B, FH, FH, 8, g.fx.data, want, ws};
    CHECK_STATUS(samrt_fill_holes_ref(&fa), SAMRT_OK);
    CHECK_STATUS(samrt_ctx_fetch(c, out, g.fout.data, sizeof out), SAMRT_OK);
    check_close_f32("fill_holes", out, want, B * FH * FH, 0, 0);
    CHECK(out[3 * FH + 3] > 0.0f);  /* the hole is filled */
    CHECK_STATUS(samrt_ctx_sync(c), SAMRT_OK);

    float pe[4 * 4 * 8], pe_ref[4 * 4 * 8], big[2 * 8 * 8], big_ref[2 * 8 * 8];
    const struct samrt_sine_pe_args s = {SAMRT_DTYPE_F32, 8, 4, 4, 1, pe_ref};
    CHECK_STATUS(samrt_op_host_sine_pe(SAMRT_DTYPE_F32, 8, 4, 4, pe), SAMRT_OK);
    CHECK_STATUS(samrt_sine_pe_ref(&s), SAMRT_OK);
    check_close_f32("host sine_pe", pe, pe_ref, 4 * 4 * 8, 0, 0);
    const float gauss[2 * 4] = {0.3f, -1.2f, 0.7f, 2.0f, -0.4f, 0.9f, 1.1f, -0.6f};
    const float coords[2 * 2] = {10.0f, 20.0f, 100.0f, 3.0f};
    const struct samrt_fourier_pe_dense_args fd = {SAMRT_DTYPE_F32, 4, gauss, 4, 4, 1, pe_ref};
    CHECK_STATUS(samrt_op_host_fourier_pe_dense(4, gauss, 4, 4, pe), SAMRT_OK);
    CHECK_STATUS(samrt_fourier_pe_dense_ref(&fd), SAMRT_OK);
    check_close_f32("host fourier_pe_dense", pe, pe_ref, 4 * 4 * 8, 0, 0);
    const struct samrt_fourier_pe_points_args fp = {SAMRT_DTYPE_F32, 4, gauss, 2, coords, 0.5f, 128.0f, 64.0f, pe_ref};
    CHECK_STATUS(samrt_op_host_fourier_pe_points(4, gauss, 2, coords, 0.5f, 128.0f, 64.0f, pe), SAMRT_OK);
    CHECK_STATUS(samrt_fourier_pe_points_ref(&fp), SAMRT_OK);
    check_close_f32("host fourier_pe_points", pe, pe_ref, 2 * 8, 0, 0);
    const struct samrt_interp_desc id = {SAMRT_INTERP_BICUBIC, 2, 4, 4, 8, 8, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32};
    CHECK_STATUS(samrt_op_host_interp(SAMRT_INTERP_BICUBIC, 2, 4, 4, 8, 8, pe, big), SAMRT_OK);
    CHECK_STATUS(samrt_interp_ref(&id, pe, big_ref), SAMRT_OK);
    check_close_f32("host interp", big, big_ref, 2 * 8 * 8, 0, 0);
}

int main(void) {
    static struct samrt_arena_slot slots[128];
    static struct samrt_exec ex;
    struct samrt_plan plan;
    struct samrt_op_ctx c;
    samrt_plan_init(&plan, slots, 128);
    CHECK_STATUS(samrt_ctx_init_backend(&c, SAMRT_BACKEND_CPU, SAMRT_DTYPE_F32, NULL, &ex, &plan), SAMRT_OK);
    plan_all(&c);
    samrt_ctx_begin(&c, SAMRT_EXEC_PLAN, NULL);
    forward(&c);
    CHECK_STATUS(samrt_ctx_end(&c), SAMRT_OK);
    CHECK_STATUS(samrt_plan_finalize(&plan), SAMRT_OK);
    void *pool = aligned_alloc(SAMRT_ALIGN, SAMRT_PAD(plan.total_bytes, SAMRT_ALIGN));
    struct samrt_arena arena;
    CHECK(pool != NULL);
    CHECK_STATUS(samrt_arena_commit(&arena, &plan, pool, plan.total_bytes), SAMRT_OK);
    resolve_all(&arena);
    samrt_ctx_use_gpu_stream(&c);  /* no stream on the CPU backend: a no-op */
    samrt_ctx_begin(&c, SAMRT_EXEC_RUN, &arena);
    forward(&c);
    CHECK_STATUS(samrt_ctx_end(&c), SAMRT_OK);
    check_against_refs();
    check_outside_pass(&c);
    samrt_ctx_free(&c);
    free(pool);
    return check_report("test_ops_sam2");
}

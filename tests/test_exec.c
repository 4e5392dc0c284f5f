/* test_exec.c - the PLAN/RUN executor: a toy forward pass planned, committed and run; live
 * tensors never share bytes, dead ones do, and RUN hands out exactly the planned slots. */
#include "exec.h"

#include <string.h>

#include "check.h"

/* x -> a -> b -> out, with x also read by the last op (a long-lived input). */
static void toy_forward(struct samrt_exec *ex, float *out_sum) {
    const int64_t ne[1] = {1000};
    struct samrt_tensor x = samrt_exec_new(ex, "x", SAMRT_REGION_SCRATCH, SAMRT_DTYPE_F32, 1, ne);
    if (samrt_exec_running(ex)) for (int i = 0; i < 1000; i++) ((float *)x.data)[i] = 1.0f;
    samrt_exec_use(ex, &x);
    samrt_exec_step(ex);
    struct samrt_tensor a = samrt_exec_new(ex, "a", SAMRT_REGION_SCRATCH, SAMRT_DTYPE_F32, 1, ne);
    samrt_exec_use(ex, &x);
    samrt_exec_use(ex, &a);
    if (samrt_exec_running(ex)) for (int i = 0; i < 1000; i++) ((float *)a.data)[i] = ((float *)x.data)[i] * 2;
    samrt_exec_step(ex);
    struct samrt_tensor b = samrt_exec_new(ex, "b", SAMRT_REGION_SCRATCH, SAMRT_DTYPE_F32, 1, ne);
    samrt_exec_use(ex, &a);
    samrt_exec_use(ex, &b);
    if (samrt_exec_running(ex)) for (int i = 0; i < 1000; i++) ((float *)b.data)[i] = ((float *)a.data)[i] + 1;
    samrt_exec_step(ex);
    struct samrt_tensor c = samrt_exec_new(ex, "c", SAMRT_REGION_SCRATCH, SAMRT_DTYPE_F32, 1, ne);
    samrt_exec_use(ex, &b);
    samrt_exec_use(ex, &x);
    samrt_exec_use(ex, &c);
    if (samrt_exec_running(ex)) {
        float s = 0;
        for (int i = 0; i < 1000; i++) {
            ((float *)c.data)[i] = ((float *)b.data)[i] + ((float *)x.data)[i];
            s += ((float *)c.data)[i];
        }
        *out_sum = s;
    }
    samrt_exec_step(ex);
}

int main(void) {
    static struct samrt_arena_slot slots[16];
    static struct samrt_exec ex;
    struct samrt_plan plan;
    samrt_plan_init(&plan, slots, 16);
    samrt_exec_begin(&ex, SAMRT_EXEC_PLAN, &plan, NULL);
    toy_forward(&ex, NULL);
    CHECK_STATUS(samrt_exec_end(&ex), SAMRT_OK);
    CHECK_EQ_INT(plan.n_slots, 4);
    /* lifetimes: x [0,3], a [1,2], b [2,3], c [3,3] */
    CHECK_EQ_INT(slots[0].t_first, 0); CHECK_EQ_INT(slots[0].t_last, 3);
    CHECK_EQ_INT(slots[1].t_first, 1); CHECK_EQ_INT(slots[1].t_last, 2);
    CHECK_EQ_INT(slots[2].t_last, 3);
    CHECK_STATUS(samrt_plan_finalize(&plan), SAMRT_OK);
    /* a is dead when c is born: they can share; x, b, c are live together: three buffers */
    CHECK_EQ_INT(plan.region_bytes[SAMRT_REGION_SCRATCH], 3 * 4096);
    static _Alignas(256) uint8_t pool[3 * 4096];
    memset(pool, 0xff, sizeof pool);
    struct samrt_arena arena;
    CHECK_STATUS(samrt_arena_commit(&arena, &plan, pool, sizeof pool), SAMRT_OK);
    float sum = 0;
    samrt_exec_begin(&ex, SAMRT_EXEC_RUN, &plan, &arena);
    toy_forward(&ex, &sum);
    CHECK_STATUS(samrt_exec_end(&ex), SAMRT_OK);
    CHECK_NEAR(sum, 4000.0, 0);  /* (1*2+1) + 1 = 4 per element */
    /* a run that makes more tensors than planned is refused */
    samrt_exec_begin(&ex, SAMRT_EXEC_RUN, &plan, &arena);
    toy_forward(&ex, &sum);
    const int64_t ne[1] = {4};
    samrt_exec_new(&ex, "extra", SAMRT_REGION_SCRATCH, SAMRT_DTYPE_F32, 1, ne);
    CHECK_STATUS(samrt_exec_end(&ex), SAMRT_E_BAD_STATE);
    return check_report("test_exec");
}

/* test_engine.c - engine init on the host pool (any machine): a complete EdgeTAM-shaped
 * checkpoint is written with tests/ckpt_writer.h, loaded at f32 and bf16, and the arena
 * report, the parameter count, the converted weight values and the error paths (wrong
 * model asked for, missing file, unknown profile) are checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ckpt_writer.h"
#include "engine_impl.h"
#include "half.h"

/* EdgeTAM's folded trunk: the conv / BN tensors the engine releases (runtime/sam2/family.c) */
static int folded_trunk_key(const char *name) {
    return !strncmp(name, "image_encoder.trunk.body.", 25) && !strstr(name, ".se.");
}

/* Bytes of the checkpoint's float tensors at esize bytes each; without the released trunk
 * tensors when `released` (an engine that planned the forward pass). */
static uint64_t expected_weight_bytes(enum samrt_model_id m, size_t esize, int released) {
    struct samrt_keys k;
    samrt_keys_init(m, &k);
    uint64_t sum = 0;
    for (int i = 0; i < k.n_keys; i++) {
        if (k.keys[i].is_int || (released && folded_trunk_key(k.keys[i].name))) continue;
        uint64_t n = 1;
        for (int d = 0; d < k.keys[i].n_dims; d++) n *= (uint64_t)k.keys[i].ne[d];
        sum += SAMRT_PAD(n * esize, SAMRT_ALIGN);
    }
    samrt_keys_free(&k);
    return sum;
}

/* Spot-checks that key i's tensor holds ckw_value(i, j) at the run precision; with `released`
 * (an engine that planned the forward pass) that the folded trunk's tensors, and only they,
 * hold no bytes. */
static void check_values(samrt_engine_t e, enum samrt_dtype dt, int released) {
    struct samrt_keys k;
    samrt_keys_init(SAMRT_MODEL_EDGETAM, &k);
    int checked = 0;
    for (int i = 0; i < k.n_keys; i += 37) {
        if (k.keys[i].is_int || strstr(k.keys[i].name, "running_var")) continue;
        const struct samrt_tensor *t = samrt_engine_weight(e, k.keys[i].name);
        CHECK_MSG(t != NULL, "weight %s not bound", k.keys[i].name);
        if (!t) continue;
        /* the folded trunk's conv / BN tensors are released (no bytes, no data): exactly those */
        const int trunk = released && folded_trunk_key(k.keys[i].name);
        CHECK_MSG(samrt_engine_weight_released(e, k.keys[i].name) == trunk, "%s released %d", k.keys[i].name,
                  samrt_engine_weight_released(e, k.keys[i].name));
        if (trunk) {
            CHECK(t->data == NULL);
            checked++;
            continue;
        }
        for (int64_t j = 0; j < samrt_tensor_nelements(t); j += 101) {
            float want = ckw_value(i, j), got;
            if (dt == SAMRT_DTYPE_F32) got = ((const float *)t->data)[j];
            else { want = samrt_round_bf16(want); got = samrt_bf16_to_f32(((const uint16_t *)t->data)[j]); }
            if (got != want) {
                CHECK_MSG(got == want, "%s[%lld] = %g, want %g", k.keys[i].name, (long long)j, got, want);
                break;
            }
        }
        checked++;
    }
    CHECK(checked > 10);
    samrt_keys_free(&k);
}

int main(void) {
    char path[] = "/tmp/samrt_test_engine_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return check_skip("test_engine", "cannot create a temporary file");
    close(fd);
    CHECK_EQ_INT(ckw_write_safetensors(path, SAMRT_MODEL_EDGETAM, SAMRT_DTYPE_F32), 0);

    struct samrt_engine_params p = samrt_engine_default_params();
    CHECK(p.imgsz == 1024 && p.max_objects == 1);
    p.platform = "cpu";
    p.precision = SAMRT_DTYPE_F32;
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init(path, &p, &e), SAMRT_OK);
    if (e) {
        enum samrt_model_id id;
        uint64_t n_params = 0;
        CHECK_STATUS(samrt_engine_model(e, &id, &n_params), SAMRT_OK);
        CHECK(id == SAMRT_MODEL_EDGETAM);
        CHECK_EQ_INT(n_params, 13895794);
        struct samrt_memory_report m;
        CHECK_STATUS(samrt_engine_memory(e, &m), SAMRT_OK);
        /* the checkpoint's tensors plus the constants the f32 forward pass derives from them
         * (folded trunk weights, position encodings, packed convs): weights-region slots that
         * are not checkpoint keys */
        uint64_t derived = 0;
        for (int i = 0; i < e->plan.n_slots; i++) {
            const struct samrt_arena_slot *sl = &e->plan.slots[i];
            if (sl->region == SAMRT_REGION_WEIGHTS && !samrt_engine_weight(e, sl->name))
                derived += SAMRT_PAD(sl->nbytes, SAMRT_ALIGN);
        }
        CHECK(derived > 0);
        CHECK_EQ_INT(m.weights_bytes, expected_weight_bytes(SAMRT_MODEL_EDGETAM, 4, 1) + derived);
        CHECK_EQ_INT(m.workspace_bytes, 0);  /* host pool: no cuBLASLt/cuDNN workspaces */
        CHECK_EQ_INT(m.arena_bytes, m.weights_bytes + m.state_bytes + m.workspace_bytes + m.staging_bytes +
                                        m.scratch_bytes);
        CHECK(m.mem_kind == SAMRT_MEM_HOST);
        check_values(e, SAMRT_DTYPE_F32, 1);
        samrt_engine_free(e);
    }

    p.precision = SAMRT_DTYPE_BF16;
    e = NULL;
    CHECK_STATUS(samrt_engine_init(path, &p, &e), SAMRT_OK);
    if (e) {
        struct samrt_memory_report m;
        samrt_engine_memory(e, &m);
        /* the host backend plans no bf16 forward pass: every checkpoint tensor, none released */
        CHECK_EQ_INT(m.weights_bytes, expected_weight_bytes(SAMRT_MODEL_EDGETAM, 2, 0));
        check_values(e, SAMRT_DTYPE_BF16, 0);
        samrt_engine_free(e);
    }

    /* a checkpoint of another model than the one asked for */
    p.expect_model = SAMRT_MODEL_SAM2_1_TINY;
    e = (samrt_engine_t)1;
    CHECK_STATUS(samrt_engine_init(path, &p, &e), SAMRT_E_MODEL_MISMATCH);
    CHECK(e == NULL);
    p.expect_model = SAMRT_MODEL_UNKNOWN;
    p.platform = "no-such-board";
    CHECK_STATUS(samrt_engine_init(path, &p, &e), SAMRT_E_INVALID_ARG);
    p.platform = "cpu";
    p.imgsz = 1000;
    CHECK_STATUS(samrt_engine_init(path, &p, &e), SAMRT_E_INVALID_ARG);
    p.imgsz = 1024;
    CHECK_STATUS(samrt_engine_init("/nonexistent/ckpt.pt", &p, &e), SAMRT_E_IO);
    CHECK_STATUS(samrt_engine_init(NULL, &p, &e), SAMRT_E_INVALID_ARG);
    samrt_engine_free(NULL);
    unlink(path);
    return check_report("test_engine");
}

/* test_sm_limit_cuda.c - samrt_engine_params.sm_limit on a GPU: an engine whose work runs in a
 * green context of 8 SMs (an Orin Nano / NX sized share, docs/performance.md).
 *   - the engine reports the SMs it got (samrt_internal_engine_sm_count): what the driver's
 *     split gives for 8 (samrt_internal_sm_share_query), a multiple of its granularity; an
 *     engine without sm_limit reports 0 (the whole GPU);
 *   - it tracks a synthetic clip (graph capture on the first frame of each kind, replay after)
 *     and agrees with the whole-GPU engine; a session of it shares the green context, tracks
 *     the same, and a session asking for another sm_limit is refused;
 *   - a kernel of many long blocks launched on the engine's stream runs on at most that many
 *     distinct SMs (%smid), while on the whole-GPU engine's stream it spreads wider;
 *   - more SMs than the device has is SAMRT_E_UNSUPPORTED.
 * The masks are compared by agreement, not bit for bit: library heuristics may see the share's
 * SM count and pick other algorithms.
 * Run: test_sm_limit_cuda   (exit 77 without a GPU, or where green contexts are unavailable) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "check.h"
#include "ckpt_writer.h"
#include "sam2_track_util.h"
#include "samrt_internal.h"
#include "sm_limit_smid.h"

#define W 80
#define H 60
#define SIDE 64
#define N_FRAMES 6
#define SM_LIMIT 8

struct run {
    uint8_t mask[N_FRAMES][2][H * W];
    int n[N_FRAMES];
    enum samrt_status st;
};

/* The clip of test_sessions: object 1 clicked on frame 0, object 2 boxed on frame 2. */
static void track_clip(samrt_engine_t e, struct run *r) {
    static uint8_t rgb[H * W * 3];
    memset(r, 0, sizeof *r);
    for (int f = 0; f < N_FRAMES && r->st == SAMRT_OK; f++) {
        struct samrt_track_result res[2] = {{.mask = r->mask[f][0]}, {.mask = r->mask[f][1]}};
        r->st = trk_two_object_push(e, rgb, W, H, f, res, &r->n[f]);
    }
}

/* Fraction of mask pixels on which two runs agree (1 when both are empty). */
static double agreement(const struct run *a, const struct run *b) {
    long same = 0, n = 0;
    for (int f = 0; f < N_FRAMES; f++)
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < H * W; i++) same += a->mask[f][k][i] == b->mask[f][k][i], n++;
    return (double)same / (double)n;
}

static void check_like(const char *what, const struct run *got, const struct run *ref) {
    CHECK_MSG(got->st == SAMRT_OK, "%s: tracking returned %s", what, samrt_status_str(got->st));
    CHECK_MSG(memcmp(got->n, ref->n, sizeof got->n) == 0, "%s: object counts differ", what);
    const double agree = agreement(got, ref);
    CHECK_MSG(agree >= 0.99, "%s: masks agree on %.4f of the pixels", what, agree);
}

/* The distinct SMs a probe kernel reaches on e's stream; -1 when the probe failed. */
static int smid_span(samrt_engine_t e, int device_sms) {
    int distinct = 0;
    return samrt_test_smid_span(samrt_backend_stream(e), 8 * device_sms, &distinct) == 0 ? distinct : -1;
}

int main(void) {
    const char *name = "test_sm_limit_cuda";
    int n_dev = 0;
    if (samrt_device_count(&n_dev) != SAMRT_OK || n_dev == 0)
        return check_skip(name, samrt_has_cuda() ? "no GPU" : "a build without CUDA");
    struct samrt_sm_share_info q;
    CHECK_STATUS(samrt_internal_sm_share_query(0, SM_LIMIT, &q), SAMRT_OK);
    if (!q.available || q.granted == 0) return check_skip(name, q.why);
    printf("%s: device 0 has %d SMs, shares of %d or more in multiples of %d; %d -> %d SMs\n", name, q.device_sms,
           q.min_sms, q.granularity, SM_LIMIT, q.granted);
    CHECK(q.granted >= SM_LIMIT && q.granted <= q.device_sms && q.granularity > 0 && q.granted % q.granularity == 0);

    char path[] = "/tmp/samrt_test_sm_limit_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return check_skip(name, "cannot create a temporary file");
    close(fd);
    float scale = 0.125f;
    CHECK_EQ_INT(ckw_write_safetensors_fn(path, SAMRT_MODEL_SAM2_1_TINY, SAMRT_DTYPE_F32, ckw_pattern_scaled, &scale), 0);

    struct samrt_engine_params p = trk_params(SIDE, 2);
    p.platform = NULL, p.precision = SAMRT_DTYPE_COUNT;  /* the device profile's default */
    static struct run ref, got, got_session;
    samrt_engine_t whole = NULL, part = NULL, session = NULL, other = NULL;
    CHECK_STATUS(samrt_engine_init(path, &p, &whole), SAMRT_OK);
    p.sm_limit = SM_LIMIT;
    CHECK_STATUS(samrt_engine_init(path, &p, &part), SAMRT_OK);
    if (!whole || !part) {
        remove(path);
        return check_report(name);
    }
    CHECK_EQ_INT(samrt_internal_engine_sm_count(whole), 0);
    CHECK_EQ_INT(samrt_internal_engine_sm_count(part), q.granted);

    track_clip(whole, &ref);
    CHECK_STATUS(ref.st, SAMRT_OK);
    track_clip(part, &got);
    check_like("sm_limit engine", &got, &ref);
    track_clip(part, &got);  /* a second video: the captured graphs replay */
    check_like("sm_limit engine, replayed", &got, &ref);

    CHECK_STATUS(samrt_engine_init_session(part, NULL, &session), SAMRT_OK);
    if (session) {
        CHECK_EQ_INT(samrt_internal_engine_sm_count(session), q.granted);
        track_clip(session, &got_session);
        check_like("session", &got_session, &ref);
    }
    struct samrt_engine_params p0 = p;
    p0.sm_limit = 0;
    CHECK_STATUS(samrt_engine_init_session(part, &p0, &other), SAMRT_E_INVALID_ARG);

    const int span_part = smid_span(part, q.device_sms), span_whole = smid_span(whole, q.device_sms);
    printf("%s: a probe kernel reached %d SMs on the engine's stream, %d on the whole GPU's\n", name, span_part,
           span_whole);
    CHECK_MSG(span_part > 0 && span_part <= q.granted, "%d SMs seen in a share of %d", span_part, q.granted);
    if (q.device_sms > q.granted) CHECK_MSG(span_whole > q.granted, "the probe reached only %d SMs", span_whole);
    if (session) {
        const int span_session = smid_span(session, q.device_sms);
        CHECK_MSG(span_session > 0 && span_session <= q.granted, "session: %d SMs seen", span_session);
    }

    samrt_engine_free(session);
    samrt_engine_free(part);
    samrt_engine_free(whole);
    p.sm_limit = q.device_sms + 1;
    samrt_engine_t too_big = NULL;
    CHECK_STATUS(samrt_engine_init(path, &p, &too_big), SAMRT_E_UNSUPPORTED);
    samrt_engine_free(too_big);
    remove(path);
    return check_report(name);
}

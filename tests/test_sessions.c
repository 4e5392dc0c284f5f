/* test_sessions.c - several videos on one copy of the weights (samrt_engine_init_session).
 * A SAM 2.1 tiny checkpoint of small deterministic values (tests/ckpt_writer.h) at a 64-px
 * model side; a standalone engine tracks a synthetic clip (object 1 clicked on frame 0,
 * object 2 boxed on frame 2) as the reference. Then a model engine and sessions of it:
 *   - a session's memory report: no weights of its own, the model's as weights_shared_bytes,
 *     arena_bytes + weights_shared_bytes = the model engine's arena;
 *   - the model engine and its sessions track the clip from their own threads at once, and
 *     each gives the reference's masks, scores, areas and boxes bit for bit, with sessions
 *     that differ in max_objects and frame size too;
 *   - the model engine and one session are freed while another session is pushing: it goes
 *     on and still matches the reference (the weights live until their last reader);
 *   - a session that does not match its model (precision, imgsz, platform) is refused with
 *     the field named, and an object beyond a session's max_objects is refused without
 *     disturbing the session.
 * Run: test_sessions [host|gpu]   (host: CPU backend, f32; gpu: the device profile's default
 * precision, 4 threads; exit 77 without a GPU) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ckpt_writer.h"
#include "sam2_track_util.h"

#define W 80
#define H 60
#define SIDE 64
#define N_FRAMES 8
#define MAX_ENGINES 4

struct run {
    uint8_t mask[N_FRAMES][2][H * W];
    float score[N_FRAMES][2];
    int area[N_FRAMES][2], box[N_FRAMES][2][4], n[N_FRAMES];
    enum samrt_status st;
};

static int g_gpu;
static char g_log[2048];

static void keep_log(enum samrt_log_level level, const char *msg, void *user) {
    (void)user;
    if (level == SAMRT_LOG_ERROR) strncat(g_log, msg, sizeof g_log - strlen(g_log) - 2), strcat(g_log, "\n");
}

static struct samrt_engine_params params(int k) {
    struct samrt_engine_params p = trk_params(SIDE, k);
    if (g_gpu) p.platform = NULL, p.precision = SAMRT_DTYPE_COUNT;  /* the device profile's default */
    return p;
}

/* Tracks the clip on e into r (frames built in a buffer of the caller's thread). */
static void track_clip(samrt_engine_t e, struct run *r) {
    static _Thread_local uint8_t rgb[H * W * 3];
    memset(r, 0, sizeof *r);
    for (int f = 0; f < N_FRAMES && r->st == SAMRT_OK; f++) {
        struct samrt_track_result res[2] = {{.mask = r->mask[f][0]}, {.mask = r->mask[f][1]}};
        r->st = trk_two_object_push(e, rgb, W, H, f, res, &r->n[f]);
        for (int k = 0; k < r->n[f]; k++) {
            r->score[f][k] = res[k].object_score;
            r->area[f][k] = res[k].area;
            memcpy(r->box[f][k], res[k].box, sizeof res[k].box);
        }
    }
}

static int same_run(const struct run *a, const struct run *b) {
    return a->st == SAMRT_OK && b->st == SAMRT_OK && memcmp(a->mask, b->mask, sizeof a->mask) == 0 &&
           memcmp(a->score, b->score, sizeof a->score) == 0 && memcmp(a->area, b->area, sizeof a->area) == 0 &&
           memcmp(a->box, b->box, sizeof a->box) == 0 && memcmp(a->n, b->n, sizeof a->n) == 0;
}

struct job {
    samrt_engine_t e;
    struct run *out;
    int passes;
};

static void *job_main(void *arg) {
    struct job *j = arg;
    for (int i = 0; i < j->passes; i++) track_clip(j->e, j->out);
    return NULL;
}

static samrt_engine_t session(samrt_engine_t model, const struct samrt_engine_params *p) {
    samrt_engine_t s = NULL;
    CHECK_STATUS(samrt_engine_init_session(model, p, &s), SAMRT_OK);
    return s;
}

static void test_memory(samrt_engine_t model, samrt_engine_t s) {
    struct samrt_memory_report mm, ms;
    CHECK_STATUS(samrt_engine_memory(model, &mm), SAMRT_OK);
    CHECK_STATUS(samrt_engine_memory(s, &ms), SAMRT_OK);
    CHECK(mm.weights_bytes > 0 && mm.weights_shared_bytes == 0);
    CHECK_EQ_INT(ms.weights_bytes, 0);
    CHECK_EQ_INT(ms.weights_shared_bytes, mm.weights_bytes);
    CHECK_EQ_INT(ms.arena_bytes + ms.weights_shared_bytes, mm.arena_bytes);
    CHECK_EQ_INT(ms.state_bytes, mm.state_bytes);
    printf("model engine arena %.2f MiB (weights %.2f MiB), session arena %.2f MiB\n", mm.arena_bytes / 1048576.0,
           mm.weights_bytes / 1048576.0, ms.arena_bytes / 1048576.0);
}

static void test_refused(samrt_engine_t model) {
    struct samrt_engine_params p = params(2);
    samrt_engine_t s = NULL;
    g_log[0] = 0;
    p.imgsz = SIDE * 2;
    CHECK_STATUS(samrt_engine_init_session(model, &p, &s), SAMRT_E_INVALID_ARG);
    CHECK(s == NULL && strstr(g_log, "imgsz"));
    p = params(2);
    p.precision = SAMRT_DTYPE_BF16;
    if (!g_gpu) {
        g_log[0] = 0;
        CHECK_STATUS(samrt_engine_init_session(model, &p, &s), SAMRT_E_INVALID_ARG);
        CHECK(s == NULL && strstr(g_log, "precision"));
    }
    p = params(2);
    p.platform = g_gpu ? "orin-nano-8gb" : "h100-80gb";
    g_log[0] = 0;
    CHECK(samrt_engine_init_session(model, &p, &s) != SAMRT_OK && s == NULL);
    CHECK_STATUS(samrt_engine_init_session(NULL, NULL, &s), SAMRT_E_INVALID_ARG);
    samrt_engine_t plan = NULL;
    struct samrt_engine_params pp = params(1);
    pp.platform = "h100-80gb";
    CHECK_STATUS(samrt_engine_init_plan_only(SAMRT_MODEL_SAM2_1_TINY, &pp, &plan), SAMRT_OK);
    CHECK_STATUS(samrt_engine_init_session(plan, NULL, &s), SAMRT_E_INVALID_ARG);
    samrt_engine_free(plan);
}

/* More objects than a one-object session plans: refused, the session keeps working. */
static void test_too_many(samrt_engine_t model, const struct run *ref) {
    struct samrt_engine_params p = params(1);
    samrt_engine_t s = session(model, &p);
    if (!s) return;
    struct samrt_object_prompt pr[2];
    trk_two_prompts(pr);
    CHECK_STATUS(samrt_engine_track_begin(s, W, H), SAMRT_OK);
    CHECK_STATUS(samrt_engine_track_prompt(s, 1, &pr[0]), SAMRT_OK);
    g_log[0] = 0;
    CHECK_STATUS(samrt_engine_track_prompt(s, 2, &pr[1]), SAMRT_E_INVALID_ARG);
    CHECK(strstr(g_log, "at most 1") != NULL);
    samrt_engine_free(s);
    (void)ref;
}

int main(int argc, char **argv) {
    g_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    const char *name = g_gpu ? "test_sessions_cuda" : "test_sessions";
    int n_dev = 0;
    if (g_gpu && (samrt_device_count(&n_dev) != SAMRT_OK || n_dev == 0))
        return check_skip(name, samrt_has_cuda() ? "no CUDA device visible" : "a build without CUDA");
    char path[] = "/tmp/samrt_test_sessions_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return check_skip(name, "cannot create a temporary file");
    close(fd);
    float scale = 0.125f;
    CHECK_EQ_INT(ckw_write_safetensors_fn(path, SAMRT_MODEL_SAM2_1_TINY, SAMRT_DTYPE_F32, ckw_pattern_scaled, &scale), 0);
    samrt_log_set(keep_log, NULL, SAMRT_LOG_ERROR);

    static struct run ref, got[MAX_ENGINES], late;
    const struct samrt_engine_params p2 = params(2);
    samrt_engine_t solo = NULL;
    CHECK_STATUS(samrt_engine_init(path, &p2, &solo), SAMRT_OK);
    if (!solo) return check_report(name);
    track_clip(solo, &ref);
    samrt_engine_free(solo);
    CHECK_STATUS(ref.st, SAMRT_OK);
    CHECK_EQ_INT(ref.n[N_FRAMES - 1], 2);

    samrt_engine_t model = NULL;
    CHECK_STATUS(samrt_engine_init(path, &p2, &model), SAMRT_OK);
    if (!model) return check_report(name);
    struct samrt_engine_params small = p2;
    small.max_frame_width = 320, small.max_frame_height = 240;
    samrt_engine_t eng[MAX_ENGINES] = {model, session(model, NULL), session(model, &small), NULL};
    const int n_eng = g_gpu ? 4 : 3;
    if (g_gpu) eng[3] = session(eng[1], NULL);  /* a session of a session reads the same weights */
    for (int i = 1; i < n_eng; i++)
        if (!eng[i]) return check_report(name);
    test_memory(model, eng[1]);

    /* every engine on its own thread, at once */
    pthread_t th[MAX_ENGINES];
    struct job jobs[MAX_ENGINES];
    for (int i = 0; i < n_eng; i++) {
        jobs[i] = (struct job){eng[i], &got[i], g_gpu ? 3 : 1};
        CHECK_EQ_INT(pthread_create(&th[i], NULL, job_main, &jobs[i]), 0);
    }
    for (int i = 0; i < n_eng; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < n_eng; i++) CHECK_MSG(same_run(&got[i], &ref), "engine %d differs from the reference", i);

    /* free the model engine and a session while another session pushes */
    struct job j = {eng[1], &late, 2};
    pthread_t t;
    CHECK_EQ_INT(pthread_create(&t, NULL, job_main, &j), 0);
    test_refused(model);
    test_too_many(model, &ref);
    samrt_engine_free(eng[2]);
    samrt_engine_free(model);
    pthread_join(t, NULL);
    CHECK_MSG(same_run(&late, &ref), "the session after its model engine was freed differs");
    track_clip(eng[1], &late);  /* and once more, alone */
    CHECK_MSG(same_run(&late, &ref), "the last session differs");
    for (int i = 3; i < n_eng; i++) samrt_engine_free(eng[i]);
    samrt_engine_free(eng[1]);
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
    unlink(path);
    return check_report(name);
}

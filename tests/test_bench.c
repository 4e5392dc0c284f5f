/* test_bench.c - `samrt bench` end to end on a synthetic split, driven by a scripted test
 * double of the tracker interface (fake_tracker below; it exists only in this test): option
 * errors and their exit codes, the CSV/JSON/config written from a run, warm-up exclusion,
 * empty (not 0) stage columns, arena columns, shard selection, prompts derived from the
 * frame-0 mask, masks in the layout `samrt eval` reads and J/F equal to the evaluator's,
 * complete files after a failure, and the object sweep (--objects: one tracker per
 * configuration, grid clicks beyond the clip's objects, one row per configuration; files
 * without a sweep carry none of its columns or keys), and its streams (--streams: sessions
 * opened, one thread per stream, the timed passes started together, pushes counted, the
 * pooled row; a tracker without sessions refused). Expected values are recomputed here with
 * naive loops; tests/test_bench_sweep.c runs the sweep with the real tracker.
 *
 * Run: ctest --preset cpu -R test_bench */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>

#include "bench.h"
#include "csv.h"
#include "eval.h"
#include "profile.h"
#include "sav.h"
#include "synth.h"
#include "tool_test.h"

#define N_VIDEOS 4
#define N_FRAMES 9     /* annotated 0, 4, 8: frame 4 is scored */
#define N_OBJECTS 2
#define VW 64
#define VH 48
#define FAKE_ARENA_MIB 12
#define FAKE_WEIGHTS_MIB 8
#define FAKE_SESSION_MIB 4  /* a session's arena: the model's without the weights */
#define MAX_FAKE_SESSIONS 8

/* ---- the scripted test double ----------------------------------------------------------- */

/* Returns each object's frame-0 prompt mask on every frame (a box prompt: the box filled),
 * reports preprocess 1.0 ms and image encoder 2.5 ms on every frame, memory encoder 4.0 ms on
 * frames after the first, and nothing else; fails push number fail_at (1-based) when set.
 * g_fake is the model's tracker; its sessions (--streams) are g_sess[], each push of theirs
 * 1 ms slower, so that a stream that did not wait for the others would be seen. */
struct fake_tracker {
    int w, h, frame, n_obj;
    int ids[16];
    uint8_t masks[16][VW * VH];
    struct samrt_prompt last_prompt;
    int opens, begins, prompts, pushes, fail_at, max_objects;
    int session, closes;
    pthread_t thread;              /* of the last push */
    int threads;                   /* times the pushing thread changed, the first push included */
    int cfg_begins;                /* begins since the configuration's model was opened */
    atomic_int cfg_pushes;         /* pushes since then, read by the other streams' threads */
};
static struct fake_tracker g_fake, g_sess[MAX_FAKE_SESSIONS];
static int g_n_sess, g_sess_first;  /* sessions opened; the first of the current configuration */
/* --streams: with g_gate_warm warm-up passes, each tracker's first timed begin checks that
 * every stream of the configuration finished its warm-up (the start gate) */
static int g_gate_warm;
static atomic_int g_gate_checked, g_gate_bad;

static void gate_check(struct fake_tracker *f) {
    if (!g_gate_warm || ++f->cfg_begins != g_gate_warm + 1) return;
    atomic_fetch_add(&g_gate_checked, 1);
    int ok = atomic_load(&g_fake.cfg_pushes) >= g_gate_warm * N_FRAMES;
    for (int i = g_sess_first; i < g_n_sess; i++) ok &= atomic_load(&g_sess[i].cfg_pushes) >= g_gate_warm * N_FRAMES;
    if (!ok) atomic_fetch_add(&g_gate_bad, 1);
}

static enum samrt_status fake_begin(void *self, int w, int h) {
    struct fake_tracker *f = self;
    if (w != VW || h != VH) return SAMRT_E_INVALID_ARG;  /* no CHECK: streams call from their threads */
    f->w = w, f->h = h, f->frame = 0, f->n_obj = 0;
    f->begins++;
    gate_check(f);
    return SAMRT_OK;
}

static enum samrt_status fake_prompt(void *self, int obj_id, const struct samrt_prompt *p) {
    struct fake_tracker *f = self;
    if (f->n_obj == 16) return SAMRT_E_INVALID_ARG;
    uint8_t *m = f->masks[f->n_obj];
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++)
            m[y * f->w + x] = p->kind == SAMRT_PROMPT_MASK ? p->mask[y * f->w + x] != 0
                              : p->has_box ? x >= p->box[0] && x <= p->box[2] && y >= p->box[1] && y <= p->box[3]
                                           : x == (int)p->points[0].x && y == (int)p->points[0].y;
    f->ids[f->n_obj++] = obj_id;
    f->last_prompt = *p;
    f->prompts++;
    return SAMRT_OK;
}

static enum samrt_status fake_push(void *self, const struct samrt_image *img, int on_device,
                                   struct samrt_track_result *res, int max, int *n, struct samrt_stage_times *t) {
    struct fake_tracker *f = self;
    if (on_device) return SAMRT_E_INVALID_ARG; /* host frames unless --gpu-decode */
    if (!f->pushes || !pthread_equal(f->thread, pthread_self())) f->threads++;
    f->thread = pthread_self();
    if (f->session) usleep(1000);
    atomic_fetch_add(&f->cfg_pushes, 1);
    if (++f->pushes == f->fail_at) return SAMRT_E_CUDA;
    if (img->width != f->w || img->height != f->h || !img->rgb) return SAMRT_E_INVALID_ARG;
    if (f->n_obj > max) return SAMRT_E_INVALID_ARG;
    for (int k = 0; k < f->n_obj; k++) {
        res[k].obj_id = f->ids[k];
        memcpy(res[k].mask, f->masks[k], (size_t)f->w * f->h);
    }
    *n = f->n_obj;
    *t = (struct samrt_stage_times){1.0f, -1, 2.5f, -1, -1, f->frame ? 4.0f : -1, -1, -1};
    f->frame++;
    return SAMRT_OK;
}

static enum samrt_status fake_memory(void *self, struct samrt_memory_report *m) {
    const struct fake_tracker *f = self;
    memset(m, 0, sizeof *m);
    m->weights_bytes = f->session ? 0 : FAKE_WEIGHTS_MIB << 20;
    m->weights_shared_bytes = f->session ? FAKE_WEIGHTS_MIB << 20 : 0;
    m->state_bytes = m->workspace_bytes = m->staging_bytes = m->scratch_bytes = 1 << 20;
    m->arena_bytes = (uint64_t)(f->session ? FAKE_SESSION_MIB : FAKE_ARENA_MIB) << 20;
    m->mem_kind = SAMRT_MEM_DEVICE;
    return SAMRT_OK;
}

static void fake_close(void *self) { ((struct fake_tracker *)self)->closes++; }

static enum samrt_status fake_session(void *self, struct samrt_tracker *out);

static const struct samrt_tracker_ops g_fake_ops = {fake_begin,  fake_prompt, fake_push,  NULL,
                                                    fake_memory, NULL,        fake_close, fake_session};
/* a tracker that cannot open sessions */
static const struct samrt_tracker_ops g_fake_ops_alone = {fake_begin,  fake_prompt, fake_push,  NULL,
                                                          fake_memory, NULL,        fake_close, NULL};

/* Sessions are opened on the calling thread, before any stream starts. */
static enum samrt_status fake_session(void *self, struct samrt_tracker *out) {
    CHECK(self == &g_fake);
    if (g_n_sess == MAX_FAKE_SESSIONS) return SAMRT_E_HOST_MEMORY;
    struct fake_tracker *f = &g_sess[g_n_sess++];
    memset(f, 0, sizeof *f);
    atomic_init(&f->cfg_pushes, 0);
    f->session = 1, f->max_objects = g_fake.max_objects;
    out->ops = &g_fake_ops;
    out->self = f;
    return SAMRT_OK;
}

static enum samrt_status fake_available(enum samrt_model_id m, const char **why) {
    *why = "only SAM 2.1 in the test double";
    return m >= SAMRT_MODEL_SAM2_1_TINY && m <= SAMRT_MODEL_SAM2_1_LARGE ? SAMRT_OK : SAMRT_E_NOT_IMPLEMENTED;
}

static enum samrt_status fake_open(const struct samrt_tracker_config *cfg, struct samrt_tracker *out) {
    g_fake.opens++;
    g_fake.max_objects = cfg->max_objects;
    g_fake.cfg_begins = 0;
    atomic_store(&g_fake.cfg_pushes, 0);
    g_sess_first = g_n_sess;
    out->ops = &g_fake_ops;
    out->self = &g_fake;
    return SAMRT_OK;
}

static enum samrt_status fake_open_alone(const struct samrt_tracker_config *cfg, struct samrt_tracker *out) {
    SAMRT_TRY(fake_open(cfg, out));
    out->ops = &g_fake_ops_alone;
    return SAMRT_OK;
}

static const struct samrt_tracker_backend g_fake_backend = {fake_available, fake_open};
static const struct samrt_tracker_backend g_fake_backend_alone = {fake_available, fake_open_alone};

static int bench_fake(int argc, char **argv) { return samrt_bench_main(argc, argv, &g_fake_backend); }
static int bench_fake_alone(int argc, char **argv) { return samrt_bench_main(argc, argv, &g_fake_backend_alone); }
static int bench_real(int argc, char **argv) { return samrt_bench_main(argc, argv, samrt_tracker_backend()); }

static void fake_reset(int fail_at) {
    memset(&g_fake, 0, sizeof g_fake);
    atomic_init(&g_fake.cfg_pushes, 0);
    g_fake.fail_at = fail_at;
    g_n_sess = g_sess_first = 0;
}

/* ---- helpers -------------------------------------------------------------------------------- */

static char g_split[512], g_weights[512];

static int make_inputs(void) {
    struct samrt_synth_params p = samrt_synth_default_params();
    p.n_videos = N_VIDEOS, p.n_frames = N_FRAMES, p.n_objects = N_OBJECTS, p.width = VW, p.height = VH;
    snprintf(g_split, sizeof g_split, "%s", tt_path("split"));
    snprintf(g_weights, sizeof g_weights, "%s", tt_path("weights"));
    if (samrt_synth_write(g_split, &p, 0) != SAMRT_OK || mkdir(g_weights, 0777) != 0) return -1;
    char path[600];
    snprintf(path, sizeof path, "%s/sam2.1_hiera_tiny.pt", g_weights);
    if (tt_write(path, "")) return -1;
    snprintf(path, sizeof path, "%s/sam2.1_hiera_small.pt", g_weights);
    return tt_write(path, "");
}

static int load_mask(const char *path, uint8_t *m) {
    struct samrt_mask_reader r = {0};
    uint8_t *buf = NULL;
    size_t cap = 0;
    int w = 0, h = 0;
    const enum samrt_status st = samrt_mask_load(&r, path, &buf, &cap, &w, &h, NULL);
    if (st == SAMRT_OK && w == VW && h == VH) memcpy(m, buf, VW * VH);
    free(buf);
    samrt_mask_reader_free(&r);
    return st == SAMRT_OK && w == VW && h == VH ? 0 : -1;
}

static const char *cell(const struct samrt_csv *t, size_t row, const char *col) {
    return samrt_csv_cell(t, row, samrt_csv_col(t, col));
}

static double num(const struct samrt_csv *t, size_t row, const char *col) { return atof(cell(t, row, col)); }

/* The profile_summary.csv of run folder out, which must hold n_rows rows. */
static void read_summary(const char *out, struct samrt_csv *t, int n_rows) {
    char err[256], path[600];
    snprintf(path, sizeof path, "%s/profile_summary.csv", out);
    CHECK_STATUS(samrt_csv_read_table(path, t, err, sizeof err), SAMRT_OK);
    CHECK_EQ_INT((int)t->n_rows - 1, n_rows);
}

/* Rows of the CSV whose column col equals value. */
static int count_rows(const struct samrt_csv *t, const char *col, const char *value) {
    int n = 0;
    for (size_t r = 1; r < t->n_rows; r++) n += !strcmp(cell(t, r, col), value);
    return n;
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void test_options(void) {
    const char *cap = tt_path("opt.txt");
    char *s;
    /* unknown model: usage error naming it */
    CHECK_EQ_INT(TT_RUN(cap, bench_fake, "bench", "--split_dir", g_split, "--out_dir", tt_path("o"), "--models",
                        "sam2.1_tiny_points,sam3_points"), SAMRT_EXIT_USAGE);
    s = tt_read(cap);
    CHECK(s && strstr(s, "unknown model 'sam3_points'"));
    free(s);
    /* SAM 2.0 names: not in this build (the real table), exit 4 */
    CHECK_EQ_INT(TT_RUN(cap, bench_real, "bench", "--split_dir", g_split, "--out_dir", tt_path("o"), "--models",
                        "sam2_base"), SAMRT_EXIT_UNAVAILABLE);
    s = tt_read(cap);
    CHECK(s && strstr(s, "SAM 2.0") && strstr(s, "not in this build"));
    free(s);
#ifdef SAMRT_BENCH_TRACKING
    /* EdgeTAM tracks like SAM 2.1: here its checkpoint is missing */
    CHECK_EQ_INT(TT_RUN(cap, bench_real, "bench", "--split_dir", g_split, "--out_dir", tt_path("o"), "--weights_dir",
                        tt_path("no_weights"), "--models", "edgetam_points"), SAMRT_EXIT_USAGE);
    s = tt_read(cap);
    CHECK(s && strstr(s, "edgetam.pt not found"));
    free(s);
#endif
    /* SAM 2.1 with the real backend: tracking present, or a clear "not in this build" */
    const int rc = TT_RUN(cap, bench_real, "bench", "--split_dir", g_split, "--out_dir", tt_path("o_real"),
                          "--weights_dir", tt_path("no_weights"), "--models", "sam2.1_tiny_mask");
    s = tt_read(cap);
#ifdef SAMRT_BENCH_TRACKING
    CHECK_EQ_INT(rc, SAMRT_EXIT_USAGE);  /* the checkpoint is missing */
    CHECK(s && strstr(s, "sam2.1_hiera_tiny.pt not found"));
#else
    CHECK_EQ_INT(rc, SAMRT_EXIT_UNAVAILABLE);
    CHECK(s && strstr(s, "video tracking is not in this build"));
#endif
    free(s);
    /* bad shard, bad numbers, missing options, duplicate models, unknown platform */
    CHECK_EQ_INT(TT_RUN(cap, bench_fake, "bench", "--split_dir", g_split, "--out_dir", tt_path("o"), "--models",
                        "sam2.1_tiny", "--shard", "2/2"), SAMRT_EXIT_USAGE);
    CHECK_EQ_INT(TT_RUN(cap, bench_fake, "bench", "--split_dir", g_split, "--out_dir", tt_path("o"), "--models",
                        "sam2.1_tiny", "--shard", "1-2"), SAMRT_EXIT_USAGE);
    CHECK_EQ_INT(TT_RUN(cap, bench_fake, "bench", "--split_dir", g_split, "--out_dir", tt_path("o"), "--models",
                        "sam2.1_tiny", "--runs", "0"), SAMRT_EXIT_USAGE);
    CHECK_EQ_INT(TT_RUN(cap, bench_fake, "bench", "--split_dir", g_split, "--models", "sam2.1_tiny"), SAMRT_EXIT_USAGE);
    CHECK_EQ_INT(TT_RUN(cap, bench_fake, "bench", "--split_dir", g_split, "--out_dir", tt_path("o"), "--models",
                        "sam2.1_tiny_box,sam2.1_tiny_bbox"), SAMRT_EXIT_USAGE);
    s = tt_read(cap);
    CHECK(s && strstr(s, "sam2.1_tiny_bbox twice"));
    free(s);
    CHECK_EQ_INT(TT_RUN(cap, bench_fake, "bench", "--split_dir", g_split, "--out_dir", tt_path("o"), "--models",
                        "sam2.1_tiny", "--platform", "pdp11"), SAMRT_EXIT_USAGE);
    CHECK_EQ_INT(TT_RUN(cap, bench_fake, "bench", "--split_dir", g_split, "--out_dir", tt_path("o"), "--models",
                        "sam2.1_tiny", "--precision", "fp8"), SAMRT_EXIT_USAGE);
    CHECK_EQ_INT(TT_RUN(cap, bench_fake, "bench", "--split_dir", g_split, "--out_dir", tt_path("o"), "--models",
                        "sam2.1_tiny", "--objects", "1,x"), SAMRT_EXIT_USAGE);
    s = tt_read(cap);
    CHECK(s && strstr(s, "--objects '1,x': 'x' is not a whole number in [1, 256]"));
    free(s);
    /* a missing checkpoint fails before anything runs */
    fake_reset(0);
    CHECK_EQ_INT(TT_RUN(cap, bench_fake, "bench", "--split_dir", g_split, "--out_dir", tt_path("o"), "--models",
                        "sam2.1_large_mask", "--weights_dir", g_weights), SAMRT_EXIT_USAGE);
    CHECK_EQ_INT(g_fake.opens, 0);
    s = tt_read(cap);
    CHECK(s && strstr(s, "sam2.1_hiera_large.pt not found"));
    free(s);
    /* nothing of the refused runs was written */
    CHECK(access(tt_path("o/profile_summary.csv"), F_OK) != 0);

    /* model names: canonical tags, prompt suffixes, aliases */
    struct samrt_bench_model m;
    CHECK_STATUS(samrt_bench_parse_model("sam2.1_base_plus", &m), SAMRT_OK);
    CHECK(!strcmp(m.tag, "sam2.1_base_plus_mask") && m.prompt == SAMRT_PROMPT_MASK);
    CHECK_STATUS(samrt_bench_parse_model("sam2.1_base_box", &m), SAMRT_OK);
    CHECK(!strcmp(m.tag, "sam2.1_base_plus_bbox") && m.model == SAMRT_MODEL_SAM2_1_BASE_PLUS);
    CHECK_STATUS(samrt_bench_parse_model("sam2.1_tiny_points", &m), SAMRT_OK);
    CHECK(m.prompt == SAMRT_PROMPT_POINTS && m.model == SAMRT_MODEL_SAM2_1_TINY);
    CHECK_STATUS(samrt_bench_parse_model("sam2.1_tiny_clicks", &m), SAMRT_E_INVALID_ARG);
    CHECK(!strcmp(samrt_model_checkpoint_name(SAMRT_MODEL_SAM2_1_BASE_PLUS), "sam2.1_hiera_base_plus.pt"));
}

/* Naive IoU x 100 of two masks. */
static double iou100(const uint8_t *a, const uint8_t *b) {
    long i = 0, u = 0;
    for (int p = 0; p < VW * VH; p++) i += a[p] && b[p], u += a[p] || b[p];
    return u ? 100.0 * (double)i / (double)u : 100.0;
}

static void test_run(void) {
    const char *cap = tt_path("run.txt"), *out = tt_path("run");
    fake_reset(0);
    const int rc = TT_RUN(cap, bench_fake, "bench", "--split_dir", g_split, "--out_dir", out, "--weights_dir",
                          g_weights, "--models", "sam2.1_tiny_mask,sam2.1_small_bbox", "--warmup", "2", "--runs",
                          "3", "--nsight_report", "rep/x.nsys-rep", "--precision", "fp16");
    CHECK_EQ_INT(rc, SAMRT_EXIT_OK);
    /* 2 models x 4 videos x (2 + 3) passes, all objects of a video in one pass */
    CHECK_EQ_INT(g_fake.opens, 2);
    CHECK_EQ_INT(g_fake.max_objects, N_OBJECTS);
    CHECK_EQ_INT(g_fake.begins, 2 * N_VIDEOS * 5);
    CHECK_EQ_INT(g_fake.pushes, 2 * N_VIDEOS * 5 * N_FRAMES);
    /* the last prompt was the small model's box of the last video's last object: its tight box */
    uint8_t gt0[VW * VH], gt4[VW * VH], pred[VW * VH];
    char path[700];
    snprintf(path, sizeof path, "%s/Annotations_6fps/synth_003/001/00000.png", g_split);
    CHECK(load_mask(path, gt0) == 0);
    int x0 = VW, y0 = VH, x1 = -1, y1 = -1;
    for (int y = 0; y < VH; y++)
        for (int x = 0; x < VW; x++)
            if (gt0[y * VW + x]) x0 = x < x0 ? x : x0, y0 = y < y0 ? y : y0, x1 = x > x1 ? x : x1, y1 = y > y1 ? y : y1;
    CHECK(g_fake.last_prompt.kind == SAMRT_PROMPT_BOX && g_fake.last_prompt.has_box);
    CHECK(g_fake.last_prompt.box[0] == x0 && g_fake.last_prompt.box[1] == y0 && g_fake.last_prompt.box[2] == x1 &&
          g_fake.last_prompt.box[3] == y1);

    struct samrt_csv t;
    char err[256];
    snprintf(path, sizeof path, "%s/profile_summary.csv", out);
    CHECK_STATUS(samrt_csv_read_table(path, &t, err, sizeof err), SAMRT_OK);
    /* warm-up rows excluded: 2 models x 4 videos x 2 objects x 3 runs */
    CHECK_EQ_INT((int)t.n_rows - 1, 2 * N_VIDEOS * N_OBJECTS * 3);
    size_t n_cols;
    samrt_profile_columns(&n_cols);  /* no sweep: none of its columns */
    CHECK_EQ_INT((int)t.n_fields[0], (int)n_cols);
    CHECK(samrt_csv_col(&t, "objects") < 0 && samrt_csv_col(&t, "config") < 0);
    CHECK_EQ_INT(count_rows(&t, "run", "0"), 2 * N_VIDEOS * N_OBJECTS);
    CHECK_EQ_INT(count_rows(&t, "run", "2"), 2 * N_VIDEOS * N_OBJECTS);
    CHECK_EQ_INT(count_rows(&t, "run", "3"), 0);
    CHECK_EQ_INT(count_rows(&t, "run", ""), 0);
    CHECK_EQ_INT(count_rows(&t, "model", "sam2.1_tiny_mask"), N_VIDEOS * N_OBJECTS * 3);
    CHECK_EQ_INT(count_rows(&t, "model", "sam2.1_small_bbox"), N_VIDEOS * N_OBJECTS * 3);
    CHECK_EQ_INT(count_rows(&t, "video", "synth_002"), 2 * N_OBJECTS * 3);
    CHECK_EQ_INT(count_rows(&t, "object", "001"), 2 * N_VIDEOS * 3);
    CHECK_EQ_INT(count_rows(&t, "nsight_report", "rep/x.nsys-rep"), (int)t.n_rows - 1);
    CHECK_EQ_INT(count_rows(&t, "precision", "fp16"), (int)t.n_rows - 1);
    for (size_t r = 1; r < t.n_rows; r++) {
        CHECK(num(&t, r, "frames") == N_FRAMES && num(&t, r, "fps") > 0 && *cell(&t, r, "latency_ms"));
        CHECK(num(&t, r, "H") == VH && num(&t, r, "W") == VW && num(&t, r, "imgsz") == 1024 &&
              num(&t, r, "infer_H") == 1024 && num(&t, r, "infer_W") == 1024);
        CHECK(num(&t, r, "setup_ms") > 0 && *cell(&t, r, "timestamp") && *cell(&t, r, "hostname"));
        CHECK(*cell(&t, r, "latency_p95_ms") && num(&t, r, "latency_p95_ms") >= num(&t, r, "latency_p50_ms"));
        /* stages the tracker reports; the others empty, never 0 */
        CHECK(!strcmp(cell(&t, r, "preprocess_ms"), "1.0000") && !strcmp(cell(&t, r, "image_encoder_ms"), "2.5000"));
        CHECK(fabs(num(&t, r, "memory_encoder_ms") - 4.0 * (N_FRAMES - 1) / N_FRAMES) < 1e-4);
        static const char *empty[] = {"h2d_ms", "memory_attention_ms", "prompt_and_mask_decoder_ms", "postprocess_ms",
                                      "d2h_ms"};
        for (size_t i = 0; i < SAMRT_ARRAY_LEN(empty); i++) CHECK_MSG(!*cell(&t, r, empty[i]), "%s", empty[i]);
        /* JPEG decode: timed on the streamer's thread, a positive host time per frame */
        CHECK(*cell(&t, r, "decode_ms") && num(&t, r, "decode_ms") > 0);
        CHECK(*cell(&t, r, "gpu_busy_fraction"));
        CHECK(!strcmp(cell(&t, r, "sm_limit"), "0"));  /* no --sm-limit: the whole GPU */
        /* arena columns from the tracker's memory report */
        CHECK(!strcmp(cell(&t, r, "gpu_peak_alloc_MiB"), "12.000"));
        CHECK(!strcmp(cell(&t, r, "arena_weights_MiB"), "8.000"));
        CHECK(!strcmp(cell(&t, r, "arena_scratch_MiB"), "1.000"));
        CHECK(num(&t, r, "cpu_peak_rss_MiB") > 0);
    }
    /* J of the mask-prompted model (the frame-0 mask on every frame) on synth_001/000: only
     * frame 4 is scored, so J is its IoU with the frame-0 mask */
    snprintf(path, sizeof path, "%s/Annotations_6fps/synth_001/000/00000.png", g_split);
    CHECK(load_mask(path, gt0) == 0);
    snprintf(path, sizeof path, "%s/Annotations_6fps/synth_001/000/00004.png", g_split);
    CHECK(load_mask(path, gt4) == 0);
    snprintf(path, sizeof path, "%s/sam2.1_tiny_mask/synth_001/000/00004.png", out);
    CHECK(load_mask(path, pred) == 0);
    CHECK(memcmp(pred, gt0, sizeof pred) == 0);
    size_t row = 0;
    for (size_t r = 1; r < t.n_rows && !row; r++)
        if (!strcmp(cell(&t, r, "model"), "sam2.1_tiny_mask") && !strcmp(cell(&t, r, "video"), "synth_001") &&
            !strcmp(cell(&t, r, "object"), "000"))
            row = r;
    CHECK(row && fabs(num(&t, row, "J") - iou100(gt0, gt4)) < 5e-4);
    CHECK(row && fabs(num(&t, row, "J&F") - (num(&t, row, "J") + num(&t, row, "F")) / 2) < 1e-3);
    /* every annotated frame was written (and only those), and the evaluator agrees per object */
    snprintf(path, sizeof path, "%s/sam2.1_tiny_mask/synth_001/000/00001.png", out);
    CHECK(access(path, F_OK) != 0);
    char pred_root[600];
    snprintf(pred_root, sizeof pred_root, "%s/sam2.1_small_bbox", out);
    struct samrt_eval_opts eo = samrt_eval_default_opts();
    eo.gt_root = g_split, eo.pred_root = pred_root, eo.strict = 1, eo.n_threads = 1;
    struct samrt_eval_result er;
    CHECK_STATUS(samrt_eval_run(&eo, &er), SAMRT_OK);
    CHECK_EQ_INT(er.n_rows, N_VIDEOS * N_OBJECTS);
    for (int i = 0; i < er.n_rows; i++) {
        int seen = 0;
        for (size_t r = 1; r < t.n_rows; r++)
            if (!strcmp(cell(&t, r, "model"), "sam2.1_small_bbox") &&
                !strcmp(cell(&t, r, "video"), er.videos[er.rows[i].video]) &&
                !strcmp(cell(&t, r, "object"), er.rows[i].obj)) {
                seen++;
                CHECK(fabs(num(&t, r, "J") - er.rows[i].j) < 5e-4 && fabs(num(&t, r, "F") - er.rows[i].f) < 5e-4);
            }
        CHECK_EQ_INT(seen, 3);
    }
    samrt_eval_result_free(&er);
    samrt_csv_free(&t);

    /* the JSON: one key per model with n = the timed rows; the config: resolved options */
    snprintf(path, sizeof path, "%s/profile_stats.json", out);
    char *js = tt_read(path);
    CHECK(js && strstr(js, "\"sam2.1_tiny_mask\"") && strstr(js, "\"sam2.1_small_bbox\""));
    CHECK(js && strstr(js, "\"fps\": {\"n\": 24,") && !strstr(js, "\"h2d_ms\"") && !strstr(js, "\"sweep\""));
    free(js);
    snprintf(path, sizeof path, "%s/experiment_config.txt", out);
    char *cfg = tt_read(path);
    CHECK(cfg && strstr(cfg, "\nmodels=sam2.1_tiny_mask,sam2.1_small_bbox\n") && strstr(cfg, "\nwarmup=2\n") &&
          strstr(cfg, "\nruns=3\n") && strstr(cfg, "\nstatus=ok\n") && strstr(cfg, "\nprecision=fp16\n") &&
          !strstr(cfg, "\nobjects="));
    free(cfg);
}

static void test_shard_per_obj(void) {
    const char *cap = tt_path("shard.txt"), *out = tt_path("shard");
    fake_reset(0);
    CHECK_EQ_INT(TT_RUN(cap, bench_fake, "bench", "--split_dir", g_split, "--out_dir", out, "--weights_dir", g_weights,
                        "--models", "sam2.1_tiny_points", "--shard", "1/2", "--per_obj", "--warmup", "1",
                        "--warmup_frames", "2", "--save_masks", "none"),
                 SAMRT_EXIT_OK);
    CHECK_EQ_INT(g_fake.max_objects, 1);
    /* 2 videos x 2 objects, each one warm-up pass of 2 frames and one timed pass */
    CHECK_EQ_INT(g_fake.begins, 2 * N_OBJECTS * 2);
    CHECK_EQ_INT(g_fake.pushes, 2 * N_OBJECTS * (2 + N_FRAMES));
    CHECK(g_fake.last_prompt.kind == SAMRT_PROMPT_POINTS && g_fake.last_prompt.n_points == 1);
    struct samrt_csv t;
    char err[256], path[600];
    snprintf(path, sizeof path, "%s/profile_summary.csv", out);
    CHECK_STATUS(samrt_csv_read_table(path, &t, err, sizeof err), SAMRT_OK);
    CHECK_EQ_INT((int)t.n_rows - 1, 2 * N_OBJECTS);
    CHECK_EQ_INT(count_rows(&t, "video", "synth_001"), N_OBJECTS);
    CHECK_EQ_INT(count_rows(&t, "video", "synth_003"), N_OBJECTS);
    for (size_t r = 1; r < t.n_rows; r++) CHECK(*cell(&t, r, "J") && num(&t, r, "frames") == N_FRAMES);
    samrt_csv_free(&t);
    snprintf(path, sizeof path, "%s/sam2.1_tiny_points", out);
    CHECK(access(path, F_OK) != 0);  /* --save_masks none */
}

/* --objects 1,3 on one video of 2 objects: a tracker per configuration, the third object a
 * grid click, one row per configuration pooling the timed runs. */
static void test_sweep(void) {
    const char *cap = tt_path("sweep.txt"), *out = tt_path("sweep");
    fake_reset(0);
    CHECK_EQ_INT(TT_RUN(cap, bench_fake, "bench", "--split_dir", g_split, "--out_dir", out, "--weights_dir", g_weights,
                        "--models", "sam2.1_tiny_mask", "--objects", "1,3", "--limit_videos", "1", "--warmup", "1",
                        "--runs", "2"),
                 SAMRT_EXIT_OK);
    CHECK_EQ_INT(g_fake.opens, 2);
    CHECK_EQ_INT(g_fake.max_objects, 3);
    CHECK_EQ_INT(g_fake.begins, 2 * 3);
    CHECK_EQ_INT(g_fake.pushes, 2 * 3 * N_FRAMES);
    CHECK_EQ_INT(g_fake.prompts, 3 * 1 + 3 * 3);
    CHECK_EQ_INT(g_fake.n_obj, 3);
    CHECK(g_fake.ids[2] > g_fake.ids[1] && g_fake.ids[1] > g_fake.ids[0]);
    /* one extra object: the grid's one cell, its centre */
    CHECK(g_fake.last_prompt.kind == SAMRT_PROMPT_POINTS && g_fake.last_prompt.n_points == 1);
    CHECK(g_fake.last_prompt.points[0].x == VW / 2 && g_fake.last_prompt.points[0].y == VH / 2);
    struct samrt_csv t;
    char path[600];
    read_summary(out, &t, 2);
    for (size_t r = 1; r < t.n_rows && t.n_rows == 3; r++) {
        const double k = r == 1 ? 1 : 3;
        CHECK(!strcmp(cell(&t, r, "config"), r == 1 ? "objects=1" : "objects=3") && num(&t, r, "objects") == k);
        CHECK(num(&t, r, "grid_objects") == (r == 1 ? 0 : 1) && num(&t, r, "frames") == 2 * N_FRAMES);
        CHECK(!*cell(&t, r, "object") && !*cell(&t, r, "run") && !*cell(&t, r, "J"));
        CHECK(num(&t, r, "ms_per_frame_p50") <= num(&t, r, "ms_per_frame_p95") &&
              num(&t, r, "ms_per_frame_p95") <= num(&t, r, "ms_per_frame_p99") && *cell(&t, r, "ms_per_frame_p50"));
        CHECK(fabs(num(&t, r, "object_frames_per_s") - k * num(&t, r, "fps")) <= 2e-3 + 1e-6 * k * num(&t, r, "fps"));
        /* stages of 7.5 ms per frame against pushes of microseconds: clamped to 1 */
        CHECK(!strcmp(cell(&t, r, "frame_gpu_busy"), "1.0000") && !strcmp(cell(&t, r, "preprocess_ms"), "1.0000"));
        CHECK(num(&t, r, "arena_bytes") == (double)(FAKE_ARENA_MIB << 20) && num(&t, r, "state_bytes") == 1 << 20);
    }
    samrt_csv_free(&t);
    snprintf(path, sizeof path, "%s/profile_stats.json", out);
    char *js = tt_read(path);
    CHECK(js && strstr(js, "\"sam2.1_tiny_mask\": {") && tt_count(js, "{\"model\": \"sam2.1_tiny_mask\", ") == 2);
    CHECK(js && strstr(js, "\"config\": \"objects=3\", \"objects\": 3, \"grid_objects\": 1, "));
    free(js);
    snprintf(path, sizeof path, "%s/sam2.1_tiny_mask", out);
    CHECK(access(path, F_OK) != 0);  /* no masks in a sweep */
}

/* --objects 2 --streams 1,3 on one video: per configuration the model's tracker and K-1
 * sessions, stream 0 on the calling thread and each session on a thread of its own, the timed
 * passes started only when every stream finished its warm-up, and one row per configuration
 * pooling every stream's timed frames. */
static void test_streams(void) {
    const char *cap = tt_path("streams.txt"), *out = tt_path("streams");
    fake_reset(0);
    atomic_store(&g_gate_checked, 0), atomic_store(&g_gate_bad, 0);
    g_gate_warm = 1;
    const int rc = TT_RUN(cap, bench_fake, "bench", "--split_dir", g_split, "--out_dir", out, "--weights_dir",
                          g_weights, "--models", "sam2.1_tiny_mask", "--objects", "2", "--streams", "1,3",
                          "--limit_videos", "1", "--warmup", "1", "--runs", "2");
    g_gate_warm = 0;
    CHECK_EQ_INT(rc, SAMRT_EXIT_OK);
    CHECK_EQ_INT(g_fake.opens, 2);      /* a model tracker per configuration */
    CHECK_EQ_INT(g_fake.closes, 2);
    CHECK_EQ_INT(g_n_sess, 0 + 2);      /* K - 1 sessions of it */
    /* each tracker: (1 warm-up + 2 timed) passes of N_FRAMES frames, 2 objects prompted */
    CHECK_EQ_INT(g_fake.begins, 2 * 3);
    CHECK_EQ_INT(g_fake.pushes, 2 * 3 * N_FRAMES);
    CHECK(g_fake.threads == 1 && pthread_equal(g_fake.thread, pthread_self()));  /* stream 0: this thread */
    for (int i = 0; i < g_n_sess && i < MAX_FAKE_SESSIONS; i++) {
        const struct fake_tracker *f = &g_sess[i];
        CHECK(f->closes == 1 && f->max_objects == 2 && f->begins == 3 && f->prompts == 3 * 2);
        CHECK_EQ_INT(f->pushes, 3 * N_FRAMES);
        CHECK(f->threads == 1 && !pthread_equal(f->thread, pthread_self()));  /* one thread each */
    }
    CHECK(!pthread_equal(g_sess[0].thread, g_sess[1].thread));
    /* the first timed pass of every tracker of both configurations came after all warm-ups */
    CHECK_EQ_INT(atomic_load(&g_gate_checked), 1 + 3);
    CHECK_EQ_INT(atomic_load(&g_gate_bad), 0);

    struct samrt_csv t;
    char path[600];
    read_summary(out, &t, 2);
    for (size_t r = 1; r < t.n_rows && t.n_rows == 3; r++) {
        const int k = r == 1 ? 1 : 3;
        const double fps = num(&t, r, "fps"), agg = num(&t, r, "aggregate_fps");
        const double lo = num(&t, r, "stream_fps_min"), hi = num(&t, r, "stream_fps_max");
        CHECK(!strcmp(cell(&t, r, "config"), r == 1 ? "objects=2;streams=1" : "objects=2;streams=3"));
        CHECK(num(&t, r, "streams") == k && num(&t, r, "objects") == 2 && num(&t, r, "grid_objects") == 0);
        CHECK(num(&t, r, "frames") == k * 2 * N_FRAMES);  /* every stream's timed frames */
        CHECK_EQ_INT(tt_count(cell(&t, r, "stream_fps"), ";"), k - 1);
        CHECK(lo > 0 && lo <= hi && lo <= fps + 1e-3 && fps <= hi + 1e-3);  /* fps: the streams' mean */
        /* equal frames per stream: the aggregate is K x the slowest stream's rate */
        CHECK_MSG(fabs(agg - k * lo) <= k * 5e-4 + 1e-9 * agg, "aggregate %f, slowest %f", agg, lo);
        CHECK(fabs(num(&t, r, "aggregate_object_frames_per_s") - 2 * agg) <= 2e-3 + 1e-6 * agg);
        CHECK(fabs(num(&t, r, "object_frames_per_s") - 2 * fps) <= 2e-3 + 1e-6 * fps);
        CHECK(num(&t, r, "arena_bytes") == (double)(FAKE_ARENA_MIB << 20));
        const double total = (double)((FAKE_ARENA_MIB + (k - 1) * FAKE_SESSION_MIB) << 20);
        CHECK(num(&t, r, "total_arena_bytes") == total && num(&t, r, "gpu_peak_alloc_MiB") == total / 1048576.0);
        if (k == 1) CHECK(!strcmp(cell(&t, r, "stream_fps"), cell(&t, r, "fps")) && agg == fps && lo == hi);
    }
    samrt_csv_free(&t);
    snprintf(path, sizeof path, "%s/profile_stats.json", out);
    char *js = tt_read(path);
    CHECK(js && strstr(js, "\"config\": \"objects=2;streams=3\", \"objects\": 2, "));
    CHECK(js && strstr(js, "\"streams\": 3, \"stream_fps\": \""));
    free(js);
    snprintf(path, sizeof path, "%s/experiment_config.txt", out);
    char *cfg = tt_read(path);
    CHECK(cfg && strstr(cfg, "\nobjects=2\n") && strstr(cfg, "\nstreams=1,3\n") && strstr(cfg, "\nstatus=ok\n"));
    free(cfg);

    /* a tracker without sessions: 1 stream runs, 2 are refused (exit 4) */
    fake_reset(0);
    CHECK_EQ_INT(TT_RUN(cap, bench_fake_alone, "bench", "--split_dir", g_split, "--out_dir", tt_path("alone"),
                        "--weights_dir", g_weights, "--models", "sam2.1_tiny_mask", "--streams", "1,2",
                        "--limit_videos", "1", "--warmup", "0"),
                 SAMRT_EXIT_UNAVAILABLE);
    char *s = tt_read(cap);
    CHECK(s && strstr(s, "cannot share its weights with sessions (--streams)"));
    free(s);
    CHECK(g_fake.opens == 2 && g_fake.closes == 2 && g_fake.max_objects == 1 && g_n_sess == 0);
    CHECK_EQ_INT(g_fake.pushes, N_FRAMES);  /* streams=1 ran, with one object */
    /* --streams options */
    CHECK_EQ_INT(TT_RUN(cap, bench_fake, "bench", "--split_dir", g_split, "--out_dir", tt_path("o"), "--models",
                        "sam2.1_tiny", "--streams", "1,17"), SAMRT_EXIT_USAGE);
    s = tt_read(cap);
    CHECK(s && strstr(s, "--streams '1,17': '17' is not a whole number in [1, 16]"));
    free(s);
}

static void test_failure_keeps_complete_files(void) {
    const char *cap = tt_path("fail.txt"), *out = tt_path("fail");
    CHECK(mkdir(out, 0777) == 0);
    char path[600];
    snprintf(path, sizeof path, "%s/profile_summary.csv", out);
    CHECK(tt_write(path, "old,file\n1,2\n") == 0);
    /* no warm-up, one run: video k uses pushes k*9+1 .. k*9+9; fail inside the third video */
    fake_reset(2 * N_FRAMES + 5);
    CHECK_EQ_INT(TT_RUN(cap, bench_fake, "bench", "--split_dir", g_split, "--out_dir", out, "--weights_dir", g_weights,
                        "--models", "sam2.1_tiny_mask", "--warmup", "0"),
                 SAMRT_EXIT_RUNTIME);
    char *s = tt_read(cap);
    CHECK(s && strstr(s, "synth_002 failed") && strstr(s, "kept"));
    free(s);
    struct samrt_csv t;
    char err[256];
    CHECK_STATUS(samrt_csv_read_table(path, &t, err, sizeof err), SAMRT_OK);
    CHECK(samrt_csv_col(&t, "J&F") > 0);
    CHECK_EQ_INT((int)t.n_rows - 1, 2 * N_OBJECTS);  /* the two finished videos, none of the third */
    CHECK_EQ_INT(count_rows(&t, "video", "synth_002"), 0);
    samrt_csv_free(&t);
    snprintf(path, sizeof path, "%s/experiment_config.txt", out);
    char *cfg = tt_read(path);
    CHECK(cfg && strstr(cfg, "\nstatus=") && !strstr(cfg, "\nstatus=ok\n"));
    free(cfg);
}

int main(void) {
    if (tt_begin("test_bench")) return 1;
    if (make_inputs()) {
        fprintf(stderr, "test_bench: cannot write the synthetic split\n");
        return 1;
    }
    test_options();
    test_run();
    test_shard_per_obj();
    test_sweep();
    test_streams();
    test_failure_keeps_complete_files();
    return tt_end("test_bench");
}

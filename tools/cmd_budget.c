/* cmd_budget.c - `samrt budget`: the exact arena plan of a model on a platform profile, with
 * no GPU and no checkpoint. It runs the engine's own planning code
 * (samrt_engine_init_plan_only: weights from the key table, the model's PLAN passes, the
 * profile's fixed workspace caps), so the total is what samrt_engine_init commits on that
 * platform, to the byte. It then says whether the plan fits the profile's pool and how much
 * headroom is left for the CUDA context, library handles and the host side. The plan comes
 * from samrt_internal_budget (runtime/samrt_internal.h). --streams K: K videos tracked at once
 * on one copy of the weights (samrt_engine_init_session): the weights once, the rest K times. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "samrt_internal.h"

static int usage(FILE *f, int code) {
    fprintf(f,
            "usage: samrt budget --model M [--precision fp32|bf16|fp16] [--imgsz N] [--objects K]\n"
            "                    [--frame WxH] [--streams K] [--sm-limit N] [--memory sam2|samurai|dam4sam]\n"
            "                    --platform PROFILE [--json] [--slots]\n\n"
            "Prints the exact arena plan: weights, per-object state, the workspace (one slot that\n"
            "cuBLASLt and cuDNN share: the larger of the profile's caps), I/O staging and peak\n"
            "activations (lifetime-packed scratch), and whether it fits the profile's pool. Runs\n"
            "without a GPU. --frame is the largest video frame the engine must accept (default\n"
            "3840x2160; it sizes the frame and mask staging). --streams K: K videos\n"
            "at once on one copy of the weights (one engine and K-1 sessions of it): the weights\n"
            "once, state, workspace, staging and scratch K times, all within the pool. --sm-limit N:\n"
            "the plan and projected frame of an N-SM share of the profile's GPU (samrt track --sm-limit).\n"
            "--memory P: the tracker's memory-selection policy (its per-object state; samrt track --memory).\n"
            "The frame table: one steady tracked frame's launches, FLOPs, DRAM bytes and projected time.\n"
            "--slots\n"
            "lists every slot. Profiles: ");
    int n = 0;
    const struct samrt_platform_profile *p = samrt_platform_profile_list(&n);
    for (int i = 0; i < n; i++) fprintf(f, "%s%s", p[i].name, i + 1 < n ? ", " : ".\n");
    fprintf(f, "Models with a forward pass in this build: sam2.1_tiny, sam2.1_small, sam2.1_base_plus,\n"
               "sam2.1_large (and the SAM 2.0 sizes, image path only), edgetam.\n"
               "exit: 0 fits, 1 does not fit, 2 bad usage, 4 model not available in this build.\n");
    return code;
}

static double mib(uint64_t b) { return b / 1048576.0; }

/* What the printers need besides the plan. */
struct budget_view {
    enum samrt_model_id model;
    const struct samrt_engine_params *prm;
    const struct samrt_internal_budget *b;
    const struct samrt_memory_report *m;
    uint64_t n_params;
    int fits;
    int64_t headroom;  /* device bytes the arena leaves for context, handles and host side */
    int streams;       /* 0: --streams not given */
    uint64_t total;    /* the arenas of all streams: weights + streams x the rest */
    int has_frame;     /* 1: frame holds a steady tracked frame's planned work */
    struct samrt_internal_frame_cost frame;
};

/* The "frame" object: one steady tracked frame's launches, copies, flops and bytes, whole and
 * per stage (samrt_internal_frame_cost). */
static void print_json_frame(const struct samrt_internal_frame_cost *f) {
    printf(",\"frame\":{\"objects\":%d,\"size\":\"%dx%d\",\"launches\":%" PRId64 ",\"graph_launches\":%" PRId64
           ",\"copies\":%" PRId64
           ",\"flops\":%.0f,\"bytes\":%.0f,\"projected_ms\":%.3f,\"transfers\":%" PRId64
           ",\"transfer_bytes\":%.0f,\"stages\":[",
           f->objects, f->width, f->height, f->total.launches, f->graph_launches, f->total.copies, f->total.flops,
           f->total.bytes, f->total.projected_ms, f->transfers, f->transfer_bytes);
    for (int i = 0; i < SAMRT_INTERNAL_STAGES; i++) {
        const struct samrt_internal_cost *c = &f->stage[i];
        printf("%s{\"stage\":\"%s\",\"launches\":%" PRId64 ",\"copies\":%" PRId64
               ",\"flops\":%.0f,\"bytes\":%.0f,\"projected_ms\":%.3f}",
               i ? "," : "", samrt_internal_stage_name(i), c->launches, c->copies, c->flops, c->bytes, c->projected_ms);
    }
    printf("]}");
}

static void print_table_frame(const struct samrt_internal_frame_cost *f) {
    printf("frame      one steady tracked frame, planned: %d object%s, %dx%d, full memory bank; projected time:\n"
           "           each launch's roofline at the profile's published peaks plus a measured per-launch cost\n",
           f->objects, f->objects > 1 ? "s" : "", f->width, f->height);
    printf("%-28s %10s %8s %12s %12s %12s\n", "stage", "launches", "copies", "GFLOP", "MB", "projected ms");
    for (int i = 0; i <= SAMRT_INTERNAL_STAGES; i++) {
        const struct samrt_internal_cost *c = i < SAMRT_INTERNAL_STAGES ? &f->stage[i] : &f->total;
        printf("%-28s %10" PRId64 " %8" PRId64 " %12.3f %12.2f %12.3f\n",
               i < SAMRT_INTERNAL_STAGES ? samrt_internal_stage_name(i) : "frame", c->launches, c->copies,
               c->flops / 1e9, c->bytes / 1e6, c->projected_ms);
    }
    printf("%-28s %10" PRId64 " %8s %12s %12.2f  (host <-> device, around the frame)\n", "transfers", f->transfers, "",
           "", f->transfer_bytes / 1e6);
}

static void print_json(const struct budget_view *v) {
    const struct samrt_platform_profile *pf = v->b->profile;
    const struct samrt_memory_report *m = v->m;
    printf("{\"model\":\"%s\",\"precision\":\"%s\",\"imgsz\":%d,\"objects\":%d,\"max_frame\":\"%dx%d\",\"platform\":\"%s\","
           "\"mem_kind\":\"%s\",\"params\":%" PRIu64 ",\"regions\":{\"weights\":%" PRIu64 ",\"state\":%" PRIu64
           ",\"workspace\":%" PRIu64 ",\"staging\":%" PRIu64 ",\"scratch\":%" PRIu64 "},\"arena_bytes\":%" PRIu64
           ",\"pool_bytes\":%" PRIu64 ",\"reserve_bytes\":%" PRIu64 ",\"device_bytes\":%" PRIu64
           ",\"headroom_bytes\":%lld,\"fits\":%s",
           samrt_model_name(v->model), samrt_dtype_name(v->b->precision), v->prm->imgsz, v->prm->max_objects,
           v->prm->max_frame_width, v->prm->max_frame_height, pf->name,
           samrt_mem_kind_name(m->mem_kind), v->n_params, m->weights_bytes, m->state_bytes,
           m->workspace_bytes, m->staging_bytes, m->scratch_bytes, m->arena_bytes, pf->pool_bytes,
           pf->reserve_bytes, pf->device_bytes, (long long)v->headroom, v->fits ? "true" : "false");
    if (v->streams)
        printf(",\"streams\":%d,\"session_bytes\":%" PRIu64 ",\"streams_arena_bytes\":%" PRIu64, v->streams,
               m->arena_bytes - m->weights_bytes, v->total);
    if (v->has_frame) print_json_frame(&v->frame);
    if (v->b->frame_slot_bytes)  /* last, after the keys scripts match in order */
        printf(",\"frame_staging\":{\"slot\":%" PRIu64 ",\"rgb8\":%" PRIu64 ",\"nv12\":%" PRIu64 "}",
               v->b->frame_slot_bytes, v->b->frame_rgb8_bytes, v->b->frame_nv12_bytes);
    printf("}\n");
}

static void print_table(const struct budget_view *v, samrt_engine_t e, int slots) {
    const struct samrt_platform_profile *pf = v->b->profile;
    const struct samrt_engine_params *prm = v->prm;
    const struct samrt_memory_report *m = v->m;
    printf("model      %s (%" PRIu64 " parameters), %s, input %dx%d, %d object%s, frames up to %dx%d\n",
           samrt_model_name(v->model), v->n_params, samrt_dtype_name(v->b->precision), prm->imgsz, prm->imgsz,
           prm->max_objects, prm->max_objects > 1 ? "s" : "", prm->max_frame_width, prm->max_frame_height);
    printf("platform   %s: %s, %s pool\n", pf->name, pf->description, samrt_mem_kind_name(m->mem_kind));
    printf("%-28s %16s %12s\n", "region", "bytes", "MiB");
    static const char *const what[SAMRT_INTERNAL_REGIONS] = {
        "weights", "per-object state", "workspace (larger cap)", "I/O staging", "peak activations (scratch)"};
    for (int r = 0; r < SAMRT_INTERNAL_REGIONS; r++) {
        printf("%-28s %16" PRIu64 " %12.2f", what[r], v->b->region_bytes[r], mib(v->b->region_bytes[r]));
        if (r == SAMRT_INTERNAL_REGION_WORKSPACE && v->b->region_bytes[r])  /* the workspace: what each library may use of it */
            printf("  (cuBLASLt cap %.0f MiB, cuDNN cap %.0f MiB)", mib(pf->cublaslt_ws_bytes),
                   mib(pf->cudnn_ws_bytes));
        if (r == SAMRT_INTERNAL_REGION_STAGING && v->b->frame_slot_bytes)  /* the frame: a scratch slot */
            printf("  (+ frame slot in scratch: %" PRIu64 " B; a frame stages RGB8 %" PRIu64 " B or NV12 %" PRIu64
                   " B)", v->b->frame_slot_bytes, v->b->frame_rgb8_bytes, v->b->frame_nv12_bytes);
        printf("\n");
    }
    printf("%-28s %16" PRIu64 " %12.2f\n", "arena (one allocation)", m->arena_bytes, mib(m->arena_bytes));
    printf("%-28s %16" PRIu64 " %12.2f\n", "profile pool cap", pf->pool_bytes, mib(pf->pool_bytes));
    if (pf->device_bytes)
        printf("%-28s %16lld %12.2f  (device %.0f MiB minus arena; the profile reserves %.0f MiB for the CUDA "
               "context, handles and host side)\n", "headroom", (long long)v->headroom, v->headroom / 1048576.0,
               mib(pf->device_bytes), mib(pf->reserve_bytes));
    if (v->streams)
        printf("%-28s %16" PRIu64 " %12.2f  (weights once + %d x %.2f MiB of state, workspace, staging and "
               "scratch)\n", "arenas of all streams", v->total, mib(v->total), v->streams,
               mib(m->arena_bytes - m->weights_bytes));
    printf("verdict    %s\n", v->fits ? "fits" : "DOES NOT FIT the profile's pool");
    if (v->has_frame) print_table_frame(&v->frame);
    for (int i = 0; slots && i < v->b->n_slots; i++) {
        struct samrt_internal_budget_slot sl;
        if (samrt_internal_budget_slot(e, i, &sl) != SAMRT_OK) break;
        printf("  %-9s %12" PRIu64 " %12" PRIu64 "  [%d,%d] %s\n", sl.region, sl.offset, sl.nbytes, sl.t_first,
               sl.t_last, sl.name ? sl.name : "?");
    }
}

/* --memory: a policy name into *out; 0, or -1 with the message printed. */
static int memory_opt(const char *arg, enum samrt_memory_policy *out) {
    if (samrt_memory_policy_parse(arg, out) == SAMRT_OK) return 0;
    fprintf(stderr, "samrt budget: --memory must be sam2, samurai or dam4sam ('%s')\n", arg);
    return -1;
}

int samrt_cmd_budget(int argc, char **argv) {
    static const struct option opts[] = {
        {"model", required_argument, 0, 'm'},  {"precision", required_argument, 0, 'p'},
        {"imgsz", required_argument, 0, 'i'},  {"objects", required_argument, 0, 'k'},
        {"platform", required_argument, 0, 'P'}, {"json", no_argument, 0, 'j'},
        {"slots", no_argument, 0, 's'},        {"frame", required_argument, 0, 'f'},
        {"streams", required_argument, 0, 'S'}, {"help", no_argument, 0, 'h'},
        {"sm-limit", required_argument, 0, 'L'}, {"memory", required_argument, 0, 'M'},
        {0, 0, 0, 0}};
    struct samrt_engine_params prm = samrt_engine_default_params();
    enum samrt_model_id model = SAMRT_MODEL_UNKNOWN;
    int json = 0, slots = 0, streams = 0, c;
    long v;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (samrt_model_parse(optarg, &model) != SAMRT_OK) {
                fprintf(stderr, "samrt budget: unknown model '%s'\n", optarg);
                return SAMRT_EXIT_USAGE;
            }
            break;
        case 'p':
            if (samrt_dtype_parse(optarg, &prm.precision) != SAMRT_OK) {
                fprintf(stderr, "samrt budget: precision must be fp32, bf16 or fp16, not '%s'\n", optarg);
                return SAMRT_EXIT_USAGE;
            }
            break;
        case 'i':
            if (samrt_parse_int(optarg, 64, 4096, &v) || v % 16) {
                fprintf(stderr, "samrt budget: --imgsz must be a multiple of 16 in [64, 4096]\n");
                return SAMRT_EXIT_USAGE;
            }
            prm.imgsz = (int)v;
            break;
        case 'k':
            if (samrt_parse_int(optarg, 1, 256, &v)) {
                fprintf(stderr, "samrt budget: --objects must be in [1, 256]\n");
                return SAMRT_EXIT_USAGE;
            }
            prm.max_objects = (int)v;
            break;
        case 'P': prm.platform = optarg; break;
        case 'S':
            if (samrt_parse_int(optarg, 1, 64, &v)) {
                fprintf(stderr, "samrt budget: --streams must be in [1, 64] ('%s')\n", optarg);
                return SAMRT_EXIT_USAGE;
            }
            streams = (int)v;
            break;
        case 'f': {
            int fw = 0, fh = 0;
            char tail;
            if (sscanf(optarg, "%dx%d%c", &fw, &fh, &tail) != 2 || fw < 16 || fh < 16 || fw > 16384 || fh > 16384) {
                fprintf(stderr, "samrt budget: --frame takes WxH, each in [16, 16384] ('%s')\n", optarg);
                return SAMRT_EXIT_USAGE;
            }
            prm.max_frame_width = fw;
            prm.max_frame_height = fh;
            break;
        }
        case 'L':
            if (samrt_parse_int(optarg, 0, 4096, &v)) {
                fprintf(stderr, "samrt budget: --sm-limit must be in [0, 4096] ('%s')\n", optarg);
                return SAMRT_EXIT_USAGE;
            }
            prm.sm_limit = (int)v;
            break;
        case 'M': if (memory_opt(optarg, &prm.memory)) return SAMRT_EXIT_USAGE; break;
        case 'j': json = 1; break;
        case 's': slots = 1; break;
        case 'h': return usage(stdout, SAMRT_EXIT_OK);
        default: return usage(stderr, SAMRT_EXIT_USAGE);
        }
    }
    if (model == SAMRT_MODEL_UNKNOWN || !prm.platform) {
        fprintf(stderr, "samrt budget: --model and --platform are required\n");
        return usage(stderr, SAMRT_EXIT_USAGE);
    }
    samrt_engine_t e = NULL;
    enum samrt_status st = samrt_engine_init_plan_only(model, &prm, &e);
    if (st != SAMRT_OK) {
        fprintf(stderr, "samrt budget: %s\n", samrt_status_str(st));
        return samrt_exit_code(st);
    }
    struct samrt_internal_budget b;
    samrt_internal_budget(e, &b);
    if (b.scratch_requested_bytes == 0) {
        fprintf(stderr, "samrt budget: %s has no forward pass in this build at %s on %s; only its weights "
                        "could be planned, so no budget is printed\n", samrt_model_name(model),
                samrt_dtype_name(b.precision), b.profile->name);
        samrt_engine_free(e);
        return SAMRT_EXIT_UNAVAILABLE;
    }
    struct samrt_memory_report m;
    samrt_engine_memory(e, &m);
    struct budget_view bv = {model, &prm, &b, &m, 0, 0, 0, streams, m.arena_bytes, 0, {0}};
    samrt_engine_model(e, NULL, &bv.n_params);
    /* the frame's work where the model tracks (SAM 2.0 sizes segment single images only) */
    if (samrt_model_tracks(model)) {
        st = samrt_internal_frame_cost(e, prm.max_objects, prm.max_frame_width, prm.max_frame_height, &bv.frame);
        if (st != SAMRT_OK) {
            fprintf(stderr, "samrt budget: the frame's work could not be planned: %s\n", samrt_status_str(st));
            samrt_engine_free(e);
            return samrt_exit_code(st);
        }
        bv.has_frame = 1;
    }
    const struct samrt_platform_profile *pf = b.profile;
    if (streams) bv.total = m.weights_bytes + (uint64_t)streams * (m.arena_bytes - m.weights_bytes);
    const int fits = bv.total <= pf->pool_bytes;
    bv.fits = fits;
    /* headroom: what the device keeps beyond the arena(s), for context, handles and host side */
    bv.headroom = pf->device_bytes ? (int64_t)pf->device_bytes - (int64_t)bv.total : 0;
    if (json) print_json(&bv);
    else print_table(&bv, e, slots);
    samrt_engine_free(e);
    return fits ? SAMRT_EXIT_OK : SAMRT_EXIT_PROBLEM;
}

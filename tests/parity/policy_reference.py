#!/usr/bin/env python3
"""SAMURAI's or DAM4SAM's official tracker on seeded weights: per frame, the candidate mask it
kept and the memory frames it attended to, as JSON lines, for run_policy_parity.sh to compare
with samrt's SAMRT_TRACK_DECISIONS file.

The official package (the `sam2` folder of github.com/yangchris11/samurai, carried like
.carry/sam2ref: `git archive HEAD sam2 | tar -x -C .carry/samurairef`, then --pkg
.carry/samurairef/sam2) is built from its configs/samurai/*.yaml by official_reference.py's
build() with the same checkpoint samrt loads. One object (SAMURAI's filter is one per model):
a click or a box on frame 0, then propagate_in_video.

Recorded per frame t >= 0 (only where the heads chose among three candidates):
  index   1..3: which of the decoder's masks 1..3 was kept (the candidate equal to the kept
          low-res mask, as samrt numbers them)
  mem     the frames whose memories frame t attends to: the conditioning frames, then
          SAMURAI's t_pos list (sam2_base.py _prepare_memory_conditioned_features,
          samurai_mode), transcribed over the official output_dict at that moment.
Needs torch, timm, numpy, PIL, yaml (official_reference.py stubs hydra / omegaconf / iopath).
  python3 tests/parity/policy_reference.py --pkg .carry/samurairef/sam2 --model sam2.1_tiny \\
      --ckpt build/parity/sam2.1_tiny.gate.pt --frames FRAMES --click 210,350 --out ref.jsonl

--policy dam4sam: DAM4SAM's tracker (github.com/jovanavidenovic/DAM4SAM; --pkg holds its
dam4sam_tracker.py, dam4sam_config.yaml, utils/ and sam2/ as `git archive HEAD` writes them)
built from its sam2/sam21pp_hiera_*.yaml with the same checkpoint, one object prompted with a
mask (--mask PNG, as DAM4SAMTracker.initialize takes it), then DAM4SAMTracker.track frame by
frame, the official streaming loop (num_frames grows by one per frame). Its frames are
preprocessed as the SAM 2 video predictor does (PIL bicubic to the model side, ImageNet
normalisation: what samrt does) instead of its torchvision resize, so that both sides see the
same tensors. vot (its box IoU, mask rasteriser) and cv2 (connectedComponentsWithStats) are
stood in for when missing (dam_stubs). Recorded per tracked frame: index (argmax of the
predicted IoUs + 1), mem (select_closest_cond_frames of its package, then the RAM loop of its
_prepare_memory_conditioned_features transcribed over output_dict: DRM frames in selection
order, RAM frames ascending, the order of its memory tokens), drm (1 when it called add_to_drm
for that frame, 0 on the other tracked frames: compare_decisions.py's DRM-add column).

--masks-out DIR also writes the object's mask of every frame (video size), and --bf16 runs the
tracker under bfloat16 autocast: run_policy_parity.sh judges samrt's masks by them
(compare_policy_masks.py).
"""
import argparse, importlib.util, json, os, sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CFG = {"sam2.1_tiny": "sam2.1_hiera_t.yaml", "sam2.1_small": "sam2.1_hiera_s.yaml",
       "sam2.1_base_plus": "sam2.1_hiera_b+.yaml", "sam2.1_large": "sam2.1_hiera_l.yaml"}
DAM_CFG = {"sam2.1_tiny": "sam21pp_hiera_t.yaml", "sam2.1_small": "sam21pp_hiera_s.yaml",
           "sam2.1_base_plus": "sam21pp_hiera_b+.yaml", "sam2.1_large": "sam21pp_hiera_l.yaml"}


def memory_frames(model, frame_idx, output_dict):
    """SAMURAI's selection for a tracked frame, as its loop builds it (cond frames first)."""
    cond = sorted(output_dict["cond_frame_outputs"].keys())
    nc = output_dict["non_cond_frame_outputs"]
    valid = []
    if frame_idx > 1:
        for i in range(frame_idx - 1, 1, -1):
            out = nc.get(i)
            if out is None:
                continue
            kf = out.get("kf_score")
            if (out["best_iou_score"].item() > model.memory_bank_iou_threshold
                    and out["object_score_logits"].item() > model.memory_bank_obj_score_threshold
                    and (kf is None or kf.item() > model.memory_bank_kf_score_threshold)):
                valid.insert(0, i)
            if len(valid) >= model.max_obj_ptrs_in_encoder - 1:
                break
    if frame_idx - 1 not in valid:
        valid.append(frame_idx - 1)
    mem = list(cond)
    for t_pos in range(1, model.num_maskmem):
        idx = t_pos - model.num_maskmem
        if idx < -len(valid):
            continue
        if valid[idx] in nc:
            mem.append(valid[idx])
    return mem


def dam_memory_frames(model, frame_idx, output_dict):
    """DAM4SAM's selection for a tracked frame (sam2_base.py _prepare_memory_conditioned_features):
    the DRM frames select_closest_cond_frames keeps, then the RAM loop over every r-th frame."""
    from sam2.modeling.sam2_utils import select_closest_cond_frames
    cond, nc = output_dict["cond_frame_outputs"], output_dict["non_cond_frame_outputs"]
    sel, _ = select_closest_cond_frames(frame_idx, cond, model.max_cond_frames_in_attn)
    r = model.memory_temporal_stride_for_eval

    def walk_back(prev, step):
        """The official `while True` walk: back by step to a non-conditioning frame with an
        object that is not a DRM frame; (prev, None) once it passes frame 1."""
        while True:
            prev -= step
            if prev <= 0:
                return prev, None
            out = nc.get(prev)
            if out is not None and out["n_pixels_pos"] >= 1 and prev not in sel:
                return prev, out

    ram = []
    prev = frame_idx - 1
    for i in range(model.num_maskmem - 1 - (len(sel) - 1)):
        if i == 0:
            prev = frame_idx - 1
            out = cond.get(prev) if prev in cond else nc.get(prev)
            if out is None or out["n_pixels_pos"] < 1 or prev in sel:
                prev, out = walk_back(prev, 1)
        elif prev >= 0:
            prev = ((prev - 1) // r) * r
            out = nc.get(prev)
            if out is None or out["n_pixels_pos"] < 1 or prev in sel:
                prev, out = walk_back(prev, r)
        else:
            out = None
        if out is not None:
            ram.append(prev)
    return list(sel.keys()) + sorted(ram)


def dam_stubs():
    """DAM4SAM's tracker imports vot (the VOT toolkit: Mask rasterize / convert to a box, box
    overlaps), cv2 (connected components) and torchvision (its image resize, replaced here).
    Stand-ins where the machine lacks them: vot's rectangles are inclusive pixel boxes and its
    overlap rasterises both over their joint bounds (0 when those are one pixel wide or high);
    cv2's 8-connected labels in raster order of their first pixel (a flood fill in numpy)."""
    import types
    import numpy as np
    try:
        import vot.region  # noqa: F401
    except ImportError:
        class RegionType:
            SPECIAL, RECTANGLE, POLYGON, MASK = range(4)

        class Rect:
            def __init__(self, x0, y0, x1, y1):
                self.b = (x0, y0, x1, y1)

        class Mask:
            def __init__(self, m, offset=(0, 0)):
                self.m = np.asarray(m)

            def rasterize(self, bounds):
                return (self.m != 0).astype(np.uint8)

            def convert(self, rtype):
                ys, xs = np.nonzero(self.m)
                return Rect(xs.min(), ys.min(), xs.max(), ys.max()) if len(xs) else Rect(0, 0, -1, -1)

        def calculate_overlaps(first, second, bounds=None):
            res = []
            for a, b in zip(first, second):
                a, b = a.b, b.b
                u = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                if u[0] >= u[2] or u[1] >= u[3]:
                    res.append(0.0)
                    continue
                iw = max(0, min(a[2], b[2]) - max(a[0], b[0]) + 1)
                ih = max(0, min(a[3], b[3]) - max(a[1], b[1]) + 1)
                inter = iw * ih
                area = lambda r: (r[2] - r[0] + 1) * (r[3] - r[1] + 1)
                res.append(float(inter) / float(area(a) + area(b) - inter))
            return res

        vot = types.ModuleType("vot")
        region = types.ModuleType("vot.region")
        raster = types.ModuleType("vot.region.raster")
        shapes = types.ModuleType("vot.region.shapes")
        region.RegionType, shapes.Mask, raster.calculate_overlaps = RegionType, Mask, calculate_overlaps
        vot.region = region
        sys.modules.update({"vot": vot, "vot.region": region, "vot.region.raster": raster,
                            "vot.region.shapes": shapes})
    try:
        import cv2  # noqa: F401
    except ImportError:
        def connected_components_with_stats(mask, connectivity=8):
            h, w = mask.shape
            labels = np.zeros((h, w), np.int32)
            areas = [h * w - int(np.count_nonzero(mask))]
            for y, x in zip(*np.nonzero(mask)):  # raster order: labels by their first pixel
                if labels[y, x]:
                    continue
                n = len(areas)
                labels[y, x], stack, count = n, [(y, x)], 0
                while stack:
                    cy, cx = stack.pop()
                    count += 1
                    for dy in (-1, 0, 1):
                        for dx in (-1, 0, 1):
                            ny, nx = cy + dy, cx + dx
                            if 0 <= ny < h and 0 <= nx < w and mask[ny, nx] and not labels[ny, nx]:
                                labels[ny, nx] = n
                                stack.append((ny, nx))
                areas.append(count)
            stats = np.zeros((len(areas), 5), np.int32)
            stats[:, 4] = areas
            return len(areas), labels, stats, None
        cv2 = types.ModuleType("cv2")
        cv2.connectedComponentsWithStats, cv2.CC_STAT_AREA = connected_components_with_stats, 4
        sys.modules["cv2"] = cv2
    try:
        import torchvision.transforms.functional  # noqa: F401
    except ImportError:
        tv = types.ModuleType("torchvision")
        tr = types.ModuleType("torchvision.transforms")
        fn = types.ModuleType("torchvision.transforms.functional")
        tv.transforms, tr.functional = tr, fn
        sys.modules.update({"torchvision": tv, "torchvision.transforms": tr, "torchvision.transforms.functional": fn})


def run_dam4sam(a, ref):
    """DAM4SAMTracker.initialize on frame 0 with --mask, then track() per frame; the taps record
    what the module docstring says."""
    dam_stubs()
    sys.path.insert(0, os.path.abspath(a.pkg))
    import numpy as np
    import torch
    from PIL import Image
    cfg = os.path.join(a.pkg, "sam2", DAM_CFG[a.model])
    model = ref.build(cfg, vos=False, ckpt=a.ckpt, settings=a.settings).to(a.device).eval()
    import dam4sam_tracker as dt
    trk = dt.DAM4SAMTracker.__new__(dt.DAM4SAMTracker)
    trk.predictor, trk.tracking_times, trk.input_image_size = model, [], model.image_size
    mean = torch.tensor([0.485, 0.456, 0.406], dtype=torch.float32)[:, None, None]
    std = torch.tensor([0.229, 0.224, 0.225], dtype=torch.float32)[:, None, None]
    trk.img_mean, trk.img_std = mean, std

    def prepare(img_pil):  # sam2/utils/misc.py _load_img_as_tensor
        s = model.image_size
        x = np.array(img_pil.convert("RGB").resize((s, s))) / 255.0
        x = torch.from_numpy(x).permute(2, 0, 1).float()
        return ((x - mean) / std).to(trk.inference_state["device"])
    trk._prepare_image = prepare
    rows = tap_model(model, lambda out: int(torch.argmax(out[2][0]).item()) + 1, dam_memory_frames)
    add = model.add_to_drm

    def add_tap(inference_state, frame_idx, obj_id):
        rows.setdefault(frame_idx, {})["drm"] = 1
        return add(inference_state=inference_state, frame_idx=frame_idx, obj_id=obj_id)
    model.add_to_drm = add_tap
    names = sorted((f for f in os.listdir(a.frames) if f.lower().endswith((".jpg", ".jpeg"))),
                   key=lambda f: int(os.path.splitext(f)[0]))
    if a.max_frames:
        names = names[:a.max_frames + 1]
    mask = (np.array(Image.open(a.mask)) > 0).astype(np.uint8)
    with torch.autocast(a.device, dtype=torch.bfloat16, enabled=a.bf16):
        out = trk.initialize(Image.open(os.path.join(a.frames, names[0])), mask)
        save_mask(a.masks_out, 0, out["pred_mask"])
        for t, name in enumerate(names[1:], 1):
            out = trk.track(Image.open(os.path.join(a.frames, name)))
            save_mask(a.masks_out, t, out["pred_mask"])
    for r in rows.values():  # a tracked frame (one with memories) that add_to_drm did not take
        if "mem" in r:
            r.setdefault("drm", 0)
    return rows


def tap_model(model, index_of, memory_of):
    """Wraps the heads and the memory conditioning of `model`: rows[t]["index"] = index_of(the
    heads' outputs) where they chose among three candidates, rows[t]["mem"] = memory_of(model,
    t, output_dict) on tracked frames. Returns rows (filled as the model runs)."""
    rows, cur = {}, {"t": -1}
    heads, prep = model._forward_sam_heads, model._prepare_memory_conditioned_features

    def heads_tap(*args, **kw):
        out = heads(*args, **kw)
        if out[0].shape[1] == 3:
            rows.setdefault(cur["t"], {})["index"] = index_of(out)
        return out

    def prep_tap(frame_idx, is_init_cond_frame, *args, **kw):
        cur["t"] = frame_idx
        output_dict = kw.get("output_dict", args[3] if len(args) > 3 else None)
        if not is_init_cond_frame:
            rows.setdefault(frame_idx, {})["mem"] = memory_of(model, frame_idx, output_dict)
        return prep(frame_idx, is_init_cond_frame, *args, **kw)
    model._forward_sam_heads, model._prepare_memory_conditioned_features = heads_tap, prep_tap
    return rows


def stub_missing():
    """SAMURAI's package imports loguru (logging only) and scipy.linalg (three Cholesky calls of
    its Kalman filter). Where a machine lacks them, stand-ins: a silent logger, and the three
    solves in numpy at float64 (the same factorisation; rounding may differ in the last bits)."""
    import types
    import numpy as np
    try:
        import loguru  # noqa: F401
    except ImportError:
        class _Logger:
            def __getattr__(self, name):
                return lambda *a, **k: None
        sys.modules["loguru"] = types.SimpleNamespace(logger=_Logger())
    try:
        import scipy.linalg  # noqa: F401
    except ImportError:
        def cho_factor(a, lower=False, **kw):
            return np.linalg.cholesky(np.asarray(a, dtype=np.float64)), True

        def cho_solve(c_and_lower, b, **kw):
            c = c_and_lower[0]
            return np.linalg.solve(c.T, np.linalg.solve(c, b))

        def solve_triangular(a, b, lower=False, **kw):
            return np.linalg.solve(np.tril(a) if lower else np.triu(a), b)

        linalg = types.ModuleType("scipy.linalg")
        linalg.cho_factor, linalg.cho_solve, linalg.solve_triangular = cho_factor, cho_solve, solve_triangular
        scipy = types.ModuleType("scipy")
        scipy.linalg = linalg
        sys.modules["scipy"], sys.modules["scipy.linalg"] = scipy, linalg


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pkg", required=True, help="folder holding SAMURAI's `sam2` package (dam4sam: the "
                    "DAM4SAM snapshot: dam4sam_tracker.py, utils/, sam2/)")
    ap.add_argument("--policy", default="samurai", choices=["samurai", "dam4sam"])
    ap.add_argument("--mask", help="dam4sam: the frame-0 mask PNG (object = value > 0)")
    ap.add_argument("--settings", default="vos_inference", choices=["vos_inference", "notebook"],
                    help="dam4sam: official_reference.build's settings profile")
    ap.add_argument("--official-ref", default=os.path.join(ROOT, ".carry/official_reference.py"))
    ap.add_argument("--model", default="sam2.1_tiny", choices=sorted(CFG))
    ap.add_argument("--ckpt", required=True, help="the weights samrt loads ({'model': state_dict})")
    ap.add_argument("--frames", required=True, help="a JPEG folder")
    ap.add_argument("--click", help="x,y on frame 0")
    ap.add_argument("--box", help="x0,y0,x1,y1 on frame 0")
    ap.add_argument("--max-frames", type=int, default=0)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--out", required=True)
    ap.add_argument("--masks-out", help="also write the object's mask of every frame (video size, logit > 0) "
                    "as DIR/NNNNN.png, 0/255")
    ap.add_argument("--bf16", action="store_true", help="under bfloat16 autocast, as the official predictors "
                    "run: the baseline of the low-precision mask bars")
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location("official_reference", a.official_ref)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    ref.stub_modules()
    if a.policy == "dam4sam":
        if not a.mask:
            raise SystemExit("dam4sam: give --mask (DAM4SAMTracker starts from a mask)")
        write_rows(run_dam4sam(a, ref), a.out)
        return
    stub_missing()
    sys.path.insert(0, os.path.abspath(a.pkg))
    import numpy as np
    import torch
    cfg = os.path.join(a.pkg, "sam2", "configs", "samurai", CFG[a.model])
    model = ref.build(cfg, vos=False, ckpt=a.ckpt, settings="vos_inference").to(a.device).eval()
    def kept(out):  # the candidate equal to the kept low-res mask
        hit = [i + 1 for i in range(3) if torch.equal(out[0][:, i:i + 1], out[3])]
        return hit[0] if hit else -1
    rows = tap_model(model, kept, memory_frames)

    with torch.autocast(a.device, dtype=torch.bfloat16, enabled=a.bf16), torch.inference_mode():
        state = model.init_state(video_path=a.frames)
        kw = {}
        if a.click:
            x, y = map(float, a.click.split(","))
            kw = dict(points=np.array([[x, y]], np.float32), labels=np.array([1], np.int32))
        elif a.box:
            kw = dict(box=np.array(list(map(float, a.box.split(","))), np.float32))
        else:
            raise SystemExit("give --click or --box")
        model.add_new_points_or_box(state, frame_idx=0, obj_id=1, **kw)
        n = a.max_frames or None
        for t, _, masks in model.propagate_in_video(state, start_frame_idx=0, max_frame_num_to_track=n):
            save_mask(a.masks_out, t, masks[0, 0] > 0)
    write_rows(rows, a.out)


def save_mask(folder, t, m):
    """Frame t's mask (a tensor or array, nonzero = object) as folder/NNNNN.png, 0/255; nothing
    without --masks-out."""
    if not folder:
        return
    import numpy as np
    from PIL import Image
    os.makedirs(folder, exist_ok=True)
    m = m.detach().cpu().numpy() if hasattr(m, "detach") else np.asarray(m)
    Image.fromarray(np.where(np.squeeze(m) > 0, 255, 0).astype(np.uint8)).save(os.path.join(folder, f"{t:05d}.png"))


def write_rows(rows, path):
    with open(path, "w") as f:
        for t in sorted(rows):
            f.write(json.dumps({"frame": t, **rows[t]}) + "\n")
    print(f"policy_reference: {len(rows)} frames -> {path}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""SAMURAI's official tracker on seeded weights: per frame, the candidate mask it kept and the
memory frames it attended to, as JSON lines, for run_policy_parity.sh to compare with samrt's
SAMRT_TRACK_DECISIONS file.

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
"""
import argparse, importlib.util, json, os, sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CFG = {"sam2.1_tiny": "sam2.1_hiera_t.yaml", "sam2.1_small": "sam2.1_hiera_s.yaml",
       "sam2.1_base_plus": "sam2.1_hiera_b+.yaml", "sam2.1_large": "sam2.1_hiera_l.yaml"}


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
    ap.add_argument("--pkg", required=True, help="folder holding SAMURAI's `sam2` package")
    ap.add_argument("--official-ref", default=os.path.join(ROOT, ".carry/official_reference.py"))
    ap.add_argument("--model", default="sam2.1_tiny", choices=sorted(CFG))
    ap.add_argument("--ckpt", required=True, help="the weights samrt loads ({'model': state_dict})")
    ap.add_argument("--frames", required=True, help="a JPEG folder")
    ap.add_argument("--click", help="x,y on frame 0")
    ap.add_argument("--box", help="x0,y0,x1,y1 on frame 0")
    ap.add_argument("--max-frames", type=int, default=0)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location("official_reference", a.official_ref)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    ref.stub_modules()
    stub_missing()
    sys.path.insert(0, os.path.abspath(a.pkg))
    import numpy as np
    import torch
    cfg = os.path.join(a.pkg, "sam2", "configs", "samurai", CFG[a.model])
    model = ref.build(cfg, vos=False, ckpt=a.ckpt, settings="vos_inference").to(a.device).eval()
    rows, cur = {}, {"t": -1}

    heads = model._forward_sam_heads
    def heads_tap(*args, **kw):
        out = heads(*args, **kw)
        multi, low = out[0], out[3]
        if multi.shape[1] == 3:
            hit = [i + 1 for i in range(3) if torch.equal(multi[:, i:i + 1], low)]
            rows.setdefault(cur["t"], {})["index"] = hit[0] if hit else -1
        return out
    model._forward_sam_heads = heads_tap

    prep = model._prepare_memory_conditioned_features
    def prep_tap(frame_idx, is_init_cond_frame, *args, **kw):
        cur["t"] = frame_idx
        output_dict = kw.get("output_dict", args[3] if len(args) > 3 else None)
        if not is_init_cond_frame:
            rows.setdefault(frame_idx, {})["mem"] = memory_frames(model, frame_idx, output_dict)
        return prep(frame_idx, is_init_cond_frame, *args, **kw)
    model._prepare_memory_conditioned_features = prep_tap

    with torch.inference_mode():
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
        for _ in model.propagate_in_video(state, start_frame_idx=0, max_frame_num_to_track=n):
            pass
    with open(a.out, "w") as f:
        for t in sorted(rows):
            f.write(json.dumps({"frame": t, **rows[t]}) + "\n")
    print(f"policy_reference: {len(rows)} frames -> {a.out}")


if __name__ == "__main__":
    main()

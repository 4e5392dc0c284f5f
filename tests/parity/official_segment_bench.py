#!/usr/bin/env python3
"""official_segment_bench.py - the official SAM 2.1 video predictor's single-frame timings, the
counterpart of `samrt segment --bench N` (docs/performance.md, "SAM 2.1 single frame").

The model is built exactly as tests/parity/dump_taps.py builds it (build() of
official_reference.py, seeded random weights or --ckpt; speed does not depend on the values) and
runs under torch.autocast(bfloat16) + inference_mode, the official usage. On one frame and one
click it times with CUDA events, median and p95 of N calls after a warm-up:

  image encoder   model.forward_image(image) on the preprocessed (1, 3, S, S) frame of init_state
                  (backbone + FPN neck + the conv_s0/conv_s1 high-resolution projections)
  sam heads       model._forward_sam_heads alone (prompt encoder + mask decoder + selection,
                  gate, pointer), timed from inside add_new_points_or_box by wrapping it
  prompt step     add_new_points_or_box on the cached frame: the heads plus the predictor's
                  bookkeeping and the upsample of the logits to the frame size

The official preprocessing (JPEG decode, Pillow resize on the CPU in init_state) is not timed.
Run on the GPU machine (needs .carry/official_reference.py, .carry/sam2ref and a JPEG):
  python3 tests/parity/official_segment_bench.py --model sam2.1_tiny --image .carry/bedroom/00000.jpg \
      --click 210,350 -n 200
"""
import argparse
import contextlib
import os
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import dump_taps  # noqa: E402  (load_reference, build_model, MODELS: the same model as the parity runs)


def stats(ms):
    v = np.sort(np.asarray(ms, np.float64))
    k = max(0, int(np.ceil(0.95 * len(v))) - 1)
    return float(np.median(v)), float(v[k])


def main():
    ap = argparse.ArgumentParser(description="Time the official SAM 2.1 predictor on one frame (bf16 autocast).")
    ap.add_argument("--model", choices=sorted(dump_taps.MODELS), default="sam2.1_tiny")
    ap.add_argument("--image", default=os.path.join(dump_taps.ROOT, ".carry/bedroom/00000.jpg"))
    ap.add_argument("--click", default="210,350", help="x,y in frame pixels")
    ap.add_argument("-n", type=int, default=100, help="timed calls per series")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--precision", choices=["bf16", "fp32"], default="bf16")
    ap.add_argument("--ckpt", help="weights ({'model': state_dict}); default: seeded random weights")
    ap.add_argument("--official-ref", default=os.path.join(dump_taps.ROOT, ".carry/official_reference.py"))
    ap.add_argument("--pkg-sam2", default=os.path.join(dump_taps.ROOT, ".carry/sam2ref"))
    ap.add_argument("--pkg-edgetam", default=os.path.join(dump_taps.ROOT, ".carry/edgetamref"))
    a = ap.parse_args()
    # the fields dump_taps.build_model reads
    a.device, a.seed, a.gate_open, a.settings, a.init, a.logit_scale = "cuda", 0, True, "vos_inference", "realistic", 8.0

    ref, cfg = dump_taps.load_reference(a)
    import torch
    if not torch.cuda.is_available():
        raise SystemExit("CUDA is not available")
    model = dump_taps.build_model(a, ref, cfg)
    amp = torch.autocast("cuda", dtype=torch.bfloat16) if a.precision == "bf16" else contextlib.nullcontext()
    x, y = (float(v) for v in a.click.split(","))
    pts, lab = np.array([[x, y]], np.float32), np.array([1], np.int32)

    ev = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
    heads_ms, current = [], {}
    orig_heads = model._forward_sam_heads

    def timed_heads(*args, **kw):  # events around the heads inside add_new_points_or_box
        s, e = ev(), ev()
        s.record()
        out = orig_heads(*args, **kw)
        e.record()
        current["heads"] = (s, e)
        return out

    model._forward_sam_heads = timed_heads
    tmp = tempfile.mkdtemp(prefix="segbench_")
    try:
        os.symlink(os.path.abspath(a.image), os.path.join(tmp, "00000.jpg"))
        with torch.inference_mode(), amp:
            state = model.init_state(video_path=tmp)  # caches frame 0's features
            img = state["images"][0].to("cuda").float().unsqueeze(0)
            enc_ms, step_ms = [], []
            for i in range(a.warmup + a.n):
                s, e = ev(), ev()
                s.record()
                model.forward_image(img)
                e.record()
                torch.cuda.synchronize()
                if i >= a.warmup:
                    enc_ms.append(s.elapsed_time(e))
            for i in range(a.warmup + a.n):
                s, e = ev(), ev()
                s.record()
                model.add_new_points_or_box(state, frame_idx=0, obj_id=1, points=pts, labels=lab)
                e.record()
                torch.cuda.synchronize()
                if i >= a.warmup:
                    step_ms.append(s.elapsed_time(e))
                    hs, he = current["heads"]
                    heads_ms.append(hs.elapsed_time(he))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows = [("image encoder (forward_image)", stats(enc_ms)), ("sam heads (_forward_sam_heads)", stats(heads_ms)),
            ("prompt step (add_new_points_or_box)", stats(step_ms))]
    enc, step = stats(enc_ms)[0], stats(step_ms)[0]
    print(f"official {a.model} {a.precision} autocast, frame {state['video_width']}x{state['video_height']}, "
          f"{a.n} calls per series after {a.warmup} warm-up, torch {torch.__version__}, "
          f"{torch.cuda.get_device_name(0)}")
    print(f"{'stage (ms)':38s} {'median':>10s} {'p95':>10s}")
    for name, (med, p95) in rows:
        print(f"{name:38s} {med:10.3f} {p95:10.3f}")
    print(f"{'encoder + prompt step (sum of medians)':38s} {enc + step:10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Where a low-precision run's mask error comes from: the low-res logits, or their upsampling.

The low-precision check of a video parity run (compare_taps.py --preset lowp) judges the
video-resolution masks by IoU against the fp32 reference, next to the official bf16 run's own
IoU. When samrt's low-res logits are as close to fp32 as the official bf16 run's but its
video-resolution masks are not, the difference must lie in how each side turns 256x256 logits
into video pixels. This script separates the two, per frame:

  lo_s / lo_b   IoU(logit > 0) of samrt's / the official bf16 run's pred_masks vs fp32's
  vid_s / vid_b the same for video_res_masks (what the lowp check judges)
  up_s / up_b   video IoU of each run's own pred_masks upsampled here in float64 (bilinear,
                align_corners=False, model-spec 4.7) vs fp32's video_res_masks: equal to vid_*
                when that side's video masks are a plain upsampling of its low-res logits
  self_s/self_b max |video_res_masks - upsample(pred_masks)| of each run (its own upsampling
                error), and near_s / near_b the number of video pixels whose upsampled logit is
                within 1e-2 of 0 (where rounding decides the sign)

  python3 tests/parity/lowp_mask_gap.py ref32.st official_bf16.st samrt_bf16.st [--rows 12]
Exit 0 after printing; 2 on unreadable input.
"""
import argparse
import re
import sys

import numpy as np

import taps_io


def bilinear_weights(n_out, n_in):
    """PyTorch's upsample_bilinear2d (align_corners=False) source indices and weights."""
    scale = np.float32(n_in) / np.float32(n_out)
    s = (np.arange(n_out, dtype=np.float64) + 0.5) * float(scale) - 0.5
    s = np.maximum(s, 0.0)
    i0 = np.floor(s).astype(np.int64)
    i1 = np.minimum(i0 + 1, n_in - 1)
    w1 = s - i0
    return i0, i1, 1.0 - w1, w1


def upsample(lo, h, w):
    lo = lo.astype(np.float64)
    y0, y1, wy0, wy1 = bilinear_weights(h, lo.shape[0])
    x0, x1, wx0, wx1 = bilinear_weights(w, lo.shape[1])
    rows = lo[y0] * wy0[:, None] + lo[y1] * wy1[:, None]
    return rows[:, x0] * wx0[None, :] + rows[:, x1] * wx1[None, :]


def iou(a, b):
    u = np.count_nonzero(a | b)
    return 1.0 if u == 0 else np.count_nonzero(a & b) / u


def plane(entry):
    tag, arr = entry
    a = taps_io.to_f32(tag, arr)
    return a.reshape([d for d in a.shape if d != 1]) if a.ndim > 2 else a


def read_runs(prog, description, argv, option, default, help_text):
    """The command line of the low-precision tools: ref (fp32), base (official bf16) and test
    (samrt) tap files plus one int option. Returns (args, ref, base, test), or None after
    printing why a file could not be read."""
    ap = argparse.ArgumentParser(prog=prog, description=description)
    ap.add_argument("ref")
    ap.add_argument("base")
    ap.add_argument("test")
    ap.add_argument(option, type=int, default=default, help=help_text)
    a = ap.parse_args(argv)
    try:
        return (a, *(taps_io.read(p)[0] for p in (a.ref, a.base, a.test)))
    except (OSError, taps_io.SafetensorsError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return None


def main(argv=None):
    runs = read_runs("lowp_mask_gap", __doc__.split("\n")[0], argv, "--rows", 12,
                     "frames listed, smallest vid_s - vid_b first")
    if runs is None:
        return 2
    a, ref, base, test = runs
    frames = sorted(int(m.group(1)) for n in ref if (m := re.fullmatch(r"frame\.(\d+)\.video_res_masks", n)))
    rows = []
    for t in frames:
        names = [f"frame.{t}.pred_masks", f"frame.{t}.video_res_masks"]
        if not all(n in d for n in names for d in (ref, base, test)):
            continue
        rl, rv = plane(ref[names[0]]), plane(ref[names[1]])
        bl, bv = plane(base[names[0]]), plane(base[names[1]])
        sl, sv = plane(test[names[0]]), plane(test[names[1]])
        h, w = rv.shape
        ub, us = upsample(bl, h, w), upsample(sl, h, w)
        rpos = rv > 0
        rows.append(dict(
            t=t, lo_s=iou(rl > 0, sl > 0), lo_b=iou(rl > 0, bl > 0), vid_s=iou(rpos, sv > 0), vid_b=iou(rpos, bv > 0),
            up_s=iou(rpos, us > 0), up_b=iou(rpos, ub > 0),
            self_s=float(np.max(np.abs(sv - us))), self_b=float(np.max(np.abs(bv - ub))),
            near_s=int(np.count_nonzero(np.abs(us) < 1e-2)), near_b=int(np.count_nonzero(np.abs(ub) < 1e-2))))
    if not rows:
        print("lowp_mask_gap: no frame has pred_masks and video_res_masks in all three files", file=sys.stderr)
        return 2
    keys = ["lo_s", "lo_b", "vid_s", "vid_b", "up_s", "up_b", "self_s", "self_b", "near_s", "near_b"]
    print(f"{'frame':>5} " + " ".join(f"{k:>8}" for k in keys) + f" {'vid_s-vid_b':>11}")
    for r in sorted(rows, key=lambda r: r["vid_s"] - r["vid_b"])[:a.rows]:
        print(f"{r['t']:>5} " + " ".join(f"{r[k]:>8.5f}" if isinstance(r[k], float) else f"{r[k]:>8d}" for k in keys)
              + f" {r['vid_s'] - r['vid_b']:>+11.5f}")
    print(f"{'mean':>5} " + " ".join(f"{np.mean([r[k] for r in rows]):>8.5f}" for k in keys))
    miss = sorted((r["vid_s"] - r["vid_b"], r["t"]) for r in rows if r["vid_s"] - r["vid_b"] < -0.01)
    print(f"{len(miss)} frames more than 0.01 below the official bf16 run at video res"
          + (f", worst {miss[0][0]:+.5f} (frame {miss[0][1]})" if miss else ""))
    better = sum(r["lo_s"] >= r["lo_b"] for r in rows), sum(r["vid_s"] >= r["vid_b"] for r in rows)
    print(f"{len(rows)} frames: samrt at least as close as the official bf16 run on {better[0]} (low res), "
          f"{better[1]} (video res)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

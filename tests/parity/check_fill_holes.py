#!/usr/bin/env python3
"""Check samrt's hole filling (notebook settings) against an independent fill of the official
logits, for reference runs in which the official predictor could not fill.

The official fill_holes_in_mask_scores needs the sam2 CUDA extension (sam2/_C); without it
(CPU runs, or a package installed without building it) the predictor warns and outputs the
UNFILLED logits, so compare_taps.py then reports frame.<t>.pred_masks and video_res_masks of
tracked frames as failing although everything upstream agrees. This script fills the
official pred_masks of every frame here (8-connected components of logit <= 0 with at most
--area pixels get 0.1, plain breadth-first search written for this check) and compares with
samrt's pred_masks. Frames whose official logits already contain filled values are reported
as filled by the official run (then compare_taps.py is the check).

  python3 tests/parity/check_fill_holes.py REF.safetensors SAMRT.safetensors [--area 8] [--tol 1e-4]
Exit 0: every frame within tol; 1: a frame differs; 2: bad input.
"""
import argparse
import os
import re
import sys
from collections import deque

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import taps_io  # noqa: E402

FILL_VALUE = np.float32(0.1)


def fill_holes(m, area):
    """m (H, W) f32 logits -> copy with background components of <= area pixels set to 0.1."""
    h, w = m.shape
    bg = m <= 0
    seen = np.zeros_like(bg)
    out = m.copy()
    for y0 in range(h):
        for x0 in range(w):
            if not bg[y0, x0] or seen[y0, x0]:
                continue
            queue, comp = deque([(y0, x0)]), []
            seen[y0, x0] = True
            while queue:
                y, x = queue.popleft()
                comp.append((y, x))
                for yy in range(max(y - 1, 0), min(y + 2, h)):
                    for xx in range(max(x - 1, 0), min(x + 2, w)):
                        if bg[yy, xx] and not seen[yy, xx]:
                            seen[yy, xx] = True
                            queue.append((yy, xx))
            if len(comp) <= area:
                for y, x in comp:
                    out[y, x] = FILL_VALUE
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ref")
    ap.add_argument("test")
    ap.add_argument("--area", type=int, default=8, help="fill_hole_area (notebook: 8)")
    ap.add_argument("--tol", type=float, default=1e-4, help="max |difference| of a logit")
    a = ap.parse_args()
    try:
        ref, _ = taps_io.read(a.ref)
        test, _ = taps_io.read(a.test)
    except (OSError, taps_io.SafetensorsError) as e:
        print(f"check_fill_holes: {e}")
        return 2
    frames = sorted(int(m.group(1)) for n in ref if (m := re.fullmatch(r"frame\.(\d+)\.pred_masks", n)))
    if not frames:
        print("check_fill_holes: no frame.<t>.pred_masks in the reference")
        return 2
    bad = 0
    for t in frames:
        name = f"frame.{t}.pred_masks"
        if name not in test:
            print(f"frame {t}: missing in {a.test}")
            bad += 1
            continue
        r = taps_io.to_f32(*ref[name])
        s = taps_io.to_f32(*test[name])
        side = r.shape[-1]
        r, s = r.reshape(-1, side), s.reshape(-1, side)
        if int((r == FILL_VALUE).sum()):
            print(f"frame {t}: the official logits hold filled values already; use compare_taps.py")
        f = fill_holes(r, a.area)
        err = np.abs(f - s)
        n_bad = int((err > a.tol).sum())
        print(f"frame {t}: {int((f != r).sum())} pixels filled, max |samrt - filled official| {float(err.max()):.3g}, "
              f"{n_bad} over {a.tol:g}")
        bad += n_bad > 0
    print("check_fill_holes:", "ok" if not bad else f"{bad} frame(s) differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

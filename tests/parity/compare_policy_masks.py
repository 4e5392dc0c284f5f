#!/usr/bin/env python3
"""Compares the masks of a memory-policy run (samrt track --memory ..., one object's PNG
folder) with the official tracker's (policy_reference.py --masks-out), frame by frame, by
stem: mask IoU and pixel agreement (the share of pixels on the same side), an empty pair
counting as IoU 1.

The bar follows docs/parity.md. Without --base (an fp32 run against the fp32 reference) every
frame needs IoU >= --min-iou (0.99: the same decisions on the same weights give the same
masks up to rounding at the boundary). With --base (the official bf16 run's masks: a bf16 or
fp16 samrt run) a frame passes when its IoU against the fp32 reference is at most --margin
(0.01) below the official bf16 run's own IoU against it, the low-precision bar of the tap
comparison, on binary masks since neither tracker hands out its policy run's logits.
Prints one summary line (and the worst frames when some fail); exit 0 when every frame passes,
1 otherwise, 2 when a folder is missing or a frame is absent from one side.
  python3 tests/parity/compare_policy_masks.py --ref REF_DIR --test SAMRT_DIR [--base REF_BF16_DIR]
"""
import argparse
import os
import sys


def load(folder):
    import numpy as np
    from PIL import Image
    if not os.path.isdir(folder):
        sys.exit(f"compare_policy_masks: no folder {folder}")
    out = {}
    for f in sorted(os.listdir(folder)):
        if f.lower().endswith(".png"):
            out[os.path.splitext(f)[0]] = np.asarray(Image.open(os.path.join(folder, f))) > 0
    return out


def iou(a, b):
    u = int((a | b).sum())
    return 1.0 if u == 0 else int((a & b).sum()) / u


def compare(ref, test, base=None, min_iou=0.99, margin=0.01):
    """Per-frame rows (stem, iou, agreement, base iou or None, ok) over the stems of ref; a
    stem missing in test (or base) is an error (ValueError)."""
    rows = []
    for stem, r in sorted(ref.items()):
        if stem not in test:
            raise ValueError(f"frame {stem}: missing in the tested masks")
        t = test[stem]
        if t.shape != r.shape:
            raise ValueError(f"frame {stem}: size {t.shape} against the reference's {r.shape}")
        j, agree = iou(r, t), float((r == t).mean())
        b = None
        if base is not None:
            if stem not in base:
                raise ValueError(f"frame {stem}: missing in the base masks")
            b = iou(r, base[stem])
        ok = j >= (b - margin if b is not None else min_iou)
        rows.append((stem, j, agree, b, ok))
    return rows


def summary(rows, label):
    n, good = len(rows), sum(r[4] for r in rows)
    line = (f"{label}: {n} frames; mask IoU min {min(r[1] for r in rows):.4f} mean "
            f"{sum(r[1] for r in rows) / n:.4f}; pixel agreement min {min(r[2] for r in rows):.5f}")
    if rows[0][3] is not None:
        line += f"; official bf16 IoU min {min(r[3] for r in rows):.4f}"
    return line + f"; {good}/{n} frames within the bar"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ref", required=True, help="the official fp32 run's masks")
    ap.add_argument("--test", required=True, help="samrt's masks of the object")
    ap.add_argument("--base", help="the official bf16 run's masks (low-precision bar)")
    ap.add_argument("--min-iou", type=float, default=0.99)
    ap.add_argument("--margin", type=float, default=0.01)
    ap.add_argument("--label", default="masks")
    a = ap.parse_args()
    ref = load(a.ref)
    if not ref:
        sys.exit(f"compare_policy_masks: no PNG in {a.ref}")
    try:
        rows = compare(ref, load(a.test), load(a.base) if a.base else None, a.min_iou, a.margin)
    except ValueError as e:
        print(f"{a.label}: {e}")
        return 2
    print(summary(rows, a.label))
    for stem, j, agree, b, ok in sorted(rows, key=lambda r: r[1])[:5]:
        if not ok:
            print(f"  frame {stem}: IoU {j:.4f}, agreement {agree:.5f}" + (f", official bf16 {b:.4f}" if b is not None else ""))
    return 0 if all(r[4] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Is a low-precision run's error noise or a bias? Per frame, against the fp32 reference.

A bf16 run can sit as close to fp32 as the official bf16 run by max error and still lose mask
IoU when its error is systematic: where the logits are flat near 0, a small shift of the whole
field moves the boundary across many pixels, while zero-mean noise of the same size does not.
This script splits each run's error on the mask logits and on the memory attention output into
its systematic and random parts, for samrt (s) and the official bf16 run (b):

  pred_masks   bias = mean(err) over the band |ref| < 1 (the boundary region), rms = rms(err)
               there; corr = correlation of the two runs' error fields (1: the same error)
  memattn.out  chan = rms over channels of the per-channel mean error (a per-channel offset),
               rms = rms of the error; samrt's tap is its bf16 copy (t >= 1)
  python3 tests/parity/lowp_error_structure.py ref32.st official_bf16.st samrt_bf16.st [--frames 12]
Exit 0 after printing; 2 on unreadable input.
"""
import re
import sys

import numpy as np

import lowp_mask_gap
import taps_io


def plane(entry):
    return np.asarray(taps_io.to_f32(*entry), dtype=np.float64)


def mask_stats(ref, err):
    band = np.abs(ref) < 1.0
    e = err[band]
    return (e.mean() if e.size else 0.0), (np.sqrt((e * e).mean()) if e.size else 0.0), band


def frame_row(ref, base, test, t):
    """Frame t of the three tap dicts: [bias_s, bias_b, rms_s, rms_b, corr, ma_chan_s, ma_chan_b,
    ma_rms_s, ma_rms_b] (nan where the memattn.out taps are missing), or None without masks."""
    n = f"frame.{t}.pred_masks"
    if n not in ref or n not in base or n not in test:
        return None
    r = plane(ref[n]).reshape(-1)
    es, eb = plane(test[n]).reshape(-1) - r, plane(base[n]).reshape(-1) - r
    bs, rs, band = mask_stats(r, es)
    bb, rb, _ = mask_stats(r, eb)
    x, y = es[band] - es[band].mean(), eb[band] - eb[band].mean()
    den = np.sqrt((x * x).sum() * (y * y).sum())
    corr = float((x * y).sum() / den) if band.any() and den > 0 else 0.0
    row = [bs, bb, rs, rb, corr, np.nan, np.nan, np.nan, np.nan]
    m = f"frame.{t}.memattn.out"
    if m in ref and m in base and m in test:
        rm = plane(ref[m]).reshape(-1, 256)
        for j, run in ((5, test), (6, base)):
            d = plane(run[m]).reshape(-1, 256) - rm
            row[j] = float(np.sqrt((d.mean(axis=0) ** 2).mean()))
            row[j + 2] = float(np.sqrt((d * d).mean()))
    return row


def main(argv=None):
    runs = lowp_mask_gap.read_runs("lowp_error_structure", __doc__.split("\n\n")[0], argv, "--frames", 12,
                                   "print the first N frames (default 12)")
    if runs is None:
        return 2
    a, ref, base, test = runs
    frames = sorted({int(m.group(1)) for n in ref for m in [re.match(r"^frame\.(\d+)\.pred_masks$", n)] if m})
    print(f"{'frame':>5} {'bias_s':>9} {'bias_b':>9} {'rms_s':>8} {'rms_b':>8} {'corr':>6} | "
          f"{'ma_chan_s':>9} {'ma_chan_b':>9} {'ma_rms_s':>8} {'ma_rms_b':>8}")
    acc = []
    for t in frames:
        row = frame_row(ref, base, test, t)
        if row is None:
            continue
        acc.append(row)
        if len(acc) <= a.frames:
            print(f"{t:>5} {row[0]:>+9.5f} {row[1]:>+9.5f} {row[2]:>8.5f} {row[3]:>8.5f} {row[4]:>6.3f} | "
                  f"{row[5]:>9.2e} {row[6]:>9.2e} {row[7]:>8.5f} {row[8]:>8.5f}")
    if acc:
        a = np.array(acc, dtype=np.float64)
        # columns without any value (no memattn.out taps) stay nan, without numpy's warning
        mean = np.array([np.nan if np.isnan(col).all() else np.nanmean(col) for col in a.T])
        print(f" mean {mean[0]:>+9.5f} {mean[1]:>+9.5f} {mean[2]:>8.5f} {mean[3]:>8.5f} {mean[4]:>6.3f} | "
              f"{mean[5]:>9.2e} {mean[6]:>9.2e} {mean[7]:>8.5f} {mean[8]:>8.5f}   ({len(acc)} frames)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

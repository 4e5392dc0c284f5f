#!/usr/bin/env python3
"""Summarize the per-frame error curves of a video parity report (compare_taps.py output).

run_sam2_video_parity.sh writes one compare_taps.py table per run: one row per frame and tap
(frame.<t>.pred_masks, .obj_ptr, .object_score_logits, .maskmem_features, .video_res_masks,
and obj<ID>.frame.<t>.* for further objects). Reading 1000 rows is not a review; this script
reduces each tap kind to its curve over the frames: the worst frame, the median and the 90th
percentile of err/max, the bf16 ulp distance of the stored memories, and for the mask taps the
confident-pixel agreement and IoU (samrt vs the fp32 reference, and the official bf16 run's own
IoU where the report has a base column), with the frames where the IoU margin is smallest.

  python3 tests/parity/summarize_video.py parity-out/video_parity_sam2.1_tiny.vos_inference.bf16.txt [...]
Exit 0 when every row of every report is ok, 1 otherwise, 2 on unreadable input.
"""
import math
import re
import sys

ROW = re.compile(r"^((?:obj\d+\.)?frame\.(\d+)\.(\S+))\s+(\S+)\s+(.*)$")


def num(s):
    try:
        return float(s)
    except ValueError:
        return math.nan


def pct(xs, q):
    """Nearest-rank percentile of a non-empty list."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, math.ceil(q / 100.0 * len(s)) - 1))]


def summarize(path):
    kinds, failed, rows = {}, 0, 0
    with open(path) as f:
        for line in f:
            m = ROW.match(line.rstrip("\n"))
            if not m:
                continue
            full, frame, tap = m.group(1), int(m.group(2)), m.group(3)
            obj = full.split(".")[0] if full.startswith("obj") else "obj1"
            cols = m.group(5).split()
            # columns after the shape: max|ref| max_err err/max agree iou base_iou ulp status...
            if len(cols) < 8:
                continue
            rows += 1
            ok = cols[7] == "ok"
            failed += not ok
            k = kinds.setdefault((obj, tap), {"frames": [], "rel": [], "agree": [], "iou": [], "base": [],
                                              "ulp": [], "fail": []})
            k["frames"].append(frame)
            k["rel"].append(num(cols[2]))
            k["agree"].append(num(cols[3]))
            k["iou"].append(num(cols[4]))
            k["base"].append(num(cols[5]))
            k["ulp"].append(num(cols[6]))
            if not ok:
                k["fail"].append(frame)
    if rows == 0:
        print(f"{path}: no per-frame rows found", file=sys.stderr)
        return None
    print(f"== {path}: {rows} rows, {failed} failed")
    print(f"{'object':>6} {'tap':<20} {'frames':>6} {'err/max worst (frame)':>22} {'median':>9} {'p90':>9}"
          f" {'ulp max':>8} {'agree min':>9} {'iou min':>8} {'iou mean':>8} {'base mean':>9} {'margin min (frame)':>19}")
    for (obj, tap), k in sorted(kinds.items()):
        rel = [(v, fr) for v, fr in zip(k["rel"], k["frames"]) if not math.isnan(v)]
        worst = max(rel) if rel else (math.nan, -1)
        vals = [v for v, _ in rel] or [math.nan]
        ulp = [u for u in k["ulp"] if not math.isnan(u)]
        agree = [a for a in k["agree"] if not math.isnan(a)]
        iou = [i for i in k["iou"] if not math.isnan(i)]
        pairs = [(i - b, fr) for i, b, fr in zip(k["iou"], k["base"], k["frames"])
                 if not (math.isnan(i) or math.isnan(b))]
        base = [b for b in k["base"] if not math.isnan(b)]
        margin = min(pairs) if pairs else None
        print(f"{obj:>6} {tap:<20} {len(k['frames']):>6} {worst[0]:>13.3g} ({worst[1]:>4}) {pct(vals, 50):>9.3g}"
              f" {pct(vals, 90):>9.3g} {(max(ulp) if ulp else math.nan):>8.3g}"
              f" {(min(agree) if agree else math.nan):>9.5f} {(min(iou) if iou else math.nan):>8.5f}"
              f" {(sum(iou) / len(iou) if iou else math.nan):>8.5f} {(sum(base) / len(base) if base else math.nan):>9.5f}"
              + (f" {margin[0]:>+11.5f} ({margin[1]:>4})" if margin else f" {'-':>19}"))
        if k["fail"]:
            print(f"{'':>6} {'':<20} failing frames: {k['fail'][:20]}{' ...' if len(k['fail']) > 20 else ''}")
    return failed


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    total = 0
    for p in argv[1:]:
        try:
            r = summarize(p)
        except OSError as e:
            print(f"summarize_video: {e}", file=sys.stderr)
            return 2
        if r is None:
            return 2
        total += r
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

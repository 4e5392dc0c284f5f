#!/usr/bin/env python3
"""Compare two parity tap files tap by tap and fail when a threshold is missed (numpy only).

REF is the official fp32 dump (dump_taps.py --precision fp32); TEST is a samrt dump in the same
naming, or the official bf16 dump. Per tap it prints shape, max|ref|, max abs err, err/max|ref|;
for mask-logit taps (last name part ends in "masks") also the agreement on confident pixels
(|ref| > --conf) and the IoU of the (logit > 0) masks; for bfloat16 taps the largest difference
in bf16 ulps. Taps present on one side only are listed, not failed. Exit 0 = all thresholds met,
1 = a threshold failed, 2 = bad input (unreadable file, nothing in common).

Design choice: the thresholds depend on what is compared, so they come in presets that flags
override: `--preset fp32` (default) fails any tap whose err/max|ref| > 1e-4 and any bf16 tap more
than 1 ulp off; `--preset lowp` (a bf16/fp16 run against the fp32 reference) judges mask logits
only: confident-pixel agreement >= 0.999 and, given --base (the official bf16 dump), IoU no more
than 0.01 below the IoU of the official bf16 run. See docs/parity.md.

Usage:
  python3 tests/parity/compare_taps.py ref_fp32.safetensors samrt_fp32.safetensors
  python3 tests/parity/compare_taps.py ref_fp32.safetensors samrt_bf16.safetensors \\
      --preset lowp --base ref_bf16.safetensors
"""
import argparse
import os
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import taps_io  # noqa: E402

PRESETS = {
    "fp32": dict(max_rel=1e-4, max_ulp=1, min_agree=None, iou_margin=None, min_iou=None),
    "lowp": dict(max_rel=None, max_ulp=None, min_agree=0.999, iou_margin=0.01, min_iou=None),
}
META_KEYS = ("model", "prompt", "settings", "video_hw", "num_frames", "seed", "gate_open")


def is_mask_tap(name):
    return name.rsplit(".", 1)[-1].endswith("masks")


def bf16_ulp_err(ref, test, maxref):
    """max |test - ref| in bfloat16 ulps of max(|ref|, maxref/256).

    The floor keeps values near zero from counting: there a bf16 ulp is far below the fp32
    noise of the computation before the rounding, and a sign flip between two tiny values would
    otherwise count as thousands of ulps. Two sides that round the same value to adjacent bf16
    numbers differ by at most 1."""
    if ref.size == 0:
        return 0.0
    if maxref == 0:
        return 0.0 if np.array_equal(ref, test) else float("inf")
    _, e = np.frexp(np.maximum(np.abs(ref), maxref / 256.0))
    return float(np.max(np.abs(test - ref) / np.ldexp(1.0, e - 8)))


def _align(ref, test):
    """test reshaped to ref's shape when they differ only by size-1 dims, else None."""
    if test.shape == ref.shape:
        return test
    if test.size == ref.size and [s for s in test.shape if s != 1] == [s for s in ref.shape if s != 1]:
        return test.reshape(ref.shape)
    return None


def iou(a, b):
    union = np.count_nonzero(a | b)
    return 1.0 if union == 0 else np.count_nonzero(a & b) / union


def compare_one(name, ref_entry, test_entry, base_entry, th, conf):
    """One row: dict of metrics plus 'fail' (list of reasons)."""
    (rtag, rarr), (ttag, tarr) = ref_entry, test_entry
    ref = taps_io.to_f32(rtag, rarr)
    test = _align(ref, taps_io.to_f32(ttag, tarr))
    row = dict(name=name, shape=tuple(ref.shape), dtypes=f"{rtag}/{ttag}", fail=[])
    if test is None:
        row["fail"].append(f"shape {tuple(tarr.shape)}")
        return row
    r64, t64 = ref.astype(np.float64), test.astype(np.float64)
    finite = np.isfinite(r64)
    if np.any(finite & ~np.isfinite(t64)):
        row["fail"].append("non-finite")
    diff = np.abs(np.where(finite, t64 - r64, 0.0))
    diff = np.nan_to_num(diff, nan=np.inf)
    row["maxref"] = float(np.max(np.abs(r64[finite]))) if finite.any() else 0.0
    row["err"] = float(diff.max()) if diff.size else 0.0
    row["rel"] = row["err"] / row["maxref"] if row["maxref"] > 0 else row["err"]
    bf16 = "BF16" in (rtag, ttag)  # stored-bf16 taps are judged in ulps, not relative error
    if th["max_rel"] is not None and not bf16 and not row["rel"] <= th["max_rel"]:
        row["fail"].append(f"rel>{th['max_rel']:g}")
    if bf16:
        row["ulp"] = bf16_ulp_err(r64[finite], t64[finite], row["maxref"])
        if th["max_ulp"] is not None and not row["ulp"] <= th["max_ulp"]:
            row["fail"].append(f"ulp>{th['max_ulp']:g}")
    if is_mask_tap(name):
        rpos, tpos = ref > 0, test > 0
        confident = np.abs(ref) > conf
        n_conf = int(np.count_nonzero(confident))
        row["agree"] = (np.count_nonzero(rpos[confident] == tpos[confident]) / n_conf) if n_conf else None
        row["iou"] = iou(rpos, tpos)
        if th["min_agree"] is not None and row["agree"] is not None and row["agree"] < th["min_agree"]:
            row["fail"].append(f"agree<{th['min_agree']:g}")
        if th["min_iou"] is not None and row["iou"] < th["min_iou"]:
            row["fail"].append(f"iou<{th['min_iou']:g}")
        if base_entry is not None:
            base = _align(ref, taps_io.to_f32(*base_entry))
            if base is not None:
                row["base_iou"] = iou(rpos, base > 0)
                if th["iou_margin"] is not None and row["iou"] < row["base_iou"] - th["iou_margin"]:
                    row["fail"].append(f"iou<base-{th['iou_margin']:g}")
    return row


def select(names, only, skip):
    keep = [n for n in names if not only or any(taps_io.name_match(n, p) for p in only)]
    return [n for n in keep if not any(taps_io.name_match(n, p) for p in skip)]


def compare(ref, test, base=None, th=None, conf=0.5, only=(), skip=()):
    """ref/test/base: {name: (tag, array)}. Returns (rows, only_in_ref, only_in_test)."""
    th = th or PRESETS["fp32"]
    names = select(list(ref), only, skip)
    rows = [compare_one(n, ref[n], test[n], (base or {}).get(n), th, conf) for n in names if n in test]
    only_ref = [n for n in names if n not in test]
    only_test = [n for n in select(list(test), only, skip) if n not in ref]
    return rows, only_ref, only_test


def _fmt(v, spec):
    width = int("".join(c for c in spec.split(".")[0] if c.isdigit()) or 0)
    return f"{'-':>{width}}" if v is None else format(v, spec)


def print_table(rows, out=None):
    out = out or sys.stdout
    w = max([len(r["name"]) for r in rows] + [4])
    head = (f"{'name':<{w}}  {'shape':<20} {'max|ref|':>10} {'max err':>10} {'err/max':>10} "
            f"{'agree':>8} {'iou':>8} {'base iou':>8} {'ulp':>7}  status")
    print(head, file=out)
    print("-" * len(head), file=out)
    for r in rows:
        shape = "x".join(str(s) for s in r["shape"]) or "scalar"
        print(f"{r['name']:<{w}}  {shape:<20} {_fmt(r.get('maxref'), '10.4g')} {_fmt(r.get('err'), '10.3g')} "
              f"{_fmt(r.get('rel'), '10.3g')} {_fmt(r.get('agree'), '8.5f')} {_fmt(r.get('iou'), '8.5f')} "
              f"{_fmt(r.get('base_iou'), '8.5f')} {_fmt(r.get('ulp'), '7.2f')}  "
              f"{'FAIL ' + ','.join(r['fail']) if r['fail'] else 'ok'}", file=out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ref", help="reference taps (official fp32)")
    ap.add_argument("test", help="taps to judge (samrt, or official bf16)")
    ap.add_argument("--base", help="official bf16 taps: IoU baseline for --iou-margin")
    ap.add_argument("--preset", choices=sorted(PRESETS), default="fp32")
    ap.add_argument("--max-rel", type=float, help="max abs err / max|ref| per tap (fp32: 1e-4)")
    ap.add_argument("--max-ulp", type=float, help="max error in bf16 ulps on bf16 taps (fp32: 1)")
    ap.add_argument("--min-agree", type=float, help="confident-pixel agreement on mask taps (lowp: 0.999)")
    ap.add_argument("--iou-margin", type=float, help="mask IoU may be this much below --base's (lowp: 0.01)")
    ap.add_argument("--min-iou", type=float, help="absolute minimum mask IoU")
    ap.add_argument("--conf", type=float, default=0.5, help="confident pixel: |ref logit| > this")
    ap.add_argument("--no-threshold", action="store_true", help="report only; never exit 1")
    ap.add_argument("--only", default="", help="comma-separated name patterns of taps to compare ('*' within one "
                    "dotted part, '**' across parts)")
    ap.add_argument("--skip", default="", help="comma-separated name patterns of taps to leave out")
    a = ap.parse_args(argv)

    th = dict(PRESETS[a.preset])
    for k in th:
        if getattr(a, k) is not None:
            th[k] = getattr(a, k)
    if a.no_threshold:
        th = {k: None for k in th}
    try:
        ref, rmeta = taps_io.read(a.ref)
        test, tmeta = taps_io.read(a.test)
        base = taps_io.read(a.base)[0] if a.base else None
    except (OSError, taps_io.SafetensorsError) as e:
        print(f"compare_taps: {e}", file=sys.stderr)
        return 2
    for k in META_KEYS:
        if k in rmeta and k in tmeta and rmeta[k] != tmeta[k]:
            if k == "num_frames" and all(v.isdigit() and int(v) >= 16 for v in (rmeta[k], tmeta[k])):
                continue  # the pointer normaliser min(num_frames, 16) - 1 is the same
            print(f"WARNING: metadata '{k}' differs: ref {rmeta[k]!r} vs test {tmeta[k]!r}")
    print(f"ref : {a.ref} ({rmeta.get('producer', '?')}, {rmeta.get('model', '?')}, {rmeta.get('precision', '?')})")
    print(f"test: {a.test} ({tmeta.get('producer', '?')}, {tmeta.get('model', '?')}, {tmeta.get('precision', '?')})")
    if a.base:
        print(f"base: {a.base}")
    print("thresholds:", ", ".join(f"{k}={v}" for k, v in th.items() if v is not None) or "none")

    split = lambda s: [p for p in s.split(",") if p]
    rows, only_ref, only_test = compare(ref, test, base, th, a.conf, split(a.only), split(a.skip))
    if rows:
        print_table(rows)
    if only_ref:
        print(f"only in ref ({len(only_ref)}): {', '.join(only_ref)}")
    if only_test:
        print(f"only in test ({len(only_test)}): {', '.join(only_test)}")
    failed = [r["name"] for r in rows if r["fail"]]
    print(f"compare_taps: {len(rows)} compared, {len(rows) - len(failed)} ok, {len(failed)} failed, "
          f"{len(only_ref) + len(only_test)} on one side only")
    if not rows:
        print("compare_taps: no tap in common", file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Compares samrt's memory-policy decisions (the SAMRT_TRACK_DECISIONS file of `samrt track`)
with an official run's (policy_reference.py's JSON lines), frame by frame for one object: the
kept candidate (1..3), the memory frames attended to and, where the official lines carry it
(--policy dam4sam), whether the frame was added to the distractor-resolving memory (DRM: its
"drm" against samrt's admission field; samrt's -1, no decision ran, is no addition). Prints one
summary line; exit 0 when every compared frame agrees, 1 otherwise (the first mismatches are
listed).
  python3 tests/parity/compare_decisions.py --samrt decisions.txt --ref ref.jsonl [--obj 1] [--label L]
Self-test: tests/parity/test_compare_decisions.py.
"""
import argparse, json, sys


def read_samrt(lines, obj):
    """The object's rows of a SAMRT_TRACK_DECISIONS file (an iterable of lines), by frame:
    index, admit (the admission field; dam4sam: the DRM addition) and mem."""
    rows = {}
    for line in lines:
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        if int(f[1]) != obj:
            continue
        mem = [] if f[8] == "-" else [int(x) for x in f[8].split(",")]
        rows[int(f[0])] = {"index": int(f[3]), "admit": int(f[7]), "mem": mem}
    return rows


def compare(got, ref):
    """got: read_samrt's rows; ref: the official JSON objects. Returns (counts, bad): counts maps
    "index", "mem", "drm" to [equal, compared]; bad lists the mismatches."""
    counts = {"index": [0, 0], "mem": [0, 0], "drm": [0, 0]}
    bad = []
    for r in ref:
        g = got.get(r["frame"])
        if g is None:
            bad.append(f"frame {r['frame']}: missing in samrt's file")
            continue
        pairs = [("index", "index", g["index"], r.get("index")), ("mem", "memory", g["mem"], r.get("mem")),
                 ("drm", "DRM add", int(g["admit"] > 0), r.get("drm"))]
        for key, name, mine, theirs in pairs:
            if key not in r:
                continue
            counts[key][1] += 1
            counts[key][0] += mine == theirs
            if mine != theirs:
                bad.append(f"frame {r['frame']}: {name} samrt {mine} official {theirs}")
    return counts, bad


def summary(label, n_frames, counts):
    """The per-clip line; the DRM column only where the official lines had it."""
    c = counts
    s = (f"{label}: {n_frames} frames; mask index {c['index'][0]}/{c['index'][1]} equal; "
         f"memory frames {c['mem'][0]}/{c['mem'][1]} equal")
    if c["drm"][1]:
        s += f"; DRM add {c['drm'][0]}/{c['drm'][1]} equal"
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samrt", required=True)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--obj", type=int, default=1)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    with open(a.samrt) as f:
        got = read_samrt(f, a.obj)
    with open(a.ref) as f:
        ref = [json.loads(l) for l in f if l.strip()]
    counts, bad = compare(got, ref)
    print(summary(a.label, len(ref), counts))
    for b in bad[:10]:
        print("  " + b)
    sys.exit(0 if not bad else 1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Compares samrt's memory-policy decisions (the SAMRT_TRACK_DECISIONS file of `samrt track`)
with an official run's (policy_reference.py's JSON lines), frame by frame for one object: the
kept candidate (1..3) and the memory frames attended to. Prints one summary line; exit 0 when
every compared frame agrees, 1 otherwise (the first mismatches are listed).
  python3 tests/parity/compare_decisions.py --samrt decisions.txt --ref ref.jsonl [--obj 1] [--label L]
"""
import argparse, json, sys


def read_samrt(path, obj):
    rows = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        if int(f[1]) != obj:
            continue
        mem = [] if f[8] == "-" else [int(x) for x in f[8].split(",")]
        rows[int(f[0])] = {"index": int(f[3]), "mem": mem}
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samrt", required=True)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--obj", type=int, default=1)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    got = read_samrt(a.samrt, a.obj)
    ref = [json.loads(l) for l in open(a.ref) if l.strip()]
    n_idx = ok_idx = n_mem = ok_mem = 0
    bad = []
    for r in ref:
        g = got.get(r["frame"])
        if g is None:
            bad.append(f"frame {r['frame']}: missing in samrt's file")
            continue
        if "index" in r:
            n_idx += 1
            ok_idx += g["index"] == r["index"]
            if g["index"] != r["index"]:
                bad.append(f"frame {r['frame']}: index samrt {g['index']} official {r['index']}")
        if "mem" in r:
            n_mem += 1
            ok_mem += g["mem"] == r["mem"]
            if g["mem"] != r["mem"]:
                bad.append(f"frame {r['frame']}: memory samrt {g['mem']} official {r['mem']}")
    print(f"{a.label}: {len(ref)} frames; mask index {ok_idx}/{n_idx} equal; memory frames {ok_mem}/{n_mem} equal")
    for b in bad[:10]:
        print("  " + b)
    sys.exit(0 if not bad else 1)


if __name__ == "__main__":
    main()

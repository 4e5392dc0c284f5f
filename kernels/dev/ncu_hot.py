#!/usr/bin/env python3
"""ncu_hot.py - the hottest SASS instructions of one kernel from the CSV of an Nsight Compute
report's source page, with their top stall reasons: where the warps of a kernel wait.

    ncu --section SourceCounters --section WarpStateStats -k regex:NAME -c 1 -o prof <app>
    ncu -i prof.ncu-rep --page source --csv --print-source sass > src.csv
    python3 kernels/dev/ncu_hot.py src.csv [N]
"""
import csv
import sys


def num(x):
    try:
        return float(str(x).replace(",", ""))
    except ValueError:
        return 0.0


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f)]
    hdr_i = next((i for i, r in enumerate(rows) if any("Source" == c.strip() for c in r)), None)
    if hdr_i is None:
        print("no header with a Source column; first lines:")
        for r in rows[:10]:
            print(",".join(r)[:200])
        return
    hdr = [c.strip() for c in rows[hdr_i]]
    body = [r for r in rows[hdr_i + 1:] if len(r) == len(hdr)]
    src = hdr.index("Source")
    samp = next((i for i, c in enumerate(hdr) if c.startswith("Warp Stall Sampling (All")), None)
    if samp is None:
        print("columns:", hdr)
        return
    reasons = [i for i, c in enumerate(hdr) if c.startswith("stall_") or "Stall" in c and i != samp
               and "Not-issued" not in c]
    total = sum(num(r[samp]) for r in body) or 1.0
    print(f"{len(body)} SASS lines, {total:.0f} samples; columns: {len(hdr)}")
    order = sorted(range(len(body)), key=lambda i: -num(body[i][samp]))
    for i in order[:top]:
        r = body[i]
        why = sorted(((num(r[j]), hdr[j]) for j in reasons), reverse=True)[:3]
        why = " ".join(f"{n.replace('stall_', '')}={v:.0f}" for v, n in why if v > 0)
        print(f"{i:5d} {100 * num(r[samp]) / total:5.1f}% {r[src].strip()[:70]:70s} {why}")


if __name__ == "__main__":
    main()

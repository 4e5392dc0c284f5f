#!/usr/bin/env python3
"""attn_table.py - one table from BENCH logs (test_attention_cuda --bench, sdpa_bench.py):
per shape the bf16 time of each op (first line per op and shape: the default split, no RoPE)
and each op's speed-up over SDPA.

    python3 kernels/dev/attn_table.py bench_base.log bench_new.log sdpa.log
"""
import re
import sys


def main():
    times, ops, shapes = {}, [], []
    pat = re.compile(r"BENCH op=(\S+) shape=([^:\s]+)\S* dtype=bf16 ms=([0-9.]+)(.*)")
    for path in sys.argv[1:]:
        try:
            lines = open(path).readlines()
        except OSError:
            continue
        for line in lines:
            m = pat.search(line)
            if not m or "rope=1" in m.group(4) or m.group(1) == "tile":
                continue  # RoPE variants and the tile sweep stay in the logs
            op, shape, ms = m.group(1), m.group(2), float(m.group(3))
            if op not in ops:
                ops.append(op)
            if shape not in shapes:
                shapes.append(shape)
            times.setdefault((op, shape), ms)
    print(f"{'shape':18s} " + " ".join(f"{op:>11s}" for op in ops) + "  " +
          " ".join(f"{'sdpa/' + op:>13s}" for op in ops if op.startswith(("new", "base"))))
    for s in shapes:
        row = " ".join(f"{times.get((op, s), float('nan')):11.4f}" for op in ops)
        sd = times.get(("sdpa", s))
        ratio = " ".join(f"{(sd / times[(op, s)] if sd and (op, s) in times else float('nan')):13.2f}"
                         for op in ops if op.startswith(("new", "base")))
        print(f"{s:18s} {row}  {ratio}")


if __name__ == "__main__":
    main()

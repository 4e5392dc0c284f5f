#!/usr/bin/env python3
"""error_table.py - folds the ERR lines that GPU tests print under SAMRT_TEST_ERRORS=1
(tools/gpu_suite.sh errors -> errors.txt) into one row per test and dtype: comparisons,
the largest max abs error and the largest max abs error / max |ref|.
  python3 kernels/dev/error_table.py errors.txt"""
import re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) ERR (.*?) \| n (\d+) \| max_abs (\S+) \| max_abs/max\|ref\| (\S+)", line)
    if not m:
        continue
    test, what, _, ab, rel = m.groups()
    dts = re.findall(r"\b(f32|f16|bf16)\b", what)
    dt = "->".join(dict.fromkeys(dts)) if dts else "-"
    key = (test.replace("test_", "").replace("_cuda", ""), dt)
    r = rows.setdefault(key, [0, 0.0, 0.0])
    r[0] += 1
    r[1] = max(r[1], float(ab))
    r[2] = max(r[2], float(rel))
print("| kernel | dtype | comparisons | max abs error | max abs error / max abs ref |")
print("|---|---|---:|---:|---:|")
for (k, dt), (n, ab, rel) in sorted(rows.items()):
    print(f"| {k} | {dt} | {n} | {ab:.3g} | {rel:.3g} |")

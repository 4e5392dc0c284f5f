#!/usr/bin/env python3
"""Self-test of compare_policy_masks.py on hand-made masks (numpy only; exit 77 without it):
IoU and agreement per frame, empty pairs, the fp32 bar (--min-iou), the low-precision bar
against the official bf16 masks (--margin), and missing or resized frames refused.
Run: python3 tests/parity/test_compare_policy_masks.py  (exit 0 = all passed)
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
try:
    import numpy as np
except ImportError:
    print("SKIPPED: no numpy")
    sys.exit(77)
import compare_policy_masks as cm  # noqa: E402

N_PASS, N_FAIL = 0, 0


def check(cond, what):
    global N_PASS, N_FAIL
    if cond:
        N_PASS += 1
    else:
        N_FAIL += 1
        print("FAIL:", what)


def box(x0, y0, x1, y1, h=10, w=10):
    m = np.zeros((h, w), bool)
    m[y0:y1, x0:x1] = True
    return m


ref = {"00000": box(0, 0, 4, 4), "00001": box(2, 2, 6, 6), "00002": np.zeros((10, 10), bool)}
# frame 1 shifted by one column: intersection 12, union 20 -> IoU 0.6
test = {"00000": box(0, 0, 4, 4), "00001": box(3, 2, 7, 6), "00002": np.zeros((10, 10), bool)}
rows = cm.compare(ref, test)
check([r[0] for r in rows] == ["00000", "00001", "00002"], "frames in stem order")
check(rows[0][1] == 1.0 and rows[0][2] == 1.0 and rows[0][4], "equal masks: IoU 1, agreement 1, pass")
check(abs(rows[1][1] - 0.6) < 1e-12, "shifted box IoU 12/20 = %r" % rows[1][1])
check(abs(rows[1][2] - 0.92) < 1e-12, "shifted box agreement 92/100 = %r" % rows[1][2])
check(not rows[1][4], "IoU 0.6 fails the fp32 bar 0.99")
check(rows[2][1] == 1.0 and rows[2][4], "two empty masks: IoU 1")
check(all(r[4] for r in cm.compare(ref, test, min_iou=0.5)), "--min-iou 0.5 passes all")
# low precision: the official bf16 run also moved frame 1 (IoU 0.6): within the margin
base = {"00000": box(0, 0, 4, 4), "00001": box(1, 2, 5, 6), "00002": np.zeros((10, 10), bool)}
rows = cm.compare(ref, test, base=base)
check(all(r[4] for r in rows), "bf16 bar: samrt IoU 0.6 against the official bf16's 0.6 passes")
check(rows[1][3] is not None and abs(rows[1][3] - 0.6) < 1e-12, "base IoU reported")
worse = dict(test, **{"00001": box(4, 2, 8, 6)})  # intersection 8, union 24 -> 1/3
rows = cm.compare(ref, worse, base=base)
check(not rows[1][4] and rows[0][4], "bf16 bar: IoU 1/3 against the official bf16's 0.6 fails, only that frame")
line = cm.summary(rows, "L")
check(line.startswith("L: 3 frames;") and "2/3 frames within the bar" in line and "official bf16 IoU min" in line,
      "summary line: " + line)
for bad, what in (({"00000": ref["00000"], "00001": ref["00001"]}, "missing"),
                  (dict(ref, **{"00002": np.zeros((5, 5), bool)}), "size")):
    try:
        cm.compare(ref, bad)
        check(False, "a %s frame is refused" % what)
    except ValueError as e:
        check("00002" in str(e), "the refusal names the frame (%s): %s" % (what, e))
print("test_compare_policy_masks: %d passed, %d failed" % (N_PASS, N_FAIL))
sys.exit(1 if N_FAIL else 0)

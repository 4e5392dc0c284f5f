#!/usr/bin/env python3
"""Self-test of compare_policy_masks.py on hand-made masks (numpy only; exit 77 without it):
IoU and agreement per frame, empty pairs, the fp32 bar (--min-iou), the low-precision bar
against the official bf16 masks (--margin), and missing or resized frames refused.
Run: python3 tests/parity/test_compare_policy_masks.py  (exit 0 = all passed)
"""
import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import numpy as np
except ImportError:
    print("test_compare_policy_masks: SKIPPED: numpy is not installed")
    sys.exit(77)
import compare_policy_masks as cm  # noqa: E402


def box(x0, y0, x1, y1, h=10, w=10):
    m = np.zeros((h, w), bool)
    m[y0:y1, x0:x1] = True
    return m


EMPTY = np.zeros((10, 10), bool)
REF = {"00000": box(0, 0, 4, 4), "00001": box(2, 2, 6, 6), "00002": EMPTY}
# frame 1 shifted by one column: intersection 12, union 20 -> IoU 0.6, 8 pixels differ
TEST = {"00000": box(0, 0, 4, 4), "00001": box(3, 2, 7, 6), "00002": EMPTY}
# the official bf16 run moved frame 1 as far the other way (IoU 0.6)
BASE = {"00000": box(0, 0, 4, 4), "00001": box(1, 2, 5, 6), "00002": EMPTY}


class ComparePolicyMasks(unittest.TestCase):
    def test_per_frame(self):
        rows = cm.compare(REF, TEST)
        self.assertEqual([r[0] for r in rows], ["00000", "00001", "00002"])
        self.assertEqual(rows[0][1:3] + (rows[0][4],), (1.0, 1.0, True))
        self.assertAlmostEqual(rows[1][1], 0.6, places=12)
        self.assertAlmostEqual(rows[1][2], 0.92, places=12)
        self.assertFalse(rows[1][4])  # 0.6 is below the fp32 bar 0.99
        self.assertEqual(rows[2][1], 1.0)  # two empty masks
        self.assertTrue(rows[2][4])
        self.assertTrue(all(r[4] for r in cm.compare(REF, TEST, min_iou=0.5)))

    def test_low_precision_bar(self):
        rows = cm.compare(REF, TEST, base=BASE)
        self.assertTrue(all(r[4] for r in rows))  # 0.6 against the official bf16's 0.6
        self.assertAlmostEqual(rows[1][3], 0.6, places=12)
        worse = dict(TEST, **{"00001": box(4, 2, 8, 6)})  # intersection 8, union 24 -> 1/3
        rows = cm.compare(REF, worse, base=BASE)
        self.assertEqual([r[4] for r in rows], [True, False, True])
        line = cm.summary(rows, "L")
        self.assertTrue(line.startswith("L: 3 frames;"), line)
        self.assertIn("2/3 frames within the bar", line)
        self.assertIn("official bf16 IoU min", line)

    def test_refusals_name_the_frame(self):
        for bad in ({"00000": REF["00000"], "00001": REF["00001"]}, dict(REF, **{"00002": np.zeros((5, 5), bool)})):
            with self.assertRaises(ValueError) as e:
                cm.compare(REF, bad)
            self.assertIn("00002", str(e.exception))


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False, verbosity=1).result.wasSuccessful() else 1)

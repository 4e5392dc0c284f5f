#!/usr/bin/env python3
"""Self-test of compare_decisions.py (samrt's SAMRT_TRACK_DECISIONS lines against the official
policy_reference.py JSON lines) on hand-made lines, standard library only: the mask index, the
memory frames and the DAM4SAM DRM-add column (samrt's admission field, -1 = no addition), the
summary line, and the exit status of the script (a DRM mismatch alone fails it).
Run: python3 tests/parity/test_compare_decisions.py  (exit 0 = all passed)
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_decisions as cd  # noqa: E402

HEADER = "# frame obj policy index iou score kf_iou admit memory_frames\n"
# frame 0 is the prompt (no decision ran), frames 1-3 tracked; object 2's lines are noise
SAMRT = [HEADER,
         "0 1 dam4sam -1 0.000000 0.000000 -1.000000 -1 -\n",
         "1 1 dam4sam 2 0.910000 0.500000 0.800000 0 0\n",
         "1 2 dam4sam 3 0.100000 0.100000 -1.000000 1 0\n",
         "2 1 dam4sam 1 0.870000 0.400000 0.300000 1 0,1\n",
         "3 1 dam4sam 1 0.850000 0.300000 -1.000000 -1 0,2,1\n"]
REF = [{"frame": 1, "index": 2, "mem": [0], "drm": 0},
       {"frame": 2, "index": 1, "mem": [0, 1], "drm": 1},
       {"frame": 3, "index": 1, "mem": [0, 2, 1], "drm": 0}]


class CompareDecisions(unittest.TestCase):
    def test_read(self):
        rows = cd.read_samrt(SAMRT, 1)
        self.assertEqual(sorted(rows), [0, 1, 2, 3])
        self.assertEqual(rows[2], {"index": 1, "admit": 1, "mem": [0, 1]})
        self.assertEqual((rows[0]["mem"], rows[0]["admit"]), ([], -1))
        self.assertEqual(cd.read_samrt(SAMRT, 2)[1]["index"], 3)  # object 2 read on its own

    def test_equal(self):
        counts, bad = cd.compare(cd.read_samrt(SAMRT, 1), REF)
        self.assertEqual(counts, {"index": [3, 3], "mem": [3, 3], "drm": [3, 3]})
        self.assertEqual(bad, [])  # frame 3: samrt's -1 (no decision) is no addition
        self.assertEqual(cd.summary("tiny dam4sam synth", len(REF), counts),
                         "tiny dam4sam synth: 3 frames; mask index 3/3 equal; memory frames 3/3 equal; "
                         "DRM add 3/3 equal")

    def test_drm_mismatch(self):
        ref = [dict(r) for r in REF]
        ref[0]["drm"] = 1  # official added frame 1, samrt did not
        ref[1]["drm"] = 0  # and the other way round on frame 2
        counts, bad = cd.compare(cd.read_samrt(SAMRT, 1), ref)
        self.assertEqual(counts, {"index": [3, 3], "mem": [3, 3], "drm": [1, 3]})
        self.assertEqual(bad, ["frame 1: DRM add samrt 0 official 1", "frame 2: DRM add samrt 1 official 0"])
        self.assertTrue(cd.summary("L", 3, counts).endswith("; DRM add 1/3 equal"))

    def test_samurai_lines(self):
        """Official lines without "drm" (samurai): no DRM column, the admission is not compared."""
        ref = [{k: v for k, v in r.items() if k != "drm"} for r in REF] + [{"frame": 4, "index": 1}]
        counts, bad = cd.compare(cd.read_samrt(SAMRT, 1), ref)
        self.assertEqual(counts["drm"], [0, 0])
        self.assertEqual(bad, ["frame 4: missing in samrt's file"])
        self.assertNotIn("DRM", cd.summary("L", 4, counts))
        counts, _ = cd.compare(cd.read_samrt(SAMRT, 1), [{"frame": 2, "index": 2, "mem": [1, 0]}])
        self.assertEqual(counts, {"index": [0, 1], "mem": [0, 1], "drm": [0, 0]})

    def test_exit_status(self):
        """The script fails on a DRM mismatch alone and passes when everything agrees."""
        with tempfile.TemporaryDirectory() as d:
            samrt = os.path.join(d, "samrt.txt")
            with open(samrt, "w") as f:
                f.writelines(SAMRT)
            for name, drm2, want_rc, want in (("equal", 1, 0, "DRM add 3/3 equal"),
                                              ("drm", 0, 1, "DRM add 2/3 equal")):
                ref = os.path.join(d, name + ".jsonl")
                with open(ref, "w") as f:
                    for r in REF:
                        f.write(json.dumps({**r, "drm": drm2} if r["frame"] == 2 else r) + "\n")
                p = subprocess.run([sys.executable, os.path.join(HERE, "compare_decisions.py"), "--samrt", samrt,
                                    "--ref", ref, "--label", name], capture_output=True, text=True)
                self.assertEqual(p.returncode, want_rc, p.stdout + p.stderr)
                self.assertIn(want, p.stdout)


if __name__ == "__main__":
    unittest.main()

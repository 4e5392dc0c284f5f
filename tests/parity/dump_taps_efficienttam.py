#!/usr/bin/env python3
"""dump_taps.py for the EfficientTAM variants: the same taps, options and output, with the
official model built by tests/parity/efftam_reference.py from yformer/EfficientTAM's package
(default .carry/efftamref, passed to dump_taps.py as its --pkg-sam2; docs/parity.md).
    python3 tests/parity/dump_taps_efficienttam.py --model efficienttam_ti_2 --frames-to-track 8 ...
Models: efficienttam_{ti,ti_1,ti_2,ti_512x512,s,s_1,s_2,s_512x512}.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import dump_taps  # noqa: E402

VARIANTS = ["ti", "ti_1", "ti_2", "ti_512x512", "s", "s_1", "s_2", "s_512x512"]


def main():
    dump_taps.MODELS.clear()  # --save-all-ckpts then writes the EfficientTAM variants only
    for v in VARIANTS:
        dump_taps.MODELS[f"efficienttam_{v}"] = (
            "efficienttam", f"efficient_track_anything/configs/efficienttam/efficienttam_{v}.yaml")
    argv = sys.argv[1:]
    if "--official-ref" not in argv:
        argv = ["--official-ref", os.path.join(HERE, "efftam_reference.py")] + argv
    if "--pkg-sam2" not in argv:
        argv = ["--pkg-sam2", os.path.join(ROOT, ".carry/efftamref")] + argv
    sys.argv = [os.path.join(HERE, "dump_taps.py")] + argv
    return dump_taps.main()


if __name__ == "__main__":
    sys.exit(main())

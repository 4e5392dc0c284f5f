#!/usr/bin/env python3
"""official_reference.py's main with the EdgeTAM batch patch applied (edgetam_batch_patch.py),
so that the official EdgeTAM predictor can be timed with several objects (it fails for more
than one otherwise). Takes exactly official_reference.py's command line; the reference script
is .carry/official_reference.py, or $OFFICIAL_REF. For SAM 2.1 packages the patch does nothing.
  python3 tests/parity/official_speed.py --pkg .carry/edgetamref \\
      --cfg .carry/edgetamref/sam2/configs/edgetam.yaml --frames .carry/bedroom --label edgetam.3obj \\
      --settings vos_inference --gate-open --points "210,350;600,250;800,420"
A --pkg that holds yformer/EfficientTAM's efficient_track_anything/ package (.carry/efftamref)
times the official EfficientTAMVideoPredictor instead: the same main, with the model built by
tests/parity/efftam_reference.py (the variant's YAML through the package's own hydra, the modules'
seeded weights or --ckpt; --vos and --init do not apply to it):
  python3 tests/parity/official_speed.py --pkg .carry/efftamref \\
      --cfg .carry/efftamref/efficient_track_anything/configs/efficienttam/efficienttam_ti_2.yaml \\
      --frames .carry/bedroom --label efficienttam_ti_2.1obj --settings vos_inference --gate-open
"""
import argparse
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, HERE)
import edgetam_batch_patch  # noqa: E402
import efftam_reference  # noqa: E402


def is_efficienttam(pkg):
    """True when pkg holds yformer/EfficientTAM's package (efficient_track_anything/)."""
    return os.path.isdir(os.path.join(pkg, "efficient_track_anything"))


def main():
    path = os.environ.get("OFFICIAL_REF", os.path.join(ROOT, ".carry/official_reference.py"))
    spec = importlib.util.spec_from_file_location("official_reference", path)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    pkg = argparse.ArgumentParser(add_help=False)
    pkg.add_argument("--pkg")
    known, _ = pkg.parse_known_args()
    if known.pkg and is_efficienttam(known.pkg):  # its own build and the real hydra (no stubs)
        ref.build = efftam_reference.build
        ref.stub_modules = efftam_reference.stub_modules
        print("official_speed: EfficientTAM package, efftam_reference.build", file=sys.stderr)
    elif known.pkg:  # import the package as main() will (stubs, then the path) and patch its class
        ref.stub_modules()
        sys.path.insert(0, known.pkg)
        print(f"official_speed: perceiver batch patch {'on' if edgetam_batch_patch.apply() else 'not needed'}",
              file=sys.stderr)
    return ref.main()


if __name__ == "__main__":
    sys.exit(main())

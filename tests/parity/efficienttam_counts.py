#!/usr/bin/env python3
"""Build every EfficientTAM variant with the official code (yformer/EfficientTAM's package
efficient_track_anything, carried as .carry/efftamref: docs/parity.md) on seeded weights and
print its parameter count and state_dict key list, the numbers samrt derives in
models/sam2/keys.c (Ti 17,866,018 and S 34,055,842 parameters, 455 keys each).

With --samrt PATH it also saves each state_dict as <out>/<official file name> (torch.save
{"model": state_dict}, as the official checkpoints are) and runs `samrt info --summary` on it,
so that the official count, samrt's count and samrt's variant choice are checked in one
command:
    python3 tests/parity/efficienttam_counts.py --samrt build/gpu/tools/samrt --out build/parity/efftam
Exit 0 when every count and key list agrees with samrt's expectation, 1 otherwise.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True

VARIANTS = ["ti", "ti_1", "ti_2", "ti_512x512", "s", "s_1", "s_2", "s_512x512"]
EXPECT = {"ti": 17866018, "s": 34055842}  # models/sam2/keys.c
EXPECT_KEYS = 455


def build(name, seed):
    import torch
    from hydra import compose
    from hydra.utils import instantiate
    from omegaconf import OmegaConf

    torch.manual_seed(seed)
    cfg = compose(config_name=f"configs/efficienttam/efficienttam_{name}.yaml",
                  overrides=["++model.compile_image_encoder=false"])
    OmegaConf.resolve(cfg)
    return instantiate(cfg.model, _recursive_=True).eval()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pkg", default=os.path.join(ROOT, ".carry/efftamref"),
                    help="folder holding yformer/EfficientTAM's efficient_track_anything/ package")
    ap.add_argument("--samrt", help="the samrt program: also save each state_dict and run samrt info on it")
    ap.add_argument("--out", default="build/parity/efftam", help="where --samrt writes the checkpoints")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keys", action="store_true", help="print every key with its shape")
    a = ap.parse_args()
    sys.path.insert(0, a.pkg)
    import torch
    import efficient_track_anything  # noqa: F401  (registers the hydra config module)

    ok = True
    for v in VARIANTS:
        model = build(v, a.seed)
        sd = model.state_dict()
        n_params = sum(p.numel() for p in model.parameters())
        want = EXPECT[v.split("_")[0]]
        good = n_params == want and len(sd) == EXPECT_KEYS
        ok &= good
        print(f"efficienttam_{v}: {n_params:,} parameters, {len(sd)} keys "
              f"(samrt: {want:,}, {EXPECT_KEYS}) {'ok' if good else 'DIFFERS'}")
        if a.keys:
            for k, t in sd.items():
                print(f"  {k} {tuple(t.shape)}")
        if a.samrt:
            os.makedirs(a.out, exist_ok=True)
            path = os.path.join(a.out, f"efficienttam_{v}.pt")
            torch.save({"model": sd}, path)
            r = subprocess.run([a.samrt, "info", path, "--summary"], capture_output=True, text=True)
            m = re.search(r"^model\s+(\S+) \(all (\d+) keys", r.stdout, re.M)
            p = re.search(r"^parameters\s+([\d,]+)", r.stdout, re.M)
            got = (m.group(1) if m else "?", int(p.group(1).replace(",", "")) if p else -1)
            same = r.returncode == 0 and got == (f"efficienttam_{v}", n_params)
            ok &= same
            print(f"  samrt info: {got[0]}, {got[1]:,} parameters {'ok' if same else 'DIFFERS'}")
            if not same:
                print(r.stdout + r.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

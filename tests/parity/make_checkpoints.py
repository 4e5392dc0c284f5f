#!/usr/bin/env python3
"""Writes real-size checkpoints of the official models for parity runs and for checking the C
key tables: each model is built by official_reference.build() from its official YAML with
seeded "realistic" random weights (init="realistic", logit_scale=8, seed 0), then saved as

  OUT/<name>.pt           torch.save({"model": state_dict}), as the official release files are
  OUT/<name>.safetensors  the same tensors (written with the standard library + numpy)
  OUT/manifest.json       per model: keys, torch's parameter count, float values, files

Needs torch, timm, numpy, yaml and a CUDA device (build() moves the model to the GPU). The
official sam2 and EdgeTAM packages both import as `sam2`, so each model is built in its own
Python process. With --samrt BIN, every file is then checked with
`BIN info --summary --model <name>`: it must exit 0 and print torch's parameter count.

  python3 tests/parity/make_checkpoints.py --ref .carry/official_reference.py \\
      --sam2-pkg .carry/sam2ref --edgetam-pkg .carry/edgetamref --out build/ckpts \\
      [--sam20] [--samrt build/gpu/tools/samrt]
"""
import argparse
import importlib.util
import json
import os
import re
import struct
import subprocess
import sys

# name -> (package, YAML inside the package)
MODELS = {
    "sam2.1_tiny": ("sam2", "sam2/configs/sam2.1/sam2.1_hiera_t.yaml"),
    "sam2.1_small": ("sam2", "sam2/configs/sam2.1/sam2.1_hiera_s.yaml"),
    "sam2.1_base_plus": ("sam2", "sam2/configs/sam2.1/sam2.1_hiera_b+.yaml"),
    "sam2.1_large": ("sam2", "sam2/configs/sam2.1/sam2.1_hiera_l.yaml"),
    "edgetam": ("edgetam", "sam2/configs/edgetam.yaml"),
}
SAM20 = {
    "sam2_tiny": ("sam2", "sam2/configs/sam2/sam2_hiera_t.yaml"),
    "sam2_small": ("sam2", "sam2/configs/sam2/sam2_hiera_s.yaml"),
    "sam2_base_plus": ("sam2", "sam2/configs/sam2/sam2_hiera_b+.yaml"),
    "sam2_large": ("sam2", "sam2/configs/sam2/sam2_hiera_l.yaml"),
}


def write_safetensors(sd, path):
    """safetensors layout: u64 header length, JSON header padded with spaces to 8 bytes, data."""
    import torch
    names = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.int64: "I64",
             torch.int32: "I32", torch.uint8: "U8"}
    header, tensors, off = {"__metadata__": {"format": "pt"}}, [], 0
    for k, v in sd.items():
        v = v.detach().cpu().contiguous()
        n = v.numel() * v.element_size()
        header[k] = {"dtype": names[v.dtype], "shape": list(v.shape), "data_offsets": [off, off + n]}
        tensors.append(v)
        off += n
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for v in tensors:  # numpy has no bfloat16: write every tensor's raw bytes through uint8
            f.write(v.reshape(-1).view(torch.uint8).numpy().tobytes())


def build_one(a, name):
    kind, cfg = {**MODELS, **SAM20}[name]
    pkg = os.path.abspath(a.sam2_pkg if kind == "sam2" else a.edgetam_pkg)
    spec = importlib.util.spec_from_file_location("official_reference", a.ref)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    ref.stub_modules()
    sys.path.insert(0, pkg)
    import torch
    model = ref.build(os.path.join(pkg, cfg), seed=a.seed, init="realistic", logit_scale=a.logit_scale)
    sd = model.state_dict()
    pt = os.path.join(a.out, name + ".pt")
    st = os.path.join(a.out, name + ".safetensors")
    torch.save({"model": sd}, pt)
    write_safetensors(sd, st)
    info = {
        "name": name, "config": cfg, "seed": a.seed, "init": "realistic", "logit_scale": a.logit_scale,
        "keys": len(sd),
        "parameters": sum(p.numel() for p in model.parameters()),
        "float_values": sum(v.numel() for v in sd.values() if v.is_floating_point()),
        "buffers": [k for k, _ in model.named_buffers() if k in sd],
        "files": [pt, st], "torch": torch.__version__,
    }
    print("MANIFEST " + json.dumps(info), flush=True)


def check_with_samrt(samrt, info):
    """samrt must recognise the model and report torch's parameter count, for both files."""
    ok = True
    for path in info["files"]:
        r = subprocess.run([samrt, "info", "--summary", "--model", info["name"], path], capture_output=True,
                           text=True)
        m = re.search(r"^parameters\s+([\d,]+)", r.stdout, re.M)
        got = int(m.group(1).replace(",", "")) if m else None
        good = r.returncode == 0 and got == info["parameters"]
        ok &= good
        print(f"  {'ok  ' if good else 'FAIL'} samrt info {os.path.basename(path)}: exit {r.returncode}, "
              f"parameters {got} (torch {info['parameters']})")
        if not good:
            print(r.stdout + r.stderr)
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ref", required=True, help="official_reference.py")
    ap.add_argument("--sam2-pkg", required=True, help="folder holding the sam2/ package of facebookresearch/sam2")
    ap.add_argument("--edgetam-pkg", required=True, help="folder holding the sam2/ package of facebookresearch/EdgeTAM")
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", help="comma-separated subset (default: the five supported models)")
    ap.add_argument("--sam20", action="store_true", help="also the four SAM 2.0 configs (configs/sam2)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--logit-scale", type=float, default=8.0)
    ap.add_argument("--samrt", help="samrt binary: check every written file with `samrt info --model`")
    ap.add_argument("--one", help=argparse.SUPPRESS)  # internal: build one model in this process
    a = ap.parse_args()
    a.ref = os.path.abspath(a.ref)
    os.makedirs(a.out, exist_ok=True)
    if a.one:
        build_one(a, a.one)
        return
    names = a.models.split(",") if a.models else list(MODELS) + (list(SAM20) if a.sam20 else [])
    manifest, ok = [], True
    for name in names:
        if name not in MODELS and name not in SAM20:
            sys.exit(f"unknown model {name}; known: {', '.join(list(MODELS) + list(SAM20))}")
        cmd = [sys.executable, os.path.abspath(__file__), "--ref", a.ref, "--sam2-pkg", a.sam2_pkg,
               "--edgetam-pkg", a.edgetam_pkg, "--out", a.out, "--seed", str(a.seed),
               "--logit-scale", str(a.logit_scale), "--one", name]
        r = subprocess.run(cmd, capture_output=True, text=True)
        lines = [l for l in r.stdout.splitlines() if l.startswith("MANIFEST ")]
        if r.returncode != 0 or not lines:
            print(r.stdout + r.stderr)
            sys.exit(f"building {name} failed")
        info = json.loads(lines[-1][len("MANIFEST "):])
        manifest.append(info)
        print(f"{name}: {info['keys']} keys, {info['parameters']:,} parameters, "
              f"{info['float_values']:,} float values ({len(info['buffers'])} buffers)", flush=True)
        if a.samrt:
            ok &= check_with_samrt(a.samrt, info)
    with open(os.path.join(a.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    if not ok:
        sys.exit("samrt disagreed with torch on at least one checkpoint (see FAIL above)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Dump inputs and outputs of the official SAM 2.1 memory encoder and memory attention (tiny,
seeded "realistic" random weights, fp32 on CPU) for tests/test_sam2_memory_parity.c; with
--model edgetam the same for EdgeTAM's memory path (memory encoder + spatial perceiver, the
2-layer RoPEAttentionv2 memory attention) for the same test built as test_edgetam_memory_parity.

The official modules run at a reduced model side (256: a 16x16 feature grid) so that the C
reference backend checks them in seconds; both modules are size-generic (RoPE tables are rebuilt
for the 16x16 grid by RoPEAttention itself, the position encodings follow the map size).

What is dumped (one safetensors file, taps_io layout):
  - every memory_encoder.*, memory_attention.* tensor, maskmem_tpos_enc, no_obj_embed_spatial,
    obj_ptr_tpos_proj.* under its official name (F32);
  - memenc.<k>.*: two objects (one present, one absent: gated logits -1024, score <= 0),
    k = sigmoid (tracked frames) or binarize (prompted frames, notebook switch):
      vision (1,N,256), low_res (2,1,64,64), score (2,1) inputs;
      out (2,N,64) BF16 = maskmem_features channels-last after the predictor's bf16 cast;
  - memattn.<c>.*: official _prepare_memory_conditioned_features for a tracked frame with a
    fake bank (conditioning frame 0, non-conditioning frames before t), c = three (frame, video
    length) cases that give 1, 3 and 7 spatial memories with 1, 3 and 10 pointers:
      curr (1,N,256), curr_pos (1,N,256), mem (S,N,64) BF16 in the official memory order,
      tpos_idx (S) I32, ptr (P,256) F32 and ptr_dist (P) I32 in the official pointer order,
      max_ptr (1) I32, out (1,N,256) = pix_feat_with_mem channels-last.
    The script rebuilds the memory / memory_pos the official code concatenates from those
    values and asserts equality with what memory_attention actually received (a forward
    pre-hook), so tpos_idx / ptr_dist are checked, not assumed.
EdgeTAM (--model edgetam): memories are the perceiver's (512, 64) tokens (mem (S,512,64)),
memenc.<k>.out is (2,512,64) and memenc.<k>.pos the perceiver's position (2,512,64); the
pointer positions are zero (no obj_ptr_tpos_proj). RoPEAttentionv2 keeps the query table it was
built with (q_sizes 64x64), so at the dump's 16x16 grid the script rebuilds that table for
16x16, as RoPEAttention does by itself (the key table stays 16x16 at every side). Plus
memenc.perceiver.{x (1,4096,64), out (1,512,64)}: the perceiver alone at the real side 1024
(4x4-pixel windows), its input x random and pos the memory encoder's 64x64 sine PE.

Run (needs torch, and timm for EdgeTAM; under a minute on 2 cores):
  python3 tests/parity/dump_memory_modules.py --out build/parity/memory_modules.safetensors
  python3 tests/parity/dump_memory_modules.py --model edgetam --out build/parity/edgetam_memory.safetensors
then: ctest --preset cpu -R 'test_sam2_memory_parity|test_edgetam_memory_parity' (each skips
when its file is absent).
"""
import argparse
import importlib.util
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import taps_io  # noqa: E402

SIDE = 256          # model side of the dump: g = 16
CFG = {"sam2.1_tiny": "sam2/configs/sam2.1/sam2.1_hiera_t.yaml", "edgetam": "sam2/configs/edgetam.yaml"}


def build(a):
    import torch
    spec = importlib.util.spec_from_file_location("official_reference", a.official_ref)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    ref.stub_modules()
    pkg = a.pkg_edgetam if a.model == "edgetam" else a.pkg_sam2
    sys.path.insert(0, os.path.abspath(pkg))
    restore = torch.nn.Module.cuda
    torch.nn.Module.cuda = lambda self, *args, **kw: self  # build() ends in .cuda()
    try:
        model = ref.build(os.path.join(pkg, CFG[a.model]), seed=a.seed, settings="vos_inference",
                          init="realistic", logit_scale=8.0)
    finally:
        torch.nn.Module.cuda = restore
    return model.float().eval()


def tokens(x):
    """(B,C,H,W) -> (B,H*W,C) float32 numpy, channels-last; (B,N,C) tokens as they are."""
    if x.dim() == 3:
        return x.detach().contiguous().numpy().astype(np.float32)
    return x.detach().flatten(2).permute(0, 2, 1).contiguous().numpy().astype(np.float32)


def as_tokens(x):
    """Memory features or pos as the official code concatenates them, (N,B,C)."""
    return x.permute(1, 0, 2) if x.dim() == 3 else x.flatten(2).permute(2, 0, 1)


def bf16_tokens(x):
    import torch
    return taps_io.Bf16Bits(tokens(x.to(torch.bfloat16).float()).view(np.uint32) >> 16)


def memenc_cases(model, g, out):
    import torch
    import torch.nn.functional as F
    n = g * g
    vision = torch.randn(1, 256, g, g)
    low = torch.randn(2, 1, 4 * g, 4 * g) * 6.0
    low[1] = -1024.0  # absent object: gated logits
    score = torch.tensor([[2.5], [-1.5]])
    high = F.interpolate(low, size=(SIDE, SIDE), mode="bilinear", align_corners=False)
    feats = [vision.flatten(2).permute(2, 0, 1).expand(n, 2, 256)]
    for name, binarize in (("sigmoid", False), ("binarize", True)):
        model.binarize_mask_from_pts_for_mem_enc = binarize
        with torch.no_grad():
            if getattr(model, "spatial_perceiver", None) is None:
                mf, mpos = model._encode_new_memory(feats, [(g, g)], high, score, is_mask_from_pts=True)
            else:  # the official perceiver's window pass only works for batch 1 (a view of an expand)
                per = [model._encode_new_memory([f[:, b:b + 1] for f in feats], [(g, g)], high[b:b + 1],
                                                score[b:b + 1], is_mask_from_pts=True) for b in range(2)]
                mf = torch.cat([p[0] for p in per])
                mpos = [torch.cat([p[1][0] for p in per])]
        if mf.dim() == 3:  # EdgeTAM: the perceiver's tokens and their position
            out[f"memenc.{name}.pos"] = tokens(mpos[0])
        out[f"memenc.{name}.vision"] = tokens(vision)
        out[f"memenc.{name}.low_res"] = low.numpy()
        out[f"memenc.{name}.score"] = score.numpy()
        out[f"memenc.{name}.out"] = bf16_tokens(mf)
    model.binarize_mask_from_pts_for_mem_enc = False


def perceiver_case(model, out):
    """The perceiver alone at the real side 1024 (g 64, 4x4-pixel windows)."""
    import torch
    x = torch.randn(1, 64, 64, 64)
    pos = model.memory_encoder.position_encoding(x)
    with torch.no_grad():
        lat, _ = model.spatial_perceiver(x, pos)
    out["memenc.perceiver.x"] = tokens(x)
    out["memenc.perceiver.out"] = tokens(lat)


def memattn_case(model, g, name, t, num_frames, out):
    import torch
    n = g * g
    edgetam = getattr(model, "spatial_perceiver", None) is not None
    pos = model.memory_encoder.position_encoding(torch.zeros(1, 64, g, g))
    if edgetam:  # the perceiver's constant position: zeros, then the 16x16 sine PE
        with torch.no_grad():
            _, pos = model.spatial_perceiver(torch.zeros(1, 64, g, g), pos)

    def entry():
        feat = torch.randn(*pos.shape).to(torch.bfloat16)
        return {"maskmem_features": feat, "maskmem_pos_enc": [pos], "obj_ptr": torch.randn(1, 256)}

    cond = {0: entry()}
    non_cond = {f: entry() for f in range(1, t)}
    # the official order and indices (model-spec 4.3, 4.4), checked against the hook below
    mems, idx = [cond[0]], [6]
    for t_pos in range(1, 7):
        f = t - (7 - t_pos)
        if f in non_cond:
            mems.append(non_cond[f])
            idx.append(7 - t_pos - 1)
    max_ptr = min(num_frames, 16)
    ptrs, dist = [cond[0]["obj_ptr"]], [t]
    for d in range(1, max_ptr):
        if t - d < 0:
            break
        if t - d in non_cond:
            ptrs.append(non_cond[t - d]["obj_ptr"])
            dist.append(d)
    seen = {}
    hook = model.memory_attention.register_forward_pre_hook(
        lambda m, args, kw: seen.update(kw), with_kwargs=True)
    curr = torch.randn(n, 1, 256)
    curr_pos = torch.randn(n, 1, 256)
    with torch.no_grad():
        pix = model._prepare_memory_conditioned_features(
            frame_idx=t, is_init_cond_frame=False, current_vision_feats=[curr],
            current_vision_pos_embeds=[curr_pos], feat_sizes=[(g, g)],
            output_dict={"cond_frame_outputs": cond, "non_cond_frame_outputs": non_cond},
            num_frames=num_frames)
    hook.remove()
    # rebuild what the official code concatenated and compare
    mem = torch.cat([as_tokens(m["maskmem_features"].float()) for m in mems]
                    + [torch.stack(ptrs).reshape(-1, 1, 4, 64).permute(0, 2, 1, 3).flatten(0, 1)])
    assert torch.equal(mem, seen["memory"]), name
    assert seen["num_obj_ptr_tokens"] == 4 * len(ptrs), name
    if edgetam:
        assert seen["num_spatial_mem"] == len(mems), name
    tp = model.maskmem_tpos_enc
    with torch.no_grad():
        from sam2.modeling.sam2_utils import get_1d_sine_pe
        if edgetam:  # no temporal encoding on pointers
            pp = torch.zeros(len(dist), 64)
        else:
            pp = model.obj_ptr_tpos_proj(get_1d_sine_pe(torch.tensor(dist) / (max_ptr - 1), dim=256))
        mpos = torch.cat([(as_tokens(pos) + tp[i]) for i in idx]
                         + [pp.unsqueeze(1).repeat_interleave(4, dim=0)])
    assert torch.equal(mpos, seen["memory_pos"]), name
    out[f"memattn.{name}.curr"] = curr.permute(1, 0, 2).contiguous().numpy()
    out[f"memattn.{name}.curr_pos"] = curr_pos.permute(1, 0, 2).contiguous().numpy()
    out[f"memattn.{name}.mem"] = taps_io.Bf16Bits(np.concatenate(
        [tokens(m["maskmem_features"].float()) for m in mems]).view(np.uint32) >> 16)
    out[f"memattn.{name}.tpos_idx"] = np.array(idx, dtype=np.int32)
    out[f"memattn.{name}.ptr"] = torch.cat(ptrs).numpy()
    out[f"memattn.{name}.ptr_dist"] = np.array(dist, dtype=np.int32)
    out[f"memattn.{name}.max_ptr"] = np.array([max_ptr], dtype=np.int32)
    out[f"memattn.{name}.out"] = tokens(pix)
    return len(mems), len(ptrs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "build/parity/memory_modules.safetensors"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--official-ref", default=os.path.join(ROOT, ".carry/official_reference.py"))
    ap.add_argument("--pkg-sam2", default=os.path.join(ROOT, ".carry/sam2ref"),
                    help="folder holding facebookresearch/sam2's sam2/ package")
    ap.add_argument("--pkg-edgetam", default=os.path.join(ROOT, ".carry/edgetamref"),
                    help="folder holding facebookresearch/EdgeTAM's sam2/ package")
    ap.add_argument("--model", choices=sorted(CFG), default="sam2.1_tiny")
    a = ap.parse_args()
    import torch
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    model = build(a)
    torch.manual_seed(a.seed + 100)
    g = SIDE // 16
    out = {}
    keep = ("memory_encoder.", "memory_attention.", "maskmem_tpos_enc", "no_obj_embed_spatial",
            "obj_ptr_tpos_proj.", "spatial_perceiver.")
    if a.model == "edgetam":
        # RoPEAttentionv2 does not rebuild its query table: make it the dump's g x g one
        for layer in model.memory_attention.layers:
            ca = layer.cross_attn_image
            ca.freqs_cis_q = ca.compute_cis(end_x=g, end_y=g)
        perceiver_case(model, out)
    for k, v in model.state_dict().items():
        if k.startswith(keep):
            out[k] = v.detach().float().contiguous().numpy()
    memenc_cases(model, g, out)
    counts = {}
    for name, t, frames in (("one", 1, 30), ("three", 3, 30), ("seven", 10, 12)):
        counts[name] = memattn_case(model, g, name, t, frames, out)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    nbytes = taps_io.write(a.out, out, {"side": SIDE, "seed": a.seed, "counts": counts})
    print(f"wrote {a.out} ({nbytes / 1e6:.1f} MB): memory attention cases {counts}")


if __name__ == "__main__":
    main()

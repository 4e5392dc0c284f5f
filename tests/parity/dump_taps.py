#!/usr/bin/env python3
"""Dump intermediate tensors ("taps") of the official SAM 2.1 / EdgeTAM video predictor.

Builds the official model (official_reference.build: YAML config, seeded "realistic" random
weights or --ckpt), runs the official VIDEO predictor on a JPEG folder (init_state, then
add_new_points_or_box on frame 0, optionally propagate_in_video), records the taps below with
forward hooks and writes them into ONE safetensors file (numpy + struct, see taps_io.py) that
compare_taps.py checks against a samrt dump in the same naming. Also writes the checkpoints the
C side loads (--ckpt-out, --save-all-ckpts). Needs torch, timm, numpy, PIL, yaml; no network.

Design choices:
- Hooks overwrite per name, so each tap holds the LAST call in its phase. That is the call that
  matters: init_state runs the image encoder on frame 0 once and add_new_points_or_box reuses
  the cached features, so the prompt-frame encoder taps come from init_state and the prompt /
  decoder / heads taps from add_new_points_or_box. During propagate_in_video the prefix switches
  to "frame.<t>." before each frame is computed, so the same hooks file tracked frames apart.
- Everything is stored as float32, except maskmem_features, kept as BF16 raw bits because the
  predictor itself rounds them to bfloat16 (a reference numerics step, model-spec 3.12/4.6).
- Only selected taps are copied off the device (--taps-subset), keeping files small.

TAP NAMES (shapes: sam2.1_tiny, one click, 1024x1024 input, 960x540 video; NCHW unless NHWC)
Prompt frame (frame 0), prefix "tap.":
  tap.input                    (1,3,1024,1024)  image_encoder input (pre-hook): normalised RGB
  tap.trunk.patch_embed        (1,256,256,96)   NHWC  trunk.patch_embed output (conv, no pos)   [Hiera]
  tap.trunk.embed              (1,256,256,96)   NHWC  trunk.blocks.0 input = patch + pos embed  [Hiera]
  tap.trunk.block.<i>          (1,H,W,C)        NHWC  trunk.blocks.<i> output                  [Hiera]
  tap.trunk.stem               (1,48,256,256)   trunk.body.stem output                         [EdgeTAM]
  tap.trunk.stage.<k>          (1,C,H,W)        trunk.body.stages_<k> output                   [EdgeTAM]
  tap.trunk.out.<k>            k=0..3: (1,96,256,256) (1,192,128,128) (1,384,64,64) (1,768,32,32)
                                                trunk output list, high resolution first
  tap.neck.feat.<i>, .pos.<i>  i=0..3: (1,256,256/2^i,256/2^i)  FpnNeck outputs (before scalp)
  tap.fpn.0                    (1,32,256,256)   sam_mask_decoder.conv_s0 output (high-res feat s0)
  tap.fpn.1                    (1,64,128,128)   sam_mask_decoder.conv_s1 output (high-res feat s1)
  tap.fpn.2, tap.fpn.pos.2     (1,256,64,64)    image_encoder vision_features / vision_pos_enc[-1]
  tap.prompt.coords            (1,N,2)          points given to sam_prompt_encoder (1024 frame,
  tap.prompt.labels            (1,N)            before the +0.5 shift and padding point); box = 2,3
  tap.prompt.sparse            (1,N+1,256)      sam_prompt_encoder output 0
  tap.prompt.dense             (1,256,64,64)    sam_prompt_encoder output 1
  tap.decoder.image_embed      (1,256,64,64)    sam_mask_decoder input image_embeddings
                                                (= fpn.2 + no_mem_embed here; memory-conditioned later)
  tap.decoder.image_pe         (1,256,64,64)    sam_mask_decoder input image_pe (dense PE)
  tap.decoder.hs, .src         (1,8,256), (1,4096,256)  sam_mask_decoder.transformer outputs
  tap.decoder.upscaled         (1,32,256,256)   sam_mask_decoder.output_upscaling[4] output
  tap.decoder.all_masks        (1,4,256,256)    predict_masks: all 4 mask logits before selection
  tap.decoder.all_iou          (1,4)            predict_masks: all 4 IoU predictions
  tap.decoder.all_tokens       (1,4,256)        predict_masks: the 4 mask token outputs
  tap.decoder.masks            (1,M,256,256)    sam_mask_decoder output 0 (M=3 multimask, 1 single)
  tap.decoder.iou              (1,M)            sam_mask_decoder output 1
  tap.decoder.sam_tokens       (1,M,256)        sam_mask_decoder output 2
  tap.decoder.object_score_logits (1,1)         sam_mask_decoder output 3
  tap.heads.low_res_multimasks (1,M,256,256)    _forward_sam_heads: after the object-score gate
  tap.heads.high_res_multimasks (1,M,1024,1024) _forward_sam_heads: bilinear to 1024
  tap.heads.ious               (1,M)
  tap.heads.low_res_masks      (1,1,256,256)    selected mask logits
  tap.heads.high_res_masks     (1,1,1024,1024)  selected mask, 1024
  tap.heads.obj_ptr            (1,256)          gated object pointer
  tap.heads.object_score_logits (1,1)
  tap.out.video_res_masks      (1,1,540,960)    mask logits returned by add_new_points_or_box
  tap.out.pred_masks           (1,1,256,256)    stored frame output (after hole filling, if on)
  tap.out.obj_ptr, tap.out.object_score_logits  stored frame output
Tracked frames (--frames-to-track N, t = 0..N; frame 0 is the stored prompt frame), prefix "frame.<t>.":
  frame.<t>.pred_masks         (1,1,256,256)    output_dict_per_obj[obj][...][t]["pred_masks"]
  frame.<t>.obj_ptr            (1,256)          ... ["obj_ptr"]
  frame.<t>.object_score_logits (1,1)           ... ["object_score_logits"]
  frame.<t>.maskmem_features   (1,64,64,64) BF16  ... ["maskmem_features"]; EdgeTAM (1,512,64)
  frame.<t>.video_res_masks    (1,1,540,960)    mask logits yielded by propagate_in_video
  frame.<t>.memattn.out        (4096,1,256)     memory_attention output (t >= 1)
  frame.<t>.memattn.memory, .memory_pos (L,1,64)  memory_attention inputs (L = 4096*S + 4*P)
  frame.<t>.memenc.in_mask     (1,1,1024,1024)  memory_encoder mask input (after sigmoid/binarise, *20-10)
  frame.<t>.memenc.features, .pos (1,64,64,64)  memory_encoder outputs (fp32, before no_obj_embed_spatial)
  frame.<t>.perceiver.features, .pos (1,512,64) spatial_perceiver outputs              [EdgeTAM]
  frame.<t>.<any tap.* name without "tap.">     the same hooks on tracked frames (t >= 1)
  mem.pos_enc                  (1,64,64,64)     maskmem_pos_enc, one copy (constant per model)
Several objects (--add OBJ:click:x,y / OBJ:box:x0,y0,x1,y1 on the same frame): the first five
frame taps above exist for every object, the others as obj<OBJ>.frame.<t>.*; video_res_masks is
the object's row of the yielded logits. The hook taps keep their names: tap.* is object 1's
prompt, frame.<t>.<hook> the last object run (SAM 2.1) or the batch (EdgeTAM, whose perceiver
runs a batch one sample at a time: edgetam_batch_patch.py). --start-frame F prompts on the
folder's frame F and names tracked frames by the folder's index; --tap-prefix P puts P before
every name (an object that samrt tracks beside others, run alone here).

Docs (tap table, groups, thresholds, commands): docs/parity.md.
Usage (from the repository root; --help lists every option):
  python3 tests/parity/dump_taps.py --model sam2.1_tiny --precision fp32 --gate-open \\
      --ckpt-out build/parity/tiny.pt --out build/parity/tiny.fp32.safetensors --frames-to-track 8
  python3 tests/parity/dump_taps.py --save-all-ckpts build/parity/ckpt --gate-open
"""
import argparse
import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, HERE)
import edgetam_batch_patch  # noqa: E402
import taps_io  # noqa: E402
from bf16_storage import STORAGE_PARTS, emulate_bf16_storage  # noqa: E402

MODELS = {  # name -> (package, config path inside the package folder)
    "sam2.1_tiny": ("sam2", "sam2/configs/sam2.1/sam2.1_hiera_t.yaml"),
    "sam2.1_small": ("sam2", "sam2/configs/sam2.1/sam2.1_hiera_s.yaml"),
    "sam2.1_base_plus": ("sam2", "sam2/configs/sam2.1/sam2.1_hiera_b+.yaml"),
    "sam2.1_large": ("sam2", "sam2/configs/sam2.1/sam2.1_hiera_l.yaml"),
    "edgetam": ("edgetam", "sam2/configs/edgetam.yaml"),
}

GROUPS = {
    "input": ["tap.input"],
    "embed": ["tap.trunk.patch_embed", "tap.trunk.embed", "tap.trunk.stem"],
    "blocks": ["tap.trunk.block.*", "tap.trunk.stage.*"],
    "trunk": ["tap.trunk.out.*"],
    "neck": ["tap.neck.**"],
    "fpn": ["tap.fpn.**"],
    "prompt": ["tap.prompt.*"],
    "decoder": ["tap.decoder.*"],
    "heads": ["tap.heads.*"],
    "out": ["tap.out.*"],
    "frames": ["frame.*.pred_masks", "frame.*.obj_ptr", "frame.*.object_score_logits",
               "frame.*.maskmem_features", "mem.pos_enc"],
    "frames-full": ["frame.**", "mem.**"],
    "all": ["**"],
}
# About 50 MB for tiny with 8 tracked frames: the stage interfaces and every decision-making
# output, without the encoder internals and the constant or derived maps.
GROUPS["default"] = (GROUPS["input"] + ["tap.fpn.0", "tap.fpn.1", "tap.fpn.2"] + GROUPS["prompt"]
                     + ["tap.decoder." + n for n in ("image_embed", "hs", "all_masks", "all_iou",
                                                     "all_tokens", "masks", "iou", "sam_tokens",
                                                     "object_score_logits")]
                     + ["tap.heads." + n for n in ("low_res_multimasks", "ious", "low_res_masks",
                                                   "high_res_masks", "obj_ptr", "object_score_logits")]
                     + GROUPS["out"] + GROUPS["frames"])


def parse_subset(spec):
    """'default,blocks,-tap.input' -> (include patterns, exclude patterns)."""
    inc, exc = [], []
    for item in (p.strip() for p in spec.split(",")):
        if not item:
            continue
        neg = item.startswith("-")
        item = item[1:] if neg else item
        pats = GROUPS.get(item, [item])
        if item not in GROUPS and not any(c in item for c in ".*?["):
            raise SystemExit(f"--taps-subset: unknown group {item!r} (groups: {', '.join(GROUPS)})")
        (exc if neg else inc).extend(pats)
    return inc, exc


class Taps:
    """Selected tensors by full name; the last value recorded under a name wins."""

    def __init__(self, include, exclude, name_prefix=""):
        self.include, self.exclude = include, exclude
        self.prefix = "tap."  # of the hook taps; None while they are not recorded
        self.name_prefix = name_prefix  # --tap-prefix: before every stored name
        self.store = {}

    def wanted(self, full):
        return (any(taps_io.name_match(full, p) for p in self.include)
                and not any(taps_io.name_match(full, p) for p in self.exclude))

    def put(self, name, t, keep_bf16=False):
        if self.prefix is not None:
            self.put_abs(self.prefix + name, t, keep_bf16)

    def put_abs(self, full, t, keep_bf16=False, obj_prefix=""):
        """Stores t as name_prefix + obj_prefix + full; --taps-subset judges full."""
        import torch
        if t is None or not self.wanted(full):
            return
        full = self.name_prefix + obj_prefix + full
        t = t.detach()
        if keep_bf16 and t.dtype == torch.bfloat16:
            bits = t.to("cpu").contiguous().view(torch.int16).numpy().view(np.uint16).copy()
            self.store[full] = taps_io.Bf16Bits(bits)
        else:  # copy=True: later in-place updates (no_obj_embed_spatial) must not reach the tap
            self.store[full] = t.to(device="cpu", dtype=torch.float32, copy=True).contiguous().numpy()


def install_hooks(model, taps):
    """Forward hooks and method wrappers that feed `taps` (model-spec section 8 tap points)."""
    import re

    # A hook that returns anything but None replaces the module's output (or inputs): never do.
    def out(mod, fn):
        def hook(m, args, o):
            fn(o)
        mod.register_forward_hook(hook)

    def pre(mod, fn):
        def hook(m, args, kw):
            fn(args, kw)
        mod.register_forward_pre_hook(hook, with_kwargs=True)

    def put_list(name, xs):
        for i, x in enumerate(xs):
            taps.put(f"{name}.{i}", x)

    ie = model.image_encoder
    pre(ie, lambda args, kw: taps.put("input", args[0] if args else kw["sample"]))
    out(ie, lambda o: (taps.put("fpn.2", o["vision_features"]), taps.put("fpn.pos.2", o["vision_pos_enc"][-1])))
    trunk = ie.trunk
    if hasattr(trunk, "blocks"):  # Hiera
        out(trunk.patch_embed, lambda o: taps.put("trunk.patch_embed", o))
        pre(trunk.blocks[0], lambda args, kw: taps.put("trunk.embed", args[0]))
        for i, blk in enumerate(trunk.blocks):
            out(blk, lambda o, i=i: taps.put(f"trunk.block.{i}", o))
    else:  # EdgeTAM: timm RepViT features_only wrapper
        for name, mod in trunk.body.named_children():
            m = re.fullmatch(r"stages_(\d+)", name)
            if name == "stem":
                out(mod, lambda o: taps.put("trunk.stem", o))
            elif m:
                out(mod, lambda o, k=m.group(1): taps.put(f"trunk.stage.{k}", o))
    out(trunk, lambda o: put_list("trunk.out", o))
    out(ie.neck, lambda o: (put_list("neck.feat", o[0]), put_list("neck.pos", o[1])))

    dec = model.sam_mask_decoder
    if hasattr(dec, "conv_s0"):  # models without high-resolution features (EfficientTAM) have neither
        out(dec.conv_s0, lambda o: taps.put("fpn.0", o))
        out(dec.conv_s1, lambda o: taps.put("fpn.1", o))

    def prompt_in(args, kw):
        pts = kw.get("points", args[0] if args else None)
        if pts is not None:
            taps.put("prompt.coords", pts[0])
            taps.put("prompt.labels", pts[1])
        taps.put("prompt.mask_input", kw.get("masks"))
    pre(model.sam_prompt_encoder, prompt_in)
    out(model.sam_prompt_encoder, lambda o: (taps.put("prompt.sparse", o[0]), taps.put("prompt.dense", o[1])))

    pre(dec, lambda args, kw: (taps.put("decoder.image_embed", kw.get("image_embeddings")),
                               taps.put("decoder.image_pe", kw.get("image_pe"))))
    out(dec.transformer, lambda o: (taps.put("decoder.hs", o[0]), taps.put("decoder.src", o[1])))
    out(dec.output_upscaling[len(dec.output_upscaling) - 1], lambda o: taps.put("decoder.upscaled", o))
    out(dec, lambda o: [taps.put("decoder." + n, x) for n, x in
                        zip(("masks", "iou", "sam_tokens", "object_score_logits"), o)])
    predict_masks = dec.predict_masks

    def predict_masks_tap(*args, **kw):
        o = predict_masks(*args, **kw)
        for n, x in zip(("all_masks", "all_iou", "all_tokens"), o):
            taps.put("decoder." + n, x)
        return o
    dec.predict_masks = predict_masks_tap

    heads = model._forward_sam_heads

    def heads_tap(*args, **kw):
        o = heads(*args, **kw)
        for n, x in zip(("low_res_multimasks", "high_res_multimasks", "ious", "low_res_masks",
                         "high_res_masks", "obj_ptr", "object_score_logits"), o):
            taps.put("heads." + n, x)
        return o
    model._forward_sam_heads = heads_tap

    pre(model.memory_attention, lambda args, kw: (taps.put("memattn.memory", kw.get("memory")),
                                                  taps.put("memattn.memory_pos", kw.get("memory_pos"))))
    out(model.memory_attention, lambda o: taps.put("memattn.out", o))
    pre(model.memory_encoder, lambda args, kw: taps.put("memenc.in_mask", args[1] if len(args) > 1 else kw.get("masks")))
    out(model.memory_encoder, lambda o: (taps.put("memenc.features", o["vision_features"]),
                                         taps.put("memenc.pos", o["vision_pos_enc"][-1])))
    if getattr(model, "spatial_perceiver", None) is not None:
        out(model.spatial_perceiver, lambda o: (taps.put("perceiver.features", o[0]),
                                                taps.put("perceiver.pos", o[1])))


def load_reference(a):
    """Import official_reference.py and put the chosen official package first on sys.path."""
    spec = importlib.util.spec_from_file_location("official_reference", a.official_ref)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    ref.stub_modules()
    pkg = a.pkg_edgetam if MODELS[a.model][0] == "edgetam" else a.pkg_sam2
    sys.path.insert(0, os.path.abspath(pkg))
    if MODELS[a.model][0] == "edgetam":  # several objects are one batch there (edgetam_batch_patch.py)
        edgetam_batch_patch.apply()
    return ref, os.path.join(pkg, MODELS[a.model][1])


def build_model(a, ref, cfg):
    import torch
    restore = torch.nn.Module.cuda
    if a.device == "cpu":  # build() ends in .cuda(); keep the model where it is instead
        torch.nn.Module.cuda = lambda self, *args, **kw: self
    try:
        model = ref.build(cfg, vos=False, ckpt=a.ckpt, seed=a.seed, gate_open=a.gate_open,
                          settings=a.settings, init=a.init, logit_scale=a.logit_scale)
    finally:
        torch.nn.Module.cuda = restore
    return model.to(a.device).eval()


def make_parent(path):
    if path and os.path.dirname(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)


def save_checkpoint(model, pt_path, st_path, meta):
    import torch
    make_parent(pt_path)
    make_parent(st_path)
    sd = {k: v.detach().to("cpu").contiguous() for k, v in model.state_dict().items()}
    if pt_path:
        torch.save({"model": sd}, pt_path)
        print(f"checkpoint: {pt_path} ({len(sd)} tensors, {os.path.getsize(pt_path) / 2**20:.1f} MiB)")
    if st_path:
        n = taps_io.write(st_path, {k: v.numpy() for k, v in sd.items()}, meta)
        print(f"checkpoint: {st_path} ({n / 2**20:.1f} MiB)")


def save_all_checkpoints(a):
    """One subprocess per model: the sam2 and EdgeTAM packages share the import name `sam2`."""
    os.makedirs(a.save_all_ckpts, exist_ok=True)
    rc = 0
    for name in MODELS:
        cmd = [sys.executable, os.path.abspath(__file__), "--model", name, "--build-only",
               "--ckpt-out", os.path.join(a.save_all_ckpts, name + ".pt"),
               "--safetensors-out", os.path.join(a.save_all_ckpts, name + ".safetensors"),
               "--device", a.device, "--seed", str(a.seed), "--init", a.init,
               "--logit-scale", str(a.logit_scale), "--settings", a.settings,
               "--official-ref", a.official_ref, "--pkg-sam2", a.pkg_sam2, "--pkg-edgetam", a.pkg_edgetam]
        if a.gate_open:
            cmd.append("--gate-open")
        print("+", " ".join(cmd), flush=True)
        rc = max(rc, subprocess.call(cmd))
    return rc


def frames_dir(a, stack):
    """The JPEG folder, or a temporary folder linking its frames --start-frame .. (the first
    --video-frames of those)."""
    clip = 0 if a.whole_video else a.start_frame
    if a.video_frames <= 0 and clip <= 0:
        return a.frames
    names = [n for n in os.listdir(a.frames) if os.path.splitext(n)[1].lower() in (".jpg", ".jpeg")]
    names.sort(key=lambda n: int(os.path.splitext(n)[0]))
    names = names[clip:]
    if not names:
        raise SystemExit(f"--start-frame {a.start_frame}: the folder has no frame there")
    tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="taps_frames_"))
    for n in names[:a.video_frames] if a.video_frames > 0 else names:
        os.symlink(os.path.abspath(os.path.join(a.frames, n)), os.path.join(tmp, n))
    return tmp


def prompt_args(a):
    """Keyword arguments for add_new_points_or_box (video pixels) and their description."""
    kw, desc = {}, {"type": a.prompt}
    if a.prompt == "mask":
        if not a.mask_png:
            raise SystemExit("--prompt mask needs --mask-png")
        from PIL import Image
        m = np.array(Image.open(a.mask_png))
        kw["mask"] = (m if m.ndim == 2 else m[..., 0]) > 0
        desc["mask"] = os.path.basename(a.mask_png)
        return kw, desc
    if "click" in a.prompt:
        x, y = (float(v) for v in a.click.split(","))
        kw["points"] = np.array([[x, y]], np.float32)
        kw["labels"] = np.array([a.click_label], np.int32)
        desc.update(points=[[x, y]], labels=[a.click_label])
    if "box" in a.prompt:
        box = [float(v) for v in a.box.split(",")]
        if len(box) != 4:
            raise SystemExit("--box takes x0,y0,x1,y1")
        kw["box"] = np.array(box, np.float32)
        desc["box"] = box
    return kw, desc


def parse_add(spec):
    """--add OBJ:KIND:VALUES -> (obj_id, add_new_points_or_box kwargs, description)."""
    try:
        obj, kind, vals = spec.split(":", 2)
        obj = int(obj)
        if kind == "click":  # x,y[,label][;x,y[,label]...]
            pts = [[float(v) for v in c.split(",")] for c in vals.split(";")]
            if obj < 0 or any(len(p) not in (2, 3) or (len(p) == 3 and p[2] not in (0, 1)) for p in pts):
                raise ValueError
            kw = dict(points=np.array([p[:2] for p in pts], np.float32),
                      labels=np.array([int(p[2]) if len(p) == 3 else 1 for p in pts], np.int32))
            return obj, kw, dict(type="click", points=kw["points"].tolist(), labels=kw["labels"].tolist())
        if kind == "box":
            box = [float(v) for v in vals.split(",")]
            if obj < 0 or len(box) != 4:
                raise ValueError
            return obj, dict(box=np.array(box, np.float32)), dict(type="box", box=box)
    except ValueError:
        pass
    raise SystemExit(f"--add {spec!r}: OBJ:click:x,y[,label][;x,y...] or OBJ:box:x0,y0,x1,y1 (OBJ an id >= 0)")


def add_object(model, state, frame, obj_id, kw):
    """Prompts obj_id on the video's frame `frame`; returns the video-res logits it yields."""
    if "mask" in kw:
        return model.add_new_mask(state, frame_idx=frame, obj_id=obj_id, mask=kw["mask"])[2]
    return model.add_new_points_or_box(state, frame_idx=frame, obj_id=obj_id, **kw)[2]


def put_outputs(taps, state, video_res, t):
    """The per-object outputs of frame t (named by the folder's frame index) for every object:
    the first-added one as frame.<t>.*, the others as obj<id>.frame.<t>.*. video_res_masks is
    the object's row of the yielded logits (non_overlap_masks off: its own logits)."""
    summary = []
    for idx, obj_id in enumerate(state["obj_ids"]):
        d = state["output_dict_per_obj"][idx]
        cur = d["cond_frame_outputs"].get(t - taps.frame_offset)
        cur = cur if cur is not None else d["non_cond_frame_outputs"][t - taps.frame_offset]
        pre, base = ("" if idx == 0 else f"obj{obj_id}."), f"frame.{t}."
        taps.put_abs(base + "video_res_masks", video_res[idx:idx + 1], obj_prefix=pre)
        for k in ("pred_masks", "obj_ptr", "object_score_logits"):
            taps.put_abs(base + k, cur[k], obj_prefix=pre)
        taps.put_abs(base + "maskmem_features", cur["maskmem_features"], keep_bf16=True, obj_prefix=pre)
        summary.append((f"{pre}frame {t}", cur))
    return summary


def run(a, model):
    import torch
    taps = Taps(*parse_subset(a.taps_subset), name_prefix=a.tap_prefix)
    # official frame t' is the folder's (samrt's) frame offset + t'; the prompts go on frame p0
    taps.frame_offset, p0 = (0, a.start_frame) if a.whole_video else (a.start_frame, 0)
    install_hooks(model, taps)
    if a.precision == "fp32":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
        amp = contextlib.nullcontext()
    else:
        amp = torch.autocast(a.device, dtype=torch.bfloat16)
        if a.bf16_storage:
            emulate_bf16_storage(model, a.bf16_storage)
    kw, desc = prompt_args(a)
    objs = [(1, kw)] + [parse_add(s)[:2] for s in a.add]
    if len({o for o, _ in objs}) != len(objs):
        raise SystemExit("--add: object ids must differ from each other and from object 1")
    if len(objs) > 1:
        desc = dict(desc, added=[dict(obj=o, **d) for o, _, d in map(parse_add, a.add)])
        if getattr(model, "non_overlap_masks", False):  # official_reference.build never sets it
            print("WARNING: non_overlap_masks: video_res_masks rows are clamped where another object wins",
                  file=sys.stderr)
    t0 = time.time()
    with contextlib.ExitStack() as stack:
        video = frames_dir(a, stack)
        stack.enter_context(torch.inference_mode())
        stack.enter_context(amp)
        taps.prefix = "tap."
        state = model.init_state(video_path=video)
        video_res = add_object(model, state, p0, 1, kw)
        cur = state["temp_output_dict_per_obj"][0]["cond_frame_outputs"][p0]
        taps.put("out.video_res_masks", video_res)
        for k in ("pred_masks", "obj_ptr", "object_score_logits"):
            taps.put("out." + k, cur[k])
        summary = [("prompt", cur)]
        taps.prefix = None  # the tap.* hooks hold object 1's prompt frame
        for obj_id, okw in objs[1:]:
            add_object(model, state, p0, obj_id, okw)
        n_track = min(a.frames_to_track, state["num_frames"] - 1 - p0)
        if n_track > 0:
            gen = model.propagate_in_video(state, start_frame_idx=p0, max_frame_num_to_track=n_track)
            for t in range(n_track + 1):
                # set before the generator computes frame t; with several objects the hook taps
                # hold the last object run (SAM 2.1) or the whole batch (EdgeTAM)
                taps.prefix = f"frame.{a.start_frame + t}."
                fidx, _, video_res = next(gen)
                assert fidx == p0 + t, (fidx, p0 + t)
                summary += put_outputs(taps, state, video_res, a.start_frame + t)
            gen.close()
            taps.put_abs("mem.pos_enc", state["constants"]["maskmem_pos_enc"][-1])
        if a.device == "cuda":
            torch.cuda.synchronize()
    elapsed = time.time() - t0
    for label, o in summary:  # sanity for the reader: is the gate open, are logits decisive?
        m = o["pred_masks"].float()
        print(f"{label:>9}: object score {float(o['object_score_logits'].flatten()[0]):+8.3f}  "
              f"mask>0 {float((m > 0).float().mean()):.3f}  |logit|>0.5 {float((m.abs() > 0.5).float().mean()):.3f}")
    return taps, state, desc, n_track, elapsed


def main():
    ap = argparse.ArgumentParser(description="Dump parity taps of the official SAM 2.1 / EdgeTAM video predictor.")
    ap.add_argument("--model", choices=sorted(MODELS), default="sam2.1_tiny")
    ap.add_argument("--settings", choices=["vos_inference", "notebook"], default="vos_inference",
                    help="post-processing profile passed to build() (model-spec 1.2)")
    ap.add_argument("--precision", choices=["fp32", "bf16"], default="fp32",
                    help="fp32: no autocast, TF32 off; bf16: autocast bfloat16 as the official usage")
    ap.add_argument("--bf16-storage", default="", metavar="PARTS",
                    help="with --precision bf16: round to bf16 what autocast keeps in fp32, in these parts "
                         "(comma list of " + ", ".join(STORAGE_PARTS) + "; all: the first eight), or run one module in "
                         "fp32 (f32*): probes of samrt's precision choices, not the official behaviour")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--gate-open", action="store_true", help="force the object-score gate open (random weights)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--init", choices=["realistic", "default"], default="realistic")
    ap.add_argument("--logit-scale", type=float, default=8.0)
    ap.add_argument("--ckpt", help="load these weights ({'model': state_dict}) instead of seeded random ones")
    ap.add_argument("--ckpt-out", help="save the model's weights here as {'model': state_dict} (torch.save)")
    ap.add_argument("--safetensors-out", help="save the model's weights here as safetensors too")
    ap.add_argument("--build-only", action="store_true", help="build (and save), run nothing")
    ap.add_argument("--save-all-ckpts", metavar="DIR", help="write <model>.pt and <model>.safetensors "
                    "for all five models into DIR and exit")
    ap.add_argument("--prompt", choices=["click", "box", "click+box", "mask"], default="click")
    ap.add_argument("--mask-png", help="--prompt mask: a PNG of the frame size, object = value > 0 (add_new_mask)")
    ap.add_argument("--click", default="210,350", help="x,y in video pixels")
    ap.add_argument("--click-label", type=int, default=1, choices=[0, 1])
    ap.add_argument("--box", default="130,250,330,470", help="x0,y0,x1,y1 in video pixels")
    ap.add_argument("--add", action="append", default=[], metavar="OBJ:KIND:VALUES",
                    help="another object prompted on the first frame, repeatable: OBJ:click:x,y[,label][;x,y..] "
                         "or OBJ:box:x0,y0,x1,y1 (video pixels); its frame taps are obj<OBJ>.frame.<t>.*")
    ap.add_argument("--start-frame", type=int, default=0, metavar="F",
                    help="prompt on the folder's frame F and track from there: the video is the folder's "
                         "frames F.. (official frame t is frame.<F+t> in the taps, samrt's numbering)")
    ap.add_argument("--whole-video", action="store_true",
                    help="with --start-frame: keep the whole folder as the video (prompt on its frame F, "
                         "propagate from F), so that num_frames is the folder's; the same result as the "
                         "clip when both have at least 16 frames (the pointer normaliser)")
    ap.add_argument("--tap-prefix", default="", help="put before every tap name, e.g. 'obj2.' for an object "
                    "that samrt tracks beside others (run alone here)")
    ap.add_argument("--frames-to-track", type=int, default=0, help="also propagate through frames 1..N "
                    "(of the video, which starts at --start-frame)")
    ap.add_argument("--video-frames", type=int, default=0,
                    help="use only the first N frames of --frames as the video (0 = all); the pointer "
                         "position normaliser depends on the video length below 16 frames")
    ap.add_argument("--taps-subset", default="default",
                    help="comma-separated groups (" + ", ".join(GROUPS) + ") or name patterns ('*' within "
                         "one dotted part, '**' across parts); a leading '-' removes, e.g. "
                         "'default,blocks,-tap.input' or 'frame.*.memattn.out'")
    ap.add_argument("--out", help="taps file to write (.safetensors)")
    ap.add_argument("--list", action="store_true", help="print every written tap with shape and size")
    ap.add_argument("--max-mb", type=float, default=60.0, help="warn when the taps file is larger")
    ap.add_argument("--frames", default=os.path.join(ROOT, ".carry/bedroom"), help="JPEG folder")
    ap.add_argument("--official-ref", default=os.path.join(ROOT, ".carry/official_reference.py"))
    ap.add_argument("--pkg-sam2", default=os.path.join(ROOT, ".carry/sam2ref"),
                    help="folder holding facebookresearch/sam2's sam2/ package")
    ap.add_argument("--pkg-edgetam", default=os.path.join(ROOT, ".carry/edgetamref"),
                    help="folder holding facebookresearch/EdgeTAM's sam2/ package")
    a = ap.parse_args()
    a.bf16_storage = STORAGE_PARTS[:8] if a.bf16_storage == "all" else tuple(p for p in a.bf16_storage.split(",") if p)
    if any(p not in STORAGE_PARTS for p in a.bf16_storage) or (a.bf16_storage and a.precision != "bf16"):
        ap.error("--bf16-storage takes a comma list of " + ", ".join(STORAGE_PARTS) + " (or all), with --precision bf16")

    if a.save_all_ckpts:
        return save_all_checkpoints(a)
    if not (a.out or a.build_only or a.ckpt_out or a.safetensors_out):
        ap.error("nothing to do: give --out, --ckpt-out, --safetensors-out or --save-all-ckpts")
    parse_subset(a.taps_subset)  # fail on a typo before the slow part

    ref, cfg = load_reference(a)
    import torch
    if a.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("CUDA is not available; use --device cpu")
    model = build_model(a, ref, cfg)
    weights = dict(model=a.model, seed=a.seed, init=a.init, logit_scale=a.logit_scale,
                   gate_open=a.gate_open, producer="tests/parity/dump_taps.py")
    if a.ckpt_out or a.safetensors_out:
        save_checkpoint(model, a.ckpt_out, a.safetensors_out, {k: str(v) for k, v in weights.items()})
    if a.build_only or not a.out:
        return 0

    taps, state, desc, n_track, elapsed = run(a, model)
    meta = dict(weights, producer="official", settings=a.settings, precision=a.precision,
                bf16_storage=",".join(a.bf16_storage),
                prompt=json.dumps(desc), start_frame=str(a.start_frame),
                whole_video=str(a.whole_video), tap_prefix=a.tap_prefix,
                non_overlap_masks=str(bool(getattr(model, "non_overlap_masks", False))), video_hw=f"{state['video_height']}x{state['video_width']}",
                image_size=str(model.image_size), num_frames=str(state["num_frames"]),
                frames_tracked=str(n_track), ckpt=os.path.basename(a.ckpt) if a.ckpt else "",
                torch=torch.__version__, timm=__import__("timm").__version__,
                device=torch.cuda.get_device_name(0) if a.device == "cuda" else "cpu",
                taps_subset=a.taps_subset, layout="NCHW except tap.trunk.patch_embed/embed/block.* (NHWC)",
                format="samrt-taps/1")
    make_parent(a.out)
    nbytes = taps_io.write(a.out, taps.store, {k: str(v) for k, v in meta.items()})
    if a.list:
        for name, arr in taps.store.items():
            tag = "BF16" if isinstance(arr, taps_io.Bf16Bits) else "F32"
            print(f"  {name:<40} {tag:<4} {str(tuple(arr.shape)):<22} {arr.nbytes / 2**20:8.2f} MiB")
    print(f"taps: {a.out}: {len(taps.store)} tensors, {nbytes / 2**20:.1f} MiB, model {a.model}, "
          f"{a.precision}, {a.settings}, prompt {desc}, frames tracked {n_track}, run {elapsed:.1f} s")
    if nbytes > a.max_mb * 2**20:
        print(f"WARNING: {a.out} is larger than {a.max_mb:g} MB; narrow --taps-subset", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""segment_mask_parity.py - mask prompts in single-frame segmentation: the official
SAM2ImagePredictor.predict(mask_input=...) next to `samrt segment --mask`, on the same seeded
realistic weights (official_reference.py's build(), gate forced open, as dump_taps.py makes
them) and a bedroom frame. Run on the GPU machine (docs/parity.md):

  python3 tests/parity/segment_mask_parity.py --model sam2.1_tiny --precisions fp32,bf16

Cases (prompts in frame pixels; each mask is a PNG of the frame size):
  click+prev   a click, and as mask the official predictor's own best mask for that click
               alone (the refinement loop of the official notebooks: predict, then predict
               again with the previous mask)
  click+rect   the click and a rectangle mask that covers part of the object
  box+rect     a box and the same rectangle (a single-mask prompt)
The mask PNG becomes the 1x256x256 mask_input on the official side exactly as samrt
documents it (samrt_engine_mask_prompt_logits, the tracker's add_new_mask path, model-spec
3.11): bilinear antialiased resize to 1024, >= 0.5, logits 20 m - 10, bilinear antialiased
downsample to 256, in torch. One click gets multimask_output=True and the best-scoring
mask (what the video path samrt follows selects for one point), a box multimask_output=False.

samrt segment is the official VIDEO predictor's prompt-frame path (Pillow bicubic resize to
1024); SAM2ImagePredictor resizes with torchvision. So each case is compared twice: against
the image predictor as it is ("torchvision"), and against the image predictor fed the video
predictor's Pillow-resized frame ("pillow"), which leaves the mask path as the one difference.
Printed per case and samrt precision: IoU(samrt mask, official mask > 0), confident-pixel
agreement (pixels with |official logit| > 0.5 that keep their sign), and how far the mask
moved the official result (IoU of the official masks with and without mask_input: a mask
that changes nothing would make the comparison vacuous). Exit 0 when every fp32 "pillow" row
has IoU >= --min-iou and agreement >= --min-agree, 1 otherwise, 2 on bad usage.
Needs torch, PIL, the official sam2 package and official_reference.py under .carry/ (as
dump_taps.py), and a GPU build of samrt (--samrt, default build/gpu/tools/samrt).
"""
import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import dump_taps  # noqa: E402  (load_reference, build_model, save_checkpoint, MODELS, ROOT)

CONF = 0.5  # compare_taps.py's --conf


def have_torchvision():
    """True when torchvision imports; else stand-ins for the three transforms that
    sam2/utils/transforms.py builds at import, so the "pillow" comparison (which replaces them)
    still runs and the "torchvision" one is left out."""
    try:
        import torchvision.transforms  # noqa: F401
        return True
    except ImportError:
        import types
        import torch.nn as nn

        class Identity(nn.Module):
            def __init__(self, *args, **kw):
                super().__init__()

            def forward(self, x):
                return x

        tv, tr = types.ModuleType("torchvision"), types.ModuleType("torchvision.transforms")
        tr.Normalize = tr.Resize = tr.ToTensor = Identity
        tv.transforms = tr
        sys.modules.update({"torchvision": tv, "torchvision.transforms": tr})
        print("segment_mask_parity: no torchvision: the 'torchvision' rows are left out")
        return False


def pillow_input(predictor, side):
    """Makes predictor.set_image take the video predictor's input: Pillow resize (bicubic, the
    PIL default of load_video_frames) to side x side, /255 in float64, then the normalisation."""
    import torch
    from PIL import Image
    mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)
    t = predictor._transforms
    t.to_tensor = lambda x: torch.from_numpy(np.array(Image.fromarray(x).resize((side, side))) / 255.0) \
        .permute(2, 0, 1).float()

    class Normalize(torch.nn.Module):  # SAM2Transforms.transforms is a submodule: replace it by one
        def forward(self, x):
            return (x - mean) / std

    t.transforms = Normalize()


def mask_logits(mask, side):
    """samrt's PNG -> mask_input conversion, in torch (model-spec 3.11)."""
    import torch
    import torch.nn.functional as F
    m = torch.from_numpy(mask.astype(np.float32))[None, None]
    if m.shape[-2:] != (side, side):
        m = (F.interpolate(m, size=(side, side), mode="bilinear", align_corners=False, antialias=True) >= 0.5).float()
    lg = m * 20.0 - 10.0
    low = F.interpolate(lg, size=(side // 4, side // 4), mode="bilinear", align_corners=False, antialias=True)
    return low[0].numpy()  # (1, 256, 256)


def official(predictor, image, click, box, mask_input):
    """(logits at frame size, best index) of one predict call."""
    kw = dict(mask_input=mask_input, return_logits=True)
    if box is not None:
        kw.update(box=np.array(box, np.float32), multimask_output=False)
    if click is not None:
        kw.update(point_coords=np.array([click], np.float32), point_labels=np.array([1], np.int32))
        kw.setdefault("multimask_output", True)
    masks, scores, _ = predictor.predict(**kw)
    k = int(np.argmax(scores)) if masks.shape[0] > 1 else 0
    return masks[k], k


def iou(a, b):
    u = np.logical_or(a, b).sum()
    return float(np.logical_and(a, b).sum() / u) if u else 1.0


def agreement(mask, ref_logits):
    conf = np.abs(ref_logits) > CONF
    return float((mask[conf] == (ref_logits[conf] > 0)).mean()) if conf.any() else 1.0


def save_png(path, mask):
    from PIL import Image
    Image.fromarray(mask.astype(np.uint8) * 255).save(path)


def run_samrt(a, ckpt, frame, case, mask_png, prec, out_png):
    cmd = [a.samrt, "segment", "--weights", ckpt, "--image", frame, "--out", out_png, "--precision", prec,
           "--mask", mask_png]
    if case["click"] is not None:
        cmd += ["--point", "%g,%g" % tuple(case["click"])]
    if case["box"] is not None:
        cmd += ["--box", "%g,%g,%g,%g" % tuple(case["box"])]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise SystemExit(f"samrt segment failed ({' '.join(cmd)}):\n{r.stdout}")
    from PIL import Image
    return np.array(Image.open(out_png)) > 0


def main():
    ap = argparse.ArgumentParser(description="SAM2ImagePredictor mask_input vs samrt segment --mask.")
    ap.add_argument("--model", choices=sorted(m for m in dump_taps.MODELS if m != "edgetam"), default="sam2.1_tiny")
    ap.add_argument("--precisions", default="fp32,bf16", help="samrt precisions (comma list of fp32, bf16, fp16)")
    ap.add_argument("--samrt", default=os.path.join(dump_taps.ROOT, "build/gpu/tools/samrt"))
    ap.add_argument("--image", default=os.path.join(dump_taps.ROOT, ".carry/bedroom/00000.jpg"))
    ap.add_argument("--click", default="210,350")
    ap.add_argument("--box", default="100,200,400,530")
    ap.add_argument("--rect", default="150,260,330,480", help="the rectangle mask x0,y0,x1,y1 (inclusive)")
    ap.add_argument("--out", default=os.path.join(dump_taps.ROOT, "build/parity/segment_mask"))
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--min-iou", type=float, default=0.98)
    ap.add_argument("--min-agree", type=float, default=0.999)
    ap.add_argument("--official-ref", default=os.path.join(dump_taps.ROOT, ".carry/official_reference.py"))
    ap.add_argument("--pkg-sam2", default=os.path.join(dump_taps.ROOT, ".carry/sam2ref"))
    ap.add_argument("--pkg-edgetam", default=os.path.join(dump_taps.ROOT, ".carry/edgetamref"))
    a = ap.parse_args()
    precs = [p for p in a.precisions.split(",") if p]
    if not precs or any(p not in ("fp32", "bf16", "fp16") for p in precs):
        ap.error("--precisions takes a comma list of fp32, bf16, fp16")
    if not os.path.exists(a.samrt):
        ap.error(f"no samrt program at {a.samrt} (--samrt)")
    # the fields dump_taps.build_model reads: seeded realistic weights, the gate open
    a.seed, a.gate_open, a.settings, a.init, a.logit_scale, a.ckpt = 0, True, "vos_inference", "realistic", 8.0, None
    os.makedirs(a.out, exist_ok=True)

    ref, cfg = dump_taps.load_reference(a)
    import torch
    from PIL import Image
    torch.backends.cuda.matmul.allow_tf32 = False  # the strict fp32 reference, as dump_taps.py
    torch.backends.cudnn.allow_tf32 = False
    kinds = ("torchvision", "pillow") if have_torchvision() else ("pillow",)
    from sam2.sam2_image_predictor import SAM2ImagePredictor
    model = dump_taps.build_model(a, ref, cfg)
    ckpt = os.path.join(a.out, f"{a.model}.gate.pt")
    dump_taps.save_checkpoint(model, ckpt, None, {})
    side = model.image_size
    image = np.array(Image.open(a.image).convert("RGB"))
    h, w = image.shape[:2]
    click = [float(v) for v in a.click.split(",")]
    box = [float(v) for v in a.box.split(",")]
    x0, y0, x1, y1 = (int(v) for v in a.rect.split(","))
    rect = np.zeros((h, w), np.bool_)
    rect[y0:y1 + 1, x0:x1 + 1] = True

    preds = {}
    for kind in kinds:
        p = SAM2ImagePredictor(model)
        if kind == "pillow":
            pillow_input(p, side)
        with torch.inference_mode():
            p.set_image(image)
        preds[kind] = p
    with torch.inference_mode():
        prev, _ = official(preds["pillow"], image, click, None, None)
    cases = [dict(name="click+prev", click=click, box=None, mask=prev > 0),
             dict(name="click+rect", click=click, box=None, mask=rect),
             dict(name="box+rect", click=None, box=box, mask=rect)]
    print(f"model {a.model} (seeded realistic weights, gate open), frame {a.image} {w}x{h}, samrt {a.samrt}")
    print(f"{'case':12} {'official':12} {'samrt':6} {'IoU':>8} {'agree':>8} {'mask moved (IoU w/o)':>22}")
    ok = True
    for case in cases:
        png = os.path.join(a.out, f"{case['name']}.mask.png")
        save_png(png, case["mask"])
        mi = mask_logits(case["mask"], side)
        got = {p: run_samrt(a, ckpt, a.image, case, png, p, os.path.join(a.out, f"{case['name']}.{p}.png"))
               for p in precs}
        for kind, pred in preds.items():
            with torch.inference_mode():
                with_mask, _ = official(pred, image, case["click"], case["box"], mi)
                without, _ = official(pred, image, case["click"], case["box"], None)
            moved = iou(with_mask > 0, without > 0)
            for p in precs:
                i, ag = iou(got[p], with_mask > 0), agreement(got[p], with_mask)
                print(f"{case['name']:12} {kind:12} {p:6} {i:8.4f} {ag:8.4f} {moved:22.4f}")
                if kind == "pillow" and p == "fp32" and (i < a.min_iou or ag < a.min_agree):
                    ok = False
    print("segment_mask_parity: " + ("ok" if ok else f"FAILED (fp32 pillow rows need IoU >= {a.min_iou} and "
                                                     f"agreement >= {a.min_agree})"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

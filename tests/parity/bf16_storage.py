"""bf16_storage.py - the bf16 storage probe of dump_taps.py (--bf16-storage PARTS): under
autocast, round to bf16 what samrt's bf16 run stores in bf16 but autocast keeps in fp32, or
run one official module as an fp32 island, to find which choice moves the masks
(docs/parity.md, model-spec section 8). Kept apart from the tap dumper it patches."""
import sys

STORAGE_PARTS = ("ln", "neck", "memattn", "decoder", "perceiver", "memenc", "ln2d", "lnweights", "fold", "foldrep", "foldcn",
                 "f32trunk", "f32neck", "f32decoder", "f32memattn", "f32memenc", "f32perceiver", "tf32")
# the fp32 islands of emulate_bf16_storage: part name -> the module path it runs outside autocast
F32_ISLANDS = {"f32trunk": "image_encoder.trunk", "f32neck": "image_encoder.neck", "f32decoder": "sam_mask_decoder",
               "f32memattn": "memory_attention", "f32memenc": "memory_encoder", "f32perceiver": "spatial_perceiver"}


def f32_island(forward):
    """forward, run with autocast off on fp32 copies of its floating inputs."""
    import torch

    def up(x):
        if isinstance(x, torch.Tensor) and x.is_floating_point():
            return x.float()
        if isinstance(x, (list, tuple)):
            return type(x)(up(v) for v in x)
        if isinstance(x, dict):
            return {k: up(v) for k, v in x.items()}
        return x

    def run(*args, **kw):
        with torch.autocast("cuda", enabled=False):
            return forward(*up(args), **up(kw))
    return run


def emulate_bf16_storage(model, parts):
    """Under autocast, round to bf16 what samrt's bf16 run stores in bf16 but autocast keeps in
    fp32, part by part, to find which of those choices moves the masks (model-spec section 8):
      ln       every nn.LayerNorm output (autocast computes LayerNorm in fp32 and returns fp32,
               which is then added to residual streams in the two-way transformer)
      neck     the image encoder's outputs (the FPN top-down path is fp32 under autocast)
      memattn  memory attention's inputs (current features and positions, memory and its
               positions with the fp32 pointers) and its output: the residual stream becomes bf16
      decoder  the mask decoder's inputs and the two-way transformer's tokens and keys
      perceiver  EdgeTAM's perceiver latents (fp32 parameters, so their residual stream is fp32)
      memenc   the memory encoder's fuser: CXBlock's fp32 layer scale (gamma * x) makes its
               residual stream fp32 under autocast; with gamma in bf16 the stream stays bf16
      ln2d     every LayerNorm2d output (its fp32 weight makes it fp32 under autocast)
      lnweights  nn.LayerNorm weights and biases rounded to bf16 values (autocast uses them in
               fp32; samrt stores them at the run dtype outside the decoder's transformer)
      fold     EdgeTAM: the trunk's BatchNorms folded into their convs (timm's own fuse(), as
               samrt folds them at load), so autocast rounds the folded weights to bf16;
               foldrep only the RepVggDw token mixers, foldcn only the other Conv+BN pairs
    The opposite question, which part limits autocast's own accuracy, is answered by fp32 islands:
      f32trunk, f32neck, f32decoder, f32memattn, f32memenc, f32perceiver run that module with
               autocast off on fp32 inputs (TF32 off, unless the part tf32 is also given)
    These hooks return replacements on purpose (the tap hooks never do)."""
    import torch
    bf = torch.bfloat16

    def cast(x):
        if isinstance(x, torch.Tensor) and x.is_floating_point() and x.dtype != bf:
            return x.to(bf)
        if isinstance(x, (list, tuple)):
            return type(x)(cast(v) for v in x)
        return x

    def cast_inputs(mod):
        mod.register_forward_pre_hook(lambda m, args, kw: (cast(args), {k: cast(v) for k, v in kw.items()}),
                                      with_kwargs=True)

    if "ln" in parts:
        for mod in model.modules():
            if isinstance(mod, torch.nn.LayerNorm):
                mod.register_forward_hook(lambda m, args, o: cast(o))
    if "neck" in parts:
        def neck(m, args, o):
            for k in ("vision_features", "vision_pos_enc", "backbone_fpn"):
                o[k] = cast(o[k])
        model.image_encoder.register_forward_hook(neck)
    if "memattn" in parts:
        cast_inputs(model.memory_attention)
        model.memory_attention.register_forward_hook(lambda m, args, o: cast(o))
    if "decoder" in parts:
        cast_inputs(model.sam_mask_decoder)
        cast_inputs(model.sam_mask_decoder.transformer)
    if "memenc" in parts:
        for mod in model.memory_encoder.modules():
            g = getattr(mod, "gamma", None)
            if isinstance(g, torch.nn.Parameter):
                g.data = g.data.to(bf)
    if "ln2d" in parts:
        for mod in model.modules():
            if type(mod).__name__ == "LayerNorm2d":
                mod.register_forward_hook(lambda m, args, o: cast(o))
    if "lnweights" in parts:
        for mod in model.modules():
            if isinstance(mod, torch.nn.LayerNorm):
                for p in (mod.weight, mod.bias):
                    if p is not None:
                        p.data = p.data.to(bf).to(p.dtype)
    if "fold" in parts or "foldrep" in parts or "foldcn" in parts:
        kinds = ("ConvNorm", "RepVggDw") if "fold" in parts else ("RepVggDw",) if "foldrep" in parts else ("ConvNorm",)

        def fuse_tree(mod):  # outer blocks first: RepVggDw.fuse folds its inner ConvNorms itself
            n = 0
            for name, child in list(mod.named_children()):
                if type(child).__name__ == "RepVggDw" and "RepVggDw" not in kinds:
                    continue  # foldcn: its inner ConvNorm stays unfolded too
                if type(child).__name__ in kinds and callable(getattr(child, "fuse", None)):
                    with torch.no_grad():
                        setattr(mod, name, child.fuse().eval())
                    n += 1
                else:
                    n += fuse_tree(child)
            return n
        print(f"bf16-storage fold: {fuse_tree(model.image_encoder.trunk)} trunk modules folded", file=sys.stderr)
    if any(part in parts for part in F32_ISLANDS):  # autocast's bf16 ops ignore these flags
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = "tf32" in parts
    for part, path in F32_ISLANDS.items():
        if part in parts:
            mod = model.get_submodule(path)
            mod.forward = f32_island(mod.forward)
            print(f"bf16-storage {part}: {path} runs in fp32", file=sys.stderr)
    sp = getattr(model, "spatial_perceiver", None)
    if "perceiver" in parts and sp is not None:
        for name in ("latents", "latents_2d"):
            if getattr(sp, name, None) is not None:
                getattr(sp, name).data = getattr(sp, name).data.to(bf)

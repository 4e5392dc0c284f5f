"""The official EfficientTAM video predictor for tests/parity/dump_taps.py: the two calls that
dump_taps.py makes of official_reference.py (stub_modules, build), written against
yformer/EfficientTAM's package efficient_track_anything (carried as .carry/efftamref, which
holds the efficient_track_anything/ folder; docs/parity.md, "EfficientTAM").

build() composes the variant's YAML with the overrides build_efficienttam_video_predictor
applies with apply_postprocessing=True for --settings notebook only (the dynamic multimask
fallback and binarised prompt memories; vos_inference applies none, as official_reference.py
does for SAM 2.1), sets fill_hole_area 0 (it needs the optional CUDA extension), turns
torch.compile off (compile_image_encoder), instantiates
EfficientTAMVideoPredictor and loads --ckpt, or seeds the modules' own initialisers
(torch.manual_seed(seed): PyTorch's defaults and the base's trunc_normal_ embeddings). With
gate_open the last bias of pred_obj_score_head is 10, as official_reference.py does for SAM 2.1,
so the object-score gate stays open on random weights. `init` and `logit_scale` are accepted for
dump_taps.py's sake; the EfficientTAM weights are the modules' own seeded ones.
"""
import os


def stub_modules():
    """Nothing to stub: the package imports torch, hydra and omegaconf only."""


def _config_name(cfg):
    """.../efficient_track_anything/configs/efficienttam/x.yaml -> configs/efficienttam/x.yaml"""
    parts = os.path.normpath(cfg).split(os.sep)
    i = len(parts) - 1 - parts[::-1].index("efficient_track_anything")
    return "/".join(parts[i + 1:])


def build(cfg, vos=False, ckpt=None, seed=0, gate_open=False, settings="vos_inference", init="realistic",
          logit_scale=8.0):
    import torch
    from hydra import compose
    from hydra.utils import instantiate
    from omegaconf import OmegaConf
    import efficient_track_anything  # noqa: F401  (initialises hydra on its config module)

    over = ["++model._target_=efficient_track_anything.efficienttam_video_predictor.EfficientTAMVideoPredictor",
            "++model.compile_image_encoder=false", "++model.fill_hole_area=0"]
    if settings == "notebook":  # apply_postprocessing=True; samrt's notebook settings likewise
        over += ["++model.sam_mask_decoder_extra_args.dynamic_multimask_via_stability=true",
                 "++model.sam_mask_decoder_extra_args.dynamic_multimask_stability_delta=0.05",
                 "++model.sam_mask_decoder_extra_args.dynamic_multimask_stability_thresh=0.98",
                 "++model.binarize_mask_from_pts_for_mem_enc=true"]
    elif settings != "vos_inference":
        raise SystemExit(f"unknown settings profile {settings}")
    c = compose(config_name=_config_name(cfg), overrides=over)
    OmegaConf.resolve(c)
    torch.manual_seed(seed)
    model = instantiate(c.model, _recursive_=True)
    if ckpt:
        sd = torch.load(ckpt, map_location="cpu", weights_only=True)["model"]
        missing, unexpected = model.load_state_dict(sd)
        if missing or unexpected:
            raise RuntimeError(f"checkpoint keys: {len(missing)} missing, {len(unexpected)} unexpected")
    elif gate_open:
        with torch.no_grad():
            model.sam_mask_decoder.pred_obj_score_head.layers[-1].bias.fill_(10.0)
    return model.cuda().eval()

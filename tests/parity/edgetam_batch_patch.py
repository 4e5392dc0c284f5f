"""Lets the official EdgeTAM predictor track several objects: its spatial perceiver runs a
batch of B as B calls of batch 1.

EdgeTAM's predictor computes all objects of a frame as one batch, and its PerceiverResampler
fails for B > 1: forward_2d takes a view of the latents after expanding them over the batch,
which a stride-0 dimension does not allow. The perceiver has no interaction across the batch
(the latents are shared parameters; attention, LayerNorm and the feed-forward act per sample;
the window partition and the position encoding are per sample), so sample b's output of a
batched call is the batch-1 call on sample b: running the samples one by one and concatenating
gives the batched result (up to the float rounding of differently shaped matmuls, the same
freedom the batched kernels have).

Design choice: the class attribute `forward` is wrapped once, after the official package is
importable and before (or after) the model is built: instances use the class's method, so the
perceiver that `official_reference.build` instantiates from the YAML target
`sam2.modeling.perceiver.PerceiverResampler` is covered. Packages without that module (SAM 2.1)
are left alone.

Used by tests/parity/dump_taps.py and tests/parity/official_speed.py:
  import edgetam_batch_patch; edgetam_batch_patch.apply()   # after sys.path holds the package
"""
import importlib


def apply():
    """Wraps PerceiverResampler.forward; returns True when the package has one (idempotent)."""
    try:
        mod = importlib.import_module("sam2.modeling.perceiver")
    except ImportError:
        return False
    cls = mod.PerceiverResampler
    if getattr(cls.forward, "_one_by_one", False):
        return True
    single = cls.forward

    def forward(self, x, pos=None):
        if x.shape[0] <= 1:
            return single(self, x, pos)
        import torch
        outs = [single(self, x[b:b + 1], None if pos is None else pos[b:b + 1]) for b in range(x.shape[0])]
        latents = torch.cat([o[0] for o in outs], dim=0)
        out_pos = None if outs[0][1] is None else torch.cat([o[1] for o in outs], dim=0)
        return latents, out_pos

    forward._one_by_one = True
    cls.forward = forward
    return True

"""samrt.Model with an EfficientTAM checkpoint on the CPU backend: the variant chosen by
expect_model (the Ti variants share one key layout), its budget on the Jetson profiles without
a checkpoint (Model.plan_only), segmentation, tracking two objects, and a second session on the
same weights (Model.shared). The checkpoint is the seeded one of python_ckpt (conftest.py)."""
import numpy as np
import pytest

import samrt
from conftest import H, IMGSZ, W, frame, seeded_checkpoint


@pytest.fixture(scope="module")
def efftam_checkpoint(tmp_path_factory):
    """A seeded efficienttam_ti_2 checkpoint (the Ti key layout)."""
    return seeded_checkpoint(tmp_path_factory, "efficienttam_ti_2", "efficienttam_ti_2_seeded.safetensors")


@pytest.fixture(scope="module")
def efftam(efftam_checkpoint):
    m = samrt.Model(efftam_checkpoint, platform="cpu", imgsz=IMGSZ, max_objects=2, max_frame=(256, 256),
                    expect_model="efficienttam_ti_2")
    yield m
    m.close()


def test_variant_and_budget(efftam, efftam_checkpoint):
    info = efftam.info()
    assert info["model"] == "efficienttam_ti_2" and info["parameters"] == 17866018
    # the same weights as the S layout: refused by name
    with pytest.raises(samrt.Error):
        samrt.Model(efftam_checkpoint, platform="cpu", imgsz=IMGSZ, expect_model="efficienttam_s")
    assert "efficienttam_ti_2" in samrt.model_names() and "efficienttam_s_512x512" in samrt.model_names()
    b = efftam.budget()
    assert b["mem_kind"] == "host" and b["arena"] >= b["weights"] + b["state"] + b["scratch"]


@pytest.mark.parametrize("variant", ["efficienttam_ti_2", "efficienttam_ti_512x512", "efficienttam_s"])
def test_jetson_budgets(variant):
    imgsz = 512 if variant.endswith("_512x512") else 1024
    for profile in ("orin-nano-8gb", "orin-nx-16gb", "agx-orin-64gb"):
        p = samrt.Model.plan_only(variant, profile, precision="fp16", max_frame=(1920, 1080), imgsz=imgsz)
        b = p.budget()
        p.close()
        assert b["mem_kind"] == "unified" and b["arena"] <= b["pool_capacity"], (variant, profile, b)
        if variant == "efficienttam_ti_2" and profile == "orin-nano-8gb":  # the target of docs/jetson.md
            assert b["arena"] <= 150 * 2**20, b


def test_segment_and_track(efftam):
    seg = efftam.segment(frame(0), points=[[30, 30]], labels=[1])
    assert seg.mask.shape == (H, W)
    s = efftam.track(W, H)
    s.prompt(1, points=[[30, 30]], labels=[1])
    s.prompt(2, box=[40, 20, 70, 50])
    runs = []
    for i in range(3):
        out = s.push(frame(i))
        assert [r.obj_id for r in out] == [1, 2]
        runs.append([r.mask.copy() for r in out])
    assert np.array_equal(runs[0][0], seg.mask)  # the prompt frame is its segmentation
    # a second session on the same weights tracks the same video to the same masks
    other = efftam.shared()
    t = other.track(W, H)
    t.prompt(1, points=[[30, 30]], labels=[1])
    t.prompt(2, box=[40, 20, 70, 50])
    for i in range(3):
        out = t.push(frame(i))
        assert all(np.array_equal(r.mask, m) for r, m in zip(out, runs[i]))
    other.close()

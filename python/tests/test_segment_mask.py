"""Model.segment(mask=...) on the CPU backend with the seeded tiny checkpoint: a binary mask of
the image size and the float logits it becomes give the same result; the logits are the
library's (Model.mask_logits), +10 / -10 for a full / empty mask; a mask changes the output and
only the masked object's in a call of several; bad masks are ValueErrors before any C runs."""
import numpy as np
import pytest

from conftest import IMGSZ, frame

SIDE = IMGSZ // 4


def _rect(h=72, w=96, x0=20, y0=15, x1=60, y1=50):
    m = np.zeros((h, w), np.bool_)
    m[y0:y1 + 1, x0:x1 + 1] = True
    return m


def test_mask_logits(model):
    assert model.mask_input_side() == SIDE
    full = model.mask_logits(np.ones((72, 96), np.uint8), 96, 72)
    empty = model.mask_logits(np.zeros((72, 96), np.bool_), 96, 72)
    assert full.shape == (SIDE, SIDE) and full.dtype == np.float32
    assert np.allclose(full, 10.0, atol=1e-5) and np.allclose(empty, -10.0, atol=1e-5)
    lg = model.mask_logits(_rect(), 96, 72)
    assert lg.min() < -9.99 and lg.max() > 9.99 and lg[SIDE // 2, SIDE // 2] > 9.99


def test_segment_with_mask(model):
    img = frame(0)
    plain = model.segment(img, points=[[40, 30]], logits=True)
    binary = model.segment(img, points=[[40, 30]], mask=_rect(), logits=True)
    lg = model.mask_logits(_rect(), 96, 72)
    for form in (lg, lg[None].astype(np.float64)):  # (S, S); (1, S, S) as the official predictor, float64
        raw = model.segment(img, points=[[40, 30]], mask=form, logits=True)
        assert np.array_equal(raw.logits, binary.logits) and raw.iou == binary.iou
    assert not np.array_equal(binary.logits, plain.logits)  # the mask reaches the heads (calls repeat bit for bit)
    other = model.segment(img, points=[[40, 30]], mask=np.full((SIDE, SIDE), -10, np.float32), logits=True)
    assert not np.array_equal(other.logits, binary.logits)
    # several objects: only the masked one moves
    both = model.segment_objects(img, [dict(points=[[40, 30]]), dict(box=[20, 20, 44, 44], mask=_rect())],
                                 logits=True)
    alone = model.segment_objects(img, [dict(points=[[40, 30]]), dict(box=[20, 20, 44, 44])], logits=True)
    assert np.array_equal(both[0].logits, alone[0].logits)
    assert not np.array_equal(both[1].logits, alone[1].logits)


@pytest.mark.parametrize("mask, match", [
    (np.zeros((SIDE + 1, SIDE), np.float32), "float mask logits must have shape"),
    (np.zeros((10, 10), np.bool_), "must have shape"),
    (np.full((SIDE, SIDE), np.nan, np.float32), "finite"),
    (np.array([["a"]]), "must be float logits"),
])
def test_bad_masks(model, mask, match):
    with pytest.raises(ValueError, match=match):
        model.segment(frame(0), points=[[40, 30]], mask=mask)


def test_mask_alone(model):
    with pytest.raises(ValueError, match="a mask alone is not supported"):
        model.segment(frame(0), mask=_rect())

"""samrt.Model on the CPU backend with the seeded tiny checkpoint: info and budget, single-frame
segmentation (results, layouts, several objects), the checks done before C, the GIL released
during a call, and a closed model raising instead of crashing."""
import threading
import time

import numpy as np
import pytest

import samrt
from conftest import IMGSZ, Ticker, frame


def test_info_and_budget(model):
    info = model.info()
    assert info["model"] == "sam2.1_tiny" and info["parameters"] == 38962498
    assert info["precision"] == "f32" and info["platform"] == "cpu" and info["backend"] == "cpu"
    assert info["imgsz"] == IMGSZ and info["max_objects"] == 3 and not info["plan_only"]
    b = model.budget()
    assert b["mem_kind"] == "host"
    assert b["weights"] > 38962498 * 4 * 0.99 and b["arena"] >= b["weights"] + b["state"] + b["scratch"]
    assert "sam2.1_tiny" in repr(model)


def _check_result(r, h, w):
    assert r.mask.shape == (h, w) and r.mask.dtype == np.bool_
    assert r.area == int(r.mask.sum())
    if r.area:
        ys, xs = np.nonzero(r.mask)
        assert r.box == (xs.min(), ys.min(), xs.max(), ys.max())
    else:
        assert r.box is None


def test_segment(model):
    img = frame(0)
    r = model.segment(img, points=[[30, 30]], labels=[1])
    _check_result(r, 72, 96)
    assert isinstance(r.score, float) and isinstance(r.iou, float) and r.logits is None
    again = model.segment(img, points=np.array([[30.0, 30.0]]), labels=np.array([1]))
    assert np.array_equal(r.mask, again.mask) and r.score == again.score
    assert again.mask is not r.mask  # each call's arrays are the caller's own
    lg = model.segment(img, points=[[30, 30]], logits=True)  # labels default to 1
    assert lg.logits.shape == (72, 96) and lg.logits.dtype == np.float32
    assert np.array_equal(lg.logits > 0, lg.mask) and np.array_equal(lg.mask, r.mask)
    boxed = model.segment(img, box=[20, 20, 44, 44])
    _check_result(boxed, 72, 96)


def test_segment_layouts(model):
    """A crop with padded rows goes in without a copy, other layouts are copied: all give the
    same mask as the contiguous image."""
    big = np.zeros((100, 130, 3), np.uint8)
    big[10:82, 20:116] = frame(0)
    crop = big[10:82, 20:116]
    assert not crop.flags.c_contiguous
    ref = model.segment(np.ascontiguousarray(crop), points=[[30, 30]])
    assert np.array_equal(model.segment(crop, points=[[30, 30]]).mask, ref.mask)
    planar = np.ascontiguousarray(np.transpose(frame(0), (2, 0, 1)))
    hwc_view = np.transpose(planar, (1, 2, 0))  # strides (96, 1, 6912)
    assert np.array_equal(model.segment(hwc_view, points=[[30, 30]]).mask, ref.mask)


def test_segment_objects(model):
    img = frame(0)
    res = model.segment_objects(img, [dict(points=[[30, 30]]), dict(box=[0, 0, 95, 71]), dict(points=[[80, 60]])])
    assert len(res) == 3
    for r in res:
        _check_result(r, 72, 96)
    assert np.array_equal(res[0].mask, model.segment(img, points=[[30, 30]]).mask)
    with pytest.raises(ValueError, match="max_objects"):
        model.segment_objects(img, [dict(points=[[1, 1]])] * 4)
    with pytest.raises(ValueError, match="unknown keys"):
        model.segment_objects(img, [dict(point=[[1, 1]])])


@pytest.mark.parametrize("image, args, match", [
    (np.zeros((72, 96, 3), np.float32), dict(points=[[1, 1]]), "uint8"),
    (np.zeros((72, 96), np.uint8), dict(points=[[1, 1]]), "shape"),
    (np.zeros((72, 96, 4), np.uint8), dict(points=[[1, 1]]), "shape"),
    (np.zeros((0, 96, 3), np.uint8), dict(points=[[1, 1]]), "empty"),
    (np.zeros((72, 96, 3), np.uint8), dict(points=[[96, 10]]), "outside the 96x72"),
    (np.zeros((72, 96, 3), np.uint8), dict(points=[[-0.5, 10]]), "outside"),
    (np.zeros((72, 96, 3), np.uint8), dict(points=[[float("nan"), 10]]), "not finite"),
    (np.zeros((72, 96, 3), np.uint8), dict(points=[[1, 1]], labels=[2]), "label"),
    (np.zeros((72, 96, 3), np.uint8), dict(points=[[1, 1]], labels=[1, 0]), "labels for"),
    (np.zeros((72, 96, 3), np.uint8), dict(points=[[1, 1, 1]]), r"\(N, 2\)"),
    (np.zeros((72, 96, 3), np.uint8), dict(points=[[1, 1]] * 17), "at most 16"),
    (np.zeros((72, 96, 3), np.uint8), dict(box=[0, 0, 97, 10]), "outside"),
    (np.zeros((72, 96, 3), np.uint8), dict(box=[10, 0, 5, 10]), "x0 <= x1"),
    (np.zeros((72, 96, 3), np.uint8), dict(box=[1, 2, 3]), "x0, y0, x1, y1"),
    (np.zeros((72, 96, 3), np.uint8), dict(), "points or a box"),
    (np.zeros((300, 96, 3), np.uint8), dict(points=[[1, 1]]), "max_frame"),
])
def test_segment_bad_arguments(model, image, args, match):
    with pytest.raises(ValueError, match=match):
        model.segment(image, **args)


def test_segment_postproc(model):
    r = model.segment(frame(0), points=[[30, 30]], postproc="notebook")
    _check_result(r, 72, 96)
    with pytest.raises(ValueError, match="postproc"):
        model.segment(frame(0), points=[[30, 30]], postproc="fancy")


def test_gil_released_during_a_call(model):
    """A Python thread keeps counting while the library segments (ctypes.CDLL drops the GIL)."""
    img = frame(0)
    t0 = time.perf_counter()
    model.segment(img, points=[[30, 30]])
    call_s = time.perf_counter() - t0
    with Ticker() as t:
        model.segment(img, points=[[30, 30]])
    during = t.ticks
    # ~1 tick per ms when the thread runs; with the GIL held it would get none during the call
    assert during >= max(3, int(call_s * 1000 * 0.2)), (during, call_s)


def test_closed_model(fresh_model):
    img = frame(0)
    fresh_model.segment(img, points=[[30, 30]])
    fresh_model.close()
    assert fresh_model.closed
    for fn in (lambda: fresh_model.segment(img, points=[[30, 30]]), fresh_model.budget, fresh_model.info,
               lambda: fresh_model.track(96, 72), fresh_model.stage_times):
        with pytest.raises(samrt.StateError, match="closed"):
            fn()
    fresh_model.close()


def test_context_manager(checkpoint):
    with samrt.Model(checkpoint, platform="cpu", imgsz=IMGSZ) as m:
        assert m.model == "sam2.1_tiny"
    assert m.closed
    with pytest.raises(samrt.StateError):
        m.budget()


def test_close_waits_for_a_running_call(fresh_model):
    """close() from another thread during a call frees the engine after the call, never under it."""
    img = frame(0)
    errors = []

    def work():
        try:
            for _ in range(3):
                fresh_model.segment(img, points=[[30, 30]])
        except samrt.StateError:
            pass  # closed between two calls: refused, not crashed
        except Exception as exc:  # pragma: no cover - the failure being tested
            errors.append(exc)

    th = threading.Thread(target=work)
    th.start()
    time.sleep(0.01)
    fresh_model.close()
    th.join()
    assert not errors and fresh_model.closed


def test_sm_limit_needs_a_device_engine(checkpoint):
    # a green context confines GPU work: a host engine (the CPU profile) has none to confine
    with pytest.raises(samrt.UnsupportedError):
        samrt.Model(checkpoint, platform="cpu", imgsz=IMGSZ, sm_limit=8)
    with pytest.raises(ValueError, match="sm_limit"):
        samrt.Model(checkpoint, platform="cpu", imgsz=IMGSZ, sm_limit=-1)


def test_memory_policy(checkpoint):
    # the tracker's memory-selection policy: a name of samrt.h's enum, refused before any frame
    with pytest.raises(ValueError, match="memory_policy"):
        samrt.Model(checkpoint, platform="cpu", imgsz=IMGSZ, memory_policy="dam")
    plain = samrt.Model.plan_only("sam2.1_tiny", "cpu", imgsz=IMGSZ).budget()["state"]
    m = samrt.Model(checkpoint, platform="cpu", imgsz=IMGSZ, memory_policy="samurai")
    assert m.budget()["state"] > plain  # each object's filter state is planned
    m.close()

"""samrt.TrackSession on the CPU backend: prompts, pushed frames and their results (masks the
caller owns), mask prompts, stage times, and the misuse that must raise instead of crashing:
a frame of the wrong size or type, a session replaced by a newer one, a session of a closed
model."""
import gc

import numpy as np
import pytest

import samrt
from conftest import H, W, frame


def test_track(model):
    s = model.track(W, H)
    assert (s.width, s.height, s.frame_index) == (W, H, 0)
    s.prompt(7, points=[[30, 30]], labels=[1])
    first = s.push(frame(0))
    assert [r.obj_id for r in first] == [7]
    # the prompt frame is the segmentation of that frame (what the official predictor computes)
    seg = model.segment(frame(0), points=[[30, 30]], labels=[1])
    assert np.array_equal(first[0].mask, seg.mask) and first[0].score == pytest.approx(seg.score, rel=1e-5, abs=1e-4)
    s = model.track(W, H)
    s.prompt(7, points=[[30, 30]], labels=[1])
    s.prompt(3, box=[40, 20, 70, 50])
    seen = []
    before = s.io_counters()
    for i in range(3):
        out = s.push(frame(i))
        assert [r.obj_id for r in out] == [7, 3]  # first-prompt order
        for r in out:
            assert isinstance(r, samrt.TrackResult)
            assert r.mask.shape == (H, W) and r.mask.dtype == np.bool_ and r.mask.flags.owndata
            assert r.area == int(r.mask.sum())
            assert (r.box is None) == (r.area == 0)
            if r.area:
                ys, xs = np.nonzero(r.mask)
                assert r.box == (xs.min(), ys.min(), xs.max(), ys.max())
        seen.append(out)
    assert s.frame_index == 3 and s.object_ids == [7, 3]
    after = s.io_counters()  # a host engine reads host frames in place: nothing is copied
    assert {k: after[k] - before[k] for k in after} == {"frames_host": 3, "frames_device": 0, "frame_bytes_h2d": 0,
                                                        "frame_bytes_d2d": 0, "frame_bytes_d2h": 0}
    assert seen[0][0].mask is not seen[1][0].mask  # a new array per frame: earlier results stay valid
    times = s.stage_times()
    assert set(times) == {"preprocess", "h2d", "image_encoder", "memory_attention", "prompt_and_mask_decoder",
                          "memory_encoder", "postprocess", "d2h"}
    assert all(v is None or v >= 0 for v in times.values())


def test_track_new_object_later_and_correction(model):
    s = model.track(W, H)
    s.prompt(1, points=[[30, 30]])
    assert len(s.push(frame(0))) == 1
    s.prompt(2, points=[[60, 40]])
    assert [r.obj_id for r in s.push(frame(1))] == [1, 2]
    s.prompt(1, points=[[35, 30], [5, 5]], labels=[1, 0])  # a correction of object 1
    assert [r.obj_id for r in s.push(frame(2))] == [1, 2]


def test_mask_prompt_and_no_masks(model):
    s = model.track(W, H, masks=False)
    m = np.zeros((H, W), np.uint8)
    m[20:44, 20:44] = 255
    s.prompt(5, mask=m)
    out = s.push(frame(0))
    assert out[0].obj_id == 5 and out[0].mask is None and out[0].area >= 0
    s2 = model.track(W, H)
    s2.prompt(5, mask=m.astype(bool)[None])  # the official (1, H, W) layout
    assert s2.push(frame(0))[0].mask.shape == (H, W)
    with pytest.raises(ValueError, match="shape"):
        s2.prompt(6, mask=np.zeros((H, W + 1), bool))
    with pytest.raises(ValueError, match="no points"):
        s2.prompt(6, mask=m, points=[[1, 1]])


def test_remove(model):
    """Objects 1, 2, 3; 2 removed after two frames: 1 and 3 then equal a video without 2."""
    at = {1: [[20, 20]], 2: [[40, 30]], 3: [[60, 45]]}
    ref = model.track(W, H)
    for oid in (1, 3):
        ref.prompt(oid, points=at[oid])
    want = [ref.push(frame(i)) for i in range(4)]
    s = model.track(W, H)
    for oid in (1, 2, 3):
        s.prompt(oid, points=at[oid])
    for i in range(4):
        if i == 2:
            s.remove(2)
            assert s.object_ids == [1, 3]
        out = s.push(frame(i))
        if i >= 2:
            assert [r.obj_id for r in out] == [1, 3]
            for r, w in zip(out, want[i]):
                assert np.array_equal(r.mask, w.mask) and r.score == w.score, (i, r.obj_id)
    with pytest.raises(ValueError, match="not tracked"):
        s.remove(2)
    s.prompt(9, points=at[2])  # the freed slot
    assert [r.obj_id for r in s.push(frame(4))] == [1, 3, 9]


def test_bad_frames_and_prompts(model):
    s = model.track(W, H)
    s.prompt(1, points=[[30, 30]])
    with pytest.raises(ValueError, match="the video is 96x72"):
        s.push(frame(0, w=W + 2))
    with pytest.raises(ValueError, match="uint8"):
        s.push(frame(0).astype(np.float32))
    with pytest.raises(ValueError, match="shape"):
        s.push(frame(0)[..., 0])
    with pytest.raises(ValueError, match="outside the 96x72"):
        s.prompt(1, points=[[10, 72]])
    with pytest.raises(ValueError, match="obj_id"):
        s.prompt(-1, points=[[10, 10]])
    with pytest.raises(ValueError, match="max_objects"):
        for oid in range(2, 6):
            s.prompt(oid, points=[[10, 10]])
    with pytest.raises(ValueError, match="max_frame"):
        model.track(1000, 10)
    assert len(s.push(frame(0))) == 3  # the session still works after the refusals


def test_replaced_session(fresh_model):
    old = fresh_model.track(W, H)
    old.prompt(1, points=[[30, 30]])
    new = fresh_model.track(W, H)
    for fn in (lambda: old.push(frame(0)), lambda: old.prompt(1, points=[[30, 30]]), old.stage_times):
        with pytest.raises(samrt.StateError, match="replaced"):
            fn()
    new.prompt(1, points=[[30, 30]])
    assert len(new.push(frame(0))) == 1


def test_session_after_close(fresh_model):
    s = fresh_model.track(W, H)
    s.prompt(1, points=[[30, 30]])
    s.push(frame(0))
    fresh_model.close()
    for fn in (lambda: s.push(frame(1)), lambda: s.prompt(1, points=[[30, 30]]), s.stage_times,
               lambda: s.remove(1)):
        with pytest.raises(samrt.StateError, match="closed"):
            fn()


def test_session_keeps_its_model(checkpoint):
    s = samrt.Model(checkpoint, platform="cpu", imgsz=64).track(W, H)  # no other reference to the model
    gc.collect()
    s.prompt(1, points=[[30, 30]])
    assert len(s.push(frame(0))) == 1
    assert not s.model.closed
    s.model.close()


def _track_clip(m, n=4):
    s = m.track(W, H)
    s.prompt(7, points=[[30, 30]], labels=[1])
    out = []
    for i in range(n):
        out.append([(r.obj_id, r.mask.copy(), r.score) for r in s.push(frame(i))])
    return out


def test_shared_models_track_from_threads(fresh_model):
    """Model.shared(): other videos on the same weights, from threads at once, with the
    results of the model itself; closing the model first keeps the shared one working."""
    import threading
    ref = _track_clip(fresh_model)
    a, b = fresh_model.shared(), fresh_model.shared(max_objects=1, max_frame=(128, 128))
    mem, ma = a.budget(), fresh_model.budget()
    assert mem["weights"] == 0 and mem["weights_shared"] == ma["weights"] > 0
    assert mem["arena"] + mem["weights_shared"] == ma["arena"]
    assert a.info()["model"] == "sam2.1_tiny" and b.max_objects == 1
    got = {}

    def run(name, m):
        got[name] = _track_clip(m)

    threads = [threading.Thread(target=run, args=(k, m)) for k, m in (("model", fresh_model), ("a", a), ("b", b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in ("model", "a", "b"):
        for want, have in zip(ref, got[k]):
            assert [(i, s) for i, _, s in want] == [(i, s) for i, _, s in have], k
            assert all(np.array_equal(x[1], y[1]) for x, y in zip(want, have)), k
    fresh_model.close()
    again = _track_clip(a)
    assert all(np.array_equal(x[0][1], y[0][1]) for x, y in zip(ref, again))
    a.close()
    b.close()
    with pytest.raises(samrt.StateError):
        a.shared()

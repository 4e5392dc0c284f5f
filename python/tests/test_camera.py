"""samrt.CameraPredictor, the community SAM2CameraPredictor's calls (load_first_frame,
add_new_prompt, track) on the CPU backend: the outputs equal a TrackSession's on the same
frames, the prompt frame's logits are samrt_engine_segment's, prompts during tracking apply
from the next frame, conditioning frames, numpy / torch frames, and bad input (frames of
another size, a mask of the wrong size, prompts on frames that are not promptable)."""
import os

import numpy as np
import pytest

import samrt
from conftest import H, W, frame


def test_track_matches_session(model):
    cam = samrt.CameraPredictor(model)
    cam.load_first_frame(frame(0))
    fidx, ids, first = cam.add_new_prompt(frame_idx=0, obj_id=1, points=[[30, 30]], labels=[1])
    seg = model.segment(frame(0), points=[[30, 30]], labels=[1], logits=True)
    assert fidx == 0 and ids == [1] and first.shape == (1, 1, H, W) and first.dtype == np.float32
    assert np.array_equal(first[0, 0], seg.logits if seg.score > 0 else np.full((H, W), -10, np.float32))
    assert np.array_equal(first[0, 0] > 0, seg.mask)
    _, ids, logits = cam.add_new_prompt(0, 2, bbox=[40, 10, 80, 50])
    assert ids == [1, 2] and logits.shape == (2, 1, H, W)
    out = []
    for i in range(1, 3):
        ids, logits = cam.track(frame(i))
        assert ids == [1, 2] and cam.frame_idx == i
        assert set(np.unique(logits)) <= {-10.0, 10.0}  # logits-like: the C tracker gives masks
        out.append(logits)
    # new objects during tracking: on the latest frame, applied from the next track()
    with pytest.raises(ValueError, match="latest frame"):
        cam.add_new_prompt(0, 3, points=[[10, 10]])
    m = np.zeros((H, W), bool)
    m[5:20, 5:20] = True
    fidx, ids, logits = cam.add_new_prompt(2, 3, mask=m)
    assert fidx == 2 and ids == [1, 2, 3] and np.array_equal(logits[2, 0] > 0, m)
    assert np.array_equal(logits[:2], out[-1])  # the others: their tracked masks on that frame
    ids, logits = cam.track(frame(3))
    out.append(logits)
    _, ids, logits = cam.add_new_prompt(3, 1, points=[[70, 30]])  # a correction of object 1, from frame 4
    assert np.array_equal(logits[0, 0] > 0, model.segment(frame(3), points=[[70, 30]]).mask)
    ids, logits = cam.track(frame(4))
    out.append(logits)
    # the same frames and prompts through a TrackSession (the camera's session ends here)
    s = model.track(W, H)
    s.prompt(1, points=[[30, 30]], labels=[1])
    s.prompt(2, box=[40, 10, 80, 50])
    s.push(frame(0))
    for i in range(1, 5):
        if i == 3:
            s.prompt(3, mask=m)
        if i == 4:
            s.prompt(1, points=[[70, 30]])
        res = {r.obj_id: r.mask for r in s.push(frame(i))}
        for k, oid in enumerate(sorted(res)):
            assert np.array_equal(out[i - 1][k, 0] > 0, res[oid]), (i, oid)
    with pytest.raises(samrt.StateError, match="replaced"):
        cam.track(frame(5))


def test_remove_and_conditioning_frames(model):
    cam = samrt.CameraPredictor(model)
    cam.load_first_frame(frame(0))
    cam.add_conditioning_frame(frame(1))
    assert cam.frame_idx == 1
    cam.add_new_prompt(0, 1, points=[[0.3, 0.4]], normalize_coords=False)
    cam.add_new_prompt(1, 2, points=[[60, 30]])
    cam.add_new_prompt(1, 2, points=[[5, 5]], labels=[0], clear_old_points=False)
    with pytest.raises(ValueError, match="conditioning frames 0 .. 1"):
        cam.add_new_prompt(2, 1, points=[[1, 1]])
    ids, logits = cam.track(frame(2))  # runs frames 0 and 1 first
    assert ids == [1, 2] and cam.frame_idx == 2
    with pytest.raises(samrt.StateError, match="conditioning"):
        cam.add_conditioning_frame(frame(3))
    assert cam.remove_object(1) == [2]
    ids, after = cam.track(frame(3))
    assert ids == [2] and after.shape == (1, 1, H, W)
    s = model.track(W, H)
    s.prompt(1, points=[[0.3 * W, 0.4 * H]])
    s.push(frame(0))
    s.prompt(2, points=[[60, 30], [5, 5]], labels=[1, 0])
    s.push(frame(1))
    res = {r.obj_id: r.mask for r in s.push(frame(2))}
    assert all(np.array_equal(logits[k, 0] > 0, res[o]) for k, o in enumerate(ids))
    cam.reset_state()
    assert cam.obj_ids == [] and not cam.tracking_has_started and cam.frame_idx == 1
    assert cam.add_new_prompt(1, 7, bbox=[20, 20, 44, 44])[:2] == (1, [7])


def test_bad_input(model):
    cam = samrt.CameraPredictor(model)
    with pytest.raises(samrt.StateError, match="load_first_frame"):
        cam.track(frame(0))
    cam.load_first_frame(frame(0))
    with pytest.raises(ValueError, match=r"frame is 48x40, the first frame was 96x72"):
        cam.track(frame(1, w=48, h=40))
    with pytest.raises(ValueError, match=r"frame is 48x40, the first frame was 96x72"):
        cam.add_conditioning_frame(frame(1, w=48, h=40))
    with pytest.raises(ValueError, match=r"mask must have shape \(72, 96\)"):
        cam.add_new_prompt(0, 1, mask=np.ones((10, 10), bool))
    with pytest.raises(ValueError, match="outside"):
        cam.add_new_prompt(0, 1, points=[[W + 5, 1]])
    with pytest.raises(ValueError, match="needs points"):
        cam.add_new_prompt(0, 1)
    assert cam.obj_ids == []  # refused prompts leave no trace
    for oid in range(model.max_objects):
        cam.add_new_mask(0, oid, np.eye(H, W, dtype=bool))  # masks: no segmentation to run
    with pytest.raises(ValueError, match="max_objects"):
        cam.add_new_prompt(0, 99, points=[[10, 10]])
    with pytest.raises(ValueError, match="larger than the model's max_frame"):
        cam.load_first_frame(np.zeros((300, 10, 3), np.uint8))


def test_torch_frames(model):
    torch = pytest.importorskip("torch", reason="torch is optional and not installed")
    cam = samrt.CameraPredictor(model, output="torch")
    cam.load_first_frame(torch.from_numpy(frame(0)))
    _, _, logits = cam.add_new_prompt(0, 1, points=[[30, 30]])
    assert isinstance(logits, torch.Tensor) and logits.shape == (1, 1, H, W)
    ids, logits = cam.track(torch.from_numpy(frame(1)))
    assert ids == [1] and isinstance(logits, torch.Tensor) and logits.dtype == torch.float32
    ref = samrt.CameraPredictor(model)
    ref.load_first_frame(frame(0))
    ref.add_new_prompt(0, 1, points=[[30, 30]])
    assert np.array_equal(ref.track(frame(1))[1], logits.numpy())


def test_camera_over_a_video_file(model, data_dir):
    """The example's loop: frames from the library's reader into the camera predictor."""
    clip = os.path.join(data_dir, "video", "good", "tiny.mp4")
    if not samrt.video_available():
        pytest.skip("this libsamrt.so has no FFmpeg (SAMRT_VIDEO)")
    cam = samrt.CameraPredictor(model)
    with samrt.VideoReader(clip) as r:
        for i, img in enumerate(r):
            if i == 0:
                cam.load_first_frame(img)
                cam.add_new_prompt(0, 1, bbox=[10, 10, 40, 40])
            else:
                ids, logits = cam.track(img)
                assert ids == [1] and logits.shape == (1, 1, 48, 64)
            if i == 2:
                break
    assert cam.frame_idx == 2

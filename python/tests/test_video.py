"""samrt.VideoPredictor, the official streaming calls, on the CPU backend: a JPEG folder read by
the library's decoder, frames in memory, prompts applied at their frames, the outputs equal to
a TrackSession's on the same frames, and the documented differences (forward only)."""
import os
import shutil

import numpy as np
import pytest

import samrt
from conftest import H, W, frame


@pytest.fixture
def jpeg_folder(tmp_path, data_dir):
    """Four 17x13 JPEG frames named 0, 1, 2, 10 (integer order, not name order)."""
    ok = os.path.join(data_dir, "images", "ok")
    for name, src in (("0.jpg", "q90_420.jpg"), ("1.jpg", "q85_422_prog.jpg"), ("2.jpg", "gray.jpg"),
                      ("10.jpg", "q90_420.jpg")):
        shutil.copy(os.path.join(ok, src), tmp_path / name)
    (tmp_path / "notes.txt").write_text("not a frame")
    return str(tmp_path)


def test_jpeg_folder(model, jpeg_folder):
    pred = samrt.VideoPredictor(model)
    st = pred.init_state(jpeg_folder)
    assert (st["num_frames"], st["video_width"], st["video_height"]) == (4, 17, 13)
    assert [os.path.basename(p) for p in st.frames.paths] == ["0.jpg", "1.jpg", "2.jpg", "10.jpg"]
    fidx, ids, masks = pred.add_new_points_or_box(st, frame_idx=0, obj_id=1, points=[[8, 6]], labels=[1])
    assert fidx == 0 and ids == [1] and masks.shape == (1, 1, 13, 17) and masks.dtype == np.bool_
    frames = [samrt.read_image(p) for p in st.frames.paths]
    seg = model.segment(frames[0], points=[[8, 6]], labels=[1])
    assert np.array_equal(masks[0, 0], seg.mask)
    out = list(pred.propagate_in_video(st))
    assert [f for f, _, _ in out] == [0, 1, 2, 3]
    # the same frames through a TrackSession give the same masks
    s = model.track(17, 13)
    s.prompt(1, points=[[8, 6]], labels=[1])
    for (f, ids, m), img in zip(out, frames):
        assert ids == [1] and m.shape == (1, 1, 13, 17)
        assert np.array_equal(m[0, 0], s.push(img)[0].mask), f
    assert np.array_equal(out[0][2][0, 0], seg.mask)


def test_objects_prompted_on_later_frames(model):
    video = [frame(i) for i in range(5)]
    pred = samrt.VideoPredictor(model)
    st = pred.init_state(video)
    pred.add_new_points_or_box(st, 2, obj_id=4, points=[[30, 30]])
    _, ids, masks = pred.add_new_points_or_box(st, 1, obj_id=9, box=[40, 20, 70, 50])
    assert ids == [4, 9] and masks.shape == (2, 1, H, W)
    assert not masks[0].any()  # object 4 has no prompt on frame 1
    out = list(pred.propagate_in_video(st))
    assert [f for f, _, _ in out] == [1, 2, 3, 4]  # from the first prompted frame
    assert not out[0][2][0].any()  # object 4 is not tracked before its prompt frame (forward only)
    s = model.track(W, H)
    s.prompt(9, box=[40, 20, 70, 50])
    s.push(video[1])
    s.prompt(4, points=[[30, 30]])
    for f, ids, m in out[1:]:
        res = {r.obj_id: r.mask for r in s.push(video[f])}
        assert np.array_equal(m[0, 0], res[4]) and np.array_equal(m[1, 0], res[9]), f
    # start_frame_idx / max_frame_num_to_track: frame 1 still runs (object 9 starts there), unyielded
    part = list(pred.propagate_in_video(st, start_frame_idx=2, max_frame_num_to_track=1))
    assert [f for f, _, _ in part] == [2, 3]
    assert all(np.array_equal(a[2], b[2]) for a, b in zip(part, out[1:3]))


def test_prompt_rules(model):
    pred = samrt.VideoPredictor(model)
    st = pred.init_state([frame(i) for i in range(3)])
    with pytest.raises(ValueError, match="no prompts"):
        pred.propagate_in_video(st)
    with pytest.raises(ValueError, match="frame_idx"):
        pred.add_new_points_or_box(st, 3, 1, points=[[1, 1]])
    with pytest.raises(ValueError, match="outside"):
        pred.add_new_points_or_box(st, 0, 1, points=[[W, 1]])
    assert st.obj_ids == [] and st.prompts == {}  # refused prompts leave no trace
    # relative coordinates, and clicks added to a frame's earlier ones
    pred.add_new_points_or_box(st, 0, 1, points=[[0.3, 0.4]], labels=[1], normalize_coords=False)
    assert np.allclose(st.prompts[0][1]["points"], [[0.3 * W, 0.4 * H]])
    pred.add_new_points_or_box(st, 0, 1, points=[[5, 5]], labels=[0], clear_old_points=False)
    assert st.prompts[0][1]["points"].shape == (2, 2) and list(st.prompts[0][1]["labels"]) == [1, 0]
    with pytest.raises(ValueError, match="box"):
        pred.add_new_points_or_box(st, 0, 1, box=[0, 0, 5, 5], clear_old_points=False)
    m = np.zeros((H, W), bool)
    m[10:30, 10:30] = True
    _, ids, masks = pred.add_new_mask(st, 1, 2, m)
    assert ids == [1, 2] and np.array_equal(masks[1, 0], m)
    with pytest.raises(NotImplementedError, match="forward"):
        pred.propagate_in_video(st, reverse=True)
    assert [f for f, _, _ in pred.propagate_in_video(st)] == [0, 1, 2]
    assert pred.remove_object(st, 2) == ([1], None) and 1 not in st.prompts
    pred.reset_state(st)
    assert st.obj_ids == [] and st.prompts == {}


def test_video_file(model, tmp_path, data_dir):
    """A video file is decoded by the library's FFmpeg reader (no ffmpeg program needed)."""
    pred = samrt.VideoPredictor(model)
    with pytest.raises(samrt.FileError, match="missing.mp4"):
        pred.init_state(str(tmp_path / "missing.mp4"))
    clip = os.path.join(data_dir, "video", "good", "tiny.mp4")
    if not samrt.video_available():
        with pytest.raises(samrt.UnsupportedError):
            pred.init_state(clip)
        pytest.skip("this libsamrt.so has no FFmpeg: the video-file path is checked for its refusal only")
    with samrt.VideoReader(clip) as r:
        raw = list(r)
    st = pred.init_state(clip)
    assert (st.num_frames, st.video_width, st.video_height) == (len(raw), 64, 48) == (20, 64, 48)
    assert np.array_equal(st.frames.get(2), raw[2]) and np.array_equal(st.frames.get(1), raw[1])  # back: reopened
    pred.add_new_points_or_box(st, 18, 1, points=[[30, 30]])
    out = list(pred.propagate_in_video(st))
    assert [f for f, _, _ in out] == [18, 19]
    s = model.track(64, 48)
    s.prompt(1, points=[[30, 30]])
    for (f, _, m), img in zip(out, raw[18:]):
        assert np.array_equal(m[0, 0], s.push(img)[0].mask), f


def test_torch_output(model):
    torch = pytest.importorskip("torch", reason="torch is optional and not installed")
    pred = samrt.VideoPredictor(model, output="torch")
    st = pred.init_state([frame(i) for i in range(2)])
    _, _, masks = pred.add_new_points_or_box(st, 0, 1, points=[[30, 30]])
    assert isinstance(masks, torch.Tensor) and masks.shape == (1, 1, H, W)
    for _, _, m in pred.propagate_in_video(st):
        assert isinstance(m, torch.Tensor) and bool((m > 0.0).any()) == bool(m.any())


def test_predictor_from_checkpoint(checkpoint):
    pred = samrt.VideoPredictor(checkpoint, platform="cpu", imgsz=64, max_objects=2)
    assert pred.model.max_objects == 2
    with pytest.raises(ValueError, match="output"):
        samrt.VideoPredictor(pred.model, output="jax")
    with pytest.raises(ValueError, match="max_frame"):
        pred.init_state([np.zeros((4000, 10, 3), np.uint8)])
    pred.model.close()

"""The package on a GPU (ctest: test_python_cuda, label cuda): a device arena, segmentation and
tracking equal to the host engine's at fp32, an object removed on the device, frames pushed
from GPU memory (torch CUDA tensors) equal to host frames, stage times and speed, and the GIL
released during pushes. Every test is skipped,
with the reason, when the library is a CPU build or no GPU is visible."""
import time

import numpy as np
import pytest

import samrt
from conftest import Ticker, frame

SIDE = 256  # small enough for the host engine it is compared with


def _gpu_reason():
    if not samrt.has_cuda():
        return "libsamrt is a CPU build (SAMRT_CUDA=OFF)"
    if samrt.device_count() == 0:
        return "no CUDA device is visible"
    return None


pytestmark = pytest.mark.skipif(_gpu_reason() is not None, reason=str(_gpu_reason()))


def _iou(a, b):
    union = np.logical_or(a, b).sum()
    return 1.0 if union == 0 else np.logical_and(a, b).sum() / union


@pytest.fixture(scope="module")
def gpu_model(checkpoint):
    m = samrt.Model(checkpoint, precision="fp32", imgsz=SIDE, max_objects=2, max_frame=(640, 480))
    yield m
    m.close()


def test_device_arena(gpu_model):
    info = gpu_model.info()
    assert info["backend"] == "cuda" and info["budget"]["mem_kind"] in ("device", "unified")
    assert samrt.devices()[0]["name"]
    print("device:", samrt.devices()[0]["name"], "profile:", info["platform"], "arena MiB:",
          round(info["budget"]["arena"] / 2**20, 2))


def test_matches_the_host_engine(gpu_model, checkpoint):
    host = samrt.Model(checkpoint, platform="cpu", imgsz=SIDE, max_objects=2, max_frame=(640, 480))
    img = frame(0)
    g = gpu_model.segment(img, points=[[30, 30]])
    h = host.segment(img, points=[[30, 30]])
    assert _iou(g.mask, h.mask) > 0.99 and g.score == pytest.approx(h.score, rel=1e-2, abs=1e-2)
    sg, sh = gpu_model.track(96, 72), host.track(96, 72)
    for s in (sg, sh):
        s.prompt(1, points=[[30, 30]])
        s.prompt(2, box=[40, 20, 70, 50])
    # Seeded random weights give small masks whose edges sit on near-zero logits: a few edge
    # pixels may flip between the GPU and the C reference (other summation orders), which an
    # IoU of a 40-pixel mask magnifies. Judge the pixels of the frame and the object scores.
    for i in range(4):
        for rg, rh in zip(sg.push(frame(i)), sh.push(frame(i))):
            flipped = float(np.mean(rg.mask != rh.mask))
            assert rg.obj_id == rh.obj_id and flipped <= 0.005, (i, rg.obj_id, flipped)
            assert rg.score == pytest.approx(rh.score, rel=1e-3, abs=1e-3), (i, rg.obj_id)
    host.close()


def test_remove_on_device(checkpoint):
    """samrt_engine_track_remove moves the later objects' bank rows on the device: after object
    2 leaves, 1 and 3 match a video that never had it."""
    with samrt.Model(checkpoint, precision="fp32", imgsz=SIDE, max_objects=3, max_frame=(96, 72)) as m:
        at = {1: [[20, 20]], 2: [[40, 30]], 3: [[60, 45]]}
        ref = m.track(96, 72)
        for oid in (1, 3):
            ref.prompt(oid, points=at[oid])
        want = [[r.mask for r in ref.push(frame(i))] for i in range(4)]
        s = m.track(96, 72)
        for oid in (1, 2, 3):
            s.prompt(oid, points=at[oid])
        for i in range(4):
            if i == 2:
                s.remove(2)
            out = s.push(frame(i))
            if i >= 2:
                assert [r.obj_id for r in out] == [1, 3]
                for r, w in zip(out, want[i]):
                    assert _iou(r.mask, w) > 0.99, (i, r.obj_id)


def test_device_frames(gpu_model):
    torch = pytest.importorskip("torch", reason="torch is optional and not installed")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    a, b = gpu_model.track(96, 72), None
    a.prompt(1, points=[[30, 30]])
    host_out = [a.push(frame(i))[0].mask for i in range(3)]
    b = gpu_model.track(96, 72)
    b.prompt(1, points=[[30, 30]])
    before = b.io_counters()
    for i in range(3):
        dev = torch.from_numpy(frame(i)).cuda()
        assert np.array_equal(b.push(dev)[0].mask, host_out[i]), i
    # the frames went from torch's memory to the arena's staging slot on the GPU: no host copy
    after = b.io_counters()
    delta = {k: after[k] - before[k] for k in after}
    assert delta == {"frames_host": 0, "frames_device": 3, "frame_bytes_h2d": 0, "frame_bytes_d2d": 3 * 96 * 72 * 3,
                     "frame_bytes_d2h": 0}, delta
    with pytest.raises(ValueError, match="the video is 96x72"):
        b.push(torch.zeros((72, 98, 3), dtype=torch.uint8, device="cuda"))


def test_stage_times_and_speed(checkpoint):
    with samrt.Model(checkpoint, max_objects=1, max_frame=(1280, 720)) as m:  # the profile's precision, 1024
        s = m.track(1280, 720)
        s.prompt(1, points=[[600, 300]])
        frames = [np.ascontiguousarray(np.resize(frame(i, 160, 90), (720, 1280, 3))) for i in range(8)]
        s.push(frames[0])
        n = 40
        with Ticker() as ticker:
            t0 = time.perf_counter()
            for i in range(n):
                s.push(frames[i % len(frames)])
            dt = time.perf_counter() - t0
        times = s.stage_times()
        assert times["image_encoder"] is not None and times["image_encoder"] > 0
        print(f"{m.info()['precision']} 1280x720 tracking: {n / dt:.1f} frames/s from Python, stage times {times}, "
              f"thread ticks {ticker.ticks} in {dt * 1000:.0f} ms")
        assert ticker.ticks >= dt * 1000 * 0.2  # the GIL is free while frames run

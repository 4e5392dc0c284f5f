"""samrt.VideoReader, the library's FFmpeg reader (include/samrt_video.h) from Python: the good
corpus read to the end (size, count, rate), frames into a caller's buffer, and bad input
raising clear errors (a missing file, a truncated file, not a video). Without FFmpeg in the
library: open raises samrt.UnsupportedError, and the rest is skipped with that reason."""
import os
import shutil

import numpy as np
import pytest

import samrt
from samrt.frames import open_frames


@pytest.fixture
def video_dir(data_dir):
    d = os.path.join(data_dir, "video")
    if not samrt.video_available():
        with pytest.raises(samrt.UnsupportedError):
            samrt.VideoReader(os.path.join(d, "good", "tiny.mp4"))
        pytest.skip("this libsamrt.so has no FFmpeg (SAMRT_VIDEO): the reader is checked for its refusal only")
    return d


def test_read_good(video_dir):
    with samrt.VideoReader(os.path.join(video_dir, "good", "tiny.mp4")) as r:
        assert (r.width, r.height, r.num_frames, r.fps, r.is_camera) == (64, 48, 20, 24.0, False)
        first = r.read()
        assert first.shape == (48, 64, 3) and first.dtype == np.uint8 and r.next_index == 1
        buf = np.zeros_like(first)
        assert r.read(out=buf) is buf and buf.any()
        with pytest.raises(ValueError, match="out must be"):
            r.read(out=np.zeros((48, 64), np.uint8))
        rest = list(r)
        assert len(rest) == 18 and r.next_index == 20
        assert r.read() is None and r.read() is None  # the end, said again
    with pytest.raises(samrt.StateError, match="closed"):
        r.read()
    mkv = samrt.VideoReader(os.path.join(video_dir, "good", "tiny.mkv"))  # no count in the container
    assert mkv.num_frames == 20 and np.array_equal(mkv.read(), first)
    mkv.close()


def test_bad_input(video_dir, tmp_path):
    with pytest.raises(samrt.FileError, match="nothing.mp4"):
        samrt.VideoReader(tmp_path / "nothing.mp4")
    with pytest.raises(samrt.FormatError, match="text.mp4"):
        samrt.VideoReader(os.path.join(video_dir, "bad", "text.mp4"))
    # the good clip cut to half: its container lists 20 frames the data no longer holds
    cut = tmp_path / "cut.mp4"
    shutil.copy(os.path.join(video_dir, "bad", "truncated_half.mp4"), cut)
    r = samrt.VideoReader(cut)
    with pytest.raises(samrt.FormatError, match="cut off"):
        list(r)
    with pytest.raises(samrt.StateError, match="earlier frame"):
        r.read()  # no reading on from a failed frame
    r.close()

    with pytest.raises(samrt.FormatError):
        open_frames(os.path.join(video_dir, "bad", "truncated.mkv"))

"""Video frame sources for samrt.VideoPredictor: a folder of JPEG frames (decoded by
libsamrt.so's reader, as the official predictor's folder loader names and orders them), an
.mp4 or other video file (through an `ffmpeg` program on PATH: the library itself has no
video decoder), or frames already in memory (a sequence of H x W x 3 uint8 arrays).

A source knows its size and length up front and decodes one frame at a time, so a video is
never all in memory; iterate() decodes the next frame on a thread while the caller runs the
model on the current one (both release the GIL).
"""
import concurrent.futures
import os
import shutil
import subprocess
from typing import Any, Iterator, List, Sequence, Tuple

import numpy as np

from . import _checks, errors
from .system import image_size, read_image

JPEG_EXT = (".jpg", ".jpeg", ".JPG", ".JPEG")


class FrameSource:
    """width, height, len(); get(i) -> H x W x 3 uint8; iterate(start, stop) in order."""
    width: int
    height: int
    name: str

    def __len__(self) -> int:
        raise NotImplementedError

    def get(self, index: int) -> np.ndarray:
        raise NotImplementedError

    def _check(self, index: int, frame: np.ndarray) -> np.ndarray:
        if frame.shape != (self.height, self.width, 3):
            raise ValueError(f"{self.name}: frame {index} is {frame.shape[1]}x{frame.shape[0]}, "
                             f"frame 0 is {self.width}x{self.height}")
        return frame

    def iterate(self, start: int, stop: int) -> Iterator[Tuple[int, np.ndarray]]:
        """Frames start .. stop - 1, each decoded while the previous one is in use."""
        if start >= stop:
            return
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            nxt = pool.submit(self.get, start)
            for i in range(start, stop):
                frame = nxt.result()
                if i + 1 < stop:
                    nxt = pool.submit(self.get, i + 1)
                yield i, frame


class JpegFolder(FrameSource):
    """The .jpg / .jpeg files of a folder, ordered by the integer of their names (00000.jpg,
    00001.jpg, ...) as the official loader does, or by name where a name is not a number."""

    def __init__(self, folder: str) -> None:
        names = [n for n in os.listdir(folder) if os.path.splitext(n)[1] in JPEG_EXT]
        if not names:
            raise ValueError(f"{folder}: no JPEG frames (*.jpg, *.jpeg)")
        stems = [os.path.splitext(n)[0] for n in names]
        if all(s.isdigit() for s in stems):
            names.sort(key=lambda n: int(os.path.splitext(n)[0]))
        else:
            names.sort()
        self.paths: List[str] = [os.path.join(folder, n) for n in names]
        self.name = folder
        self.width, self.height = image_size(self.paths[0])

    def __len__(self) -> int:
        return len(self.paths)

    def get(self, index: int) -> np.ndarray:
        return self._check(index, read_image(self.paths[index]))


class ArrayFrames(FrameSource):
    """Frames already in memory: a sequence of H x W x 3 uint8 arrays, or one N x H x W x 3."""

    def __init__(self, frames: Sequence[Any]) -> None:
        if len(frames) == 0:
            raise ValueError("no frames")
        self.frames = frames
        self.name = "frames"
        first, _ = _checks.rgb8(frames[0], "frame 0")
        self.height, self.width = int(first.shape[0]), int(first.shape[1])

    def __len__(self) -> int:
        return len(self.frames)

    def get(self, index: int) -> np.ndarray:
        arr, _ = _checks.rgb8(self.frames[index], f"frame {index}")
        return self._check(index, arr)


def _ffmpeg_tool(name: str, path: str) -> str:
    exe = shutil.which(name)
    if exe is None:
        raise errors.UnsupportedError(f"{path}: reading a video file needs the `{name}` program on PATH (the samrt "
                                      "library has no video decoder); or pass a folder of JPEG frames",
                                      errors.E_UNSUPPORTED, "unsupported")
    return exe


class FfmpegVideo(FrameSource):
    """A video file decoded by the ffmpeg program to RGB24 (size and frame count from ffprobe)."""

    def __init__(self, path: str) -> None:
        if not os.path.isfile(path):
            raise errors.FileError(f"{path}: no such file", errors.E_IO, "I/O error")
        self.path = self.name = path
        self.ffmpeg = _ffmpeg_tool("ffmpeg", path)
        probe = _ffmpeg_tool("ffprobe", path)
        out = subprocess.run([probe, "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                              "stream=width,height,nb_read_packets", "-of", "csv=p=0", path],
                             capture_output=True, text=True)
        fields = out.stdout.strip().split(",")
        if out.returncode != 0 or len(fields) < 3 or not all(f.strip().isdigit() for f in fields[:3]):
            raise errors.FormatError(f"{path}: ffprobe cannot read a video stream: {out.stderr.strip()}",
                                     errors.E_FORMAT, "format error")
        self.width, self.height, self.n = (int(f) for f in fields[:3])

    def __len__(self) -> int:
        return self.n

    def _run(self, extra: List[str], count: int) -> Iterator[np.ndarray]:
        cmd = [self.ffmpeg, "-v", "error", "-i", self.path] + extra + ["-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
        size = self.width * self.height * 3
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
            assert proc.stdout is not None
            try:
                for i in range(count):
                    buf = proc.stdout.read(size)
                    if len(buf) != size:
                        raise errors.FormatError(f"{self.path}: ffmpeg gave {i} of {count} frames",
                                                 errors.E_FORMAT, "format error")
                    yield np.frombuffer(buf, dtype=np.uint8).reshape(self.height, self.width, 3).copy()
            finally:
                proc.kill()

    def get(self, index: int) -> np.ndarray:
        return next(self._run(["-vf", f"select=eq(n\\,{index})", "-vsync", "0", "-frames:v", "1"], 1))

    def iterate(self, start: int, stop: int) -> Iterator[Tuple[int, np.ndarray]]:
        if start >= stop:
            return
        extra = ["-vf", f"select=gte(n\\,{start})", "-vsync", "0"] if start > 0 else []
        for i, frame in enumerate(self._run(extra, stop - start)):
            yield start + i, frame


def open_frames(video: Any) -> FrameSource:
    """The source for init_state's argument: a JPEG folder, a video file, or frames in memory."""
    if isinstance(video, (str, os.PathLike)):
        path = os.fspath(video)
        if os.path.isdir(path):
            return JpegFolder(path)
        return FfmpegVideo(path)
    return ArrayFrames(video)

"""Video frame sources for samrt.VideoPredictor: a folder of JPEG frames (decoded by
libsamrt.so's reader, as the official predictor's folder loader names and orders them), an
.mp4 or other video file (decoded by libsamrt.so's FFmpeg reader, samrt.VideoReader), or
frames already in memory (a sequence of H x W x 3 uint8 arrays).

A source knows its size and length up front and decodes one frame at a time, so a video is
never all in memory; iterate() decodes the next frame on a thread while the caller runs the
model on the current one (both release the GIL).
"""
import concurrent.futures
import os
import threading
from typing import Any, Iterator, List, Sequence, Tuple

import numpy as np

from . import _checks, errors
from .reader import VideoReader
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


class LibraryVideo(FrameSource):
    """A video file decoded by libsamrt.so's FFmpeg reader (samrt.VideoReader). Frames come in
    order; get(i) reads on from the last frame read, or opens the file again for an earlier one."""

    def __init__(self, path: str) -> None:
        self.path = self.name = path
        self._lock = threading.Lock()
        self._reader = VideoReader(path)
        if self._reader.is_camera:
            self._reader.close()
            raise ValueError(f"{path} is a camera (no end): track it with samrt.CameraPredictor, not init_state")
        self.width, self.height, self.n = self._reader.width, self._reader.height, self._reader.num_frames

    def __len__(self) -> int:
        return self.n

    def get(self, index: int) -> np.ndarray:
        if not 0 <= index < self.n:
            raise IndexError(f"{self.path}: frame {index} of {self.n}")
        with self._lock:
            if self._reader.next_index > index:
                self._reader.close()
                self._reader = VideoReader(self.path)
            while True:
                at = self._reader.next_index
                frame = self._reader.read()
                if frame is None:
                    raise errors.FormatError(f"{self.path}: the video ended after {at} of {self.n} frames",
                                             errors.E_FORMAT, "format error")
                if at == index:
                    return frame


def open_frames(video: Any) -> FrameSource:
    """The source for init_state's argument: a JPEG folder, a video file, or frames in memory."""
    if isinstance(video, (str, os.PathLike)):
        path = os.fspath(video)
        if os.path.isdir(path):
            return JpegFolder(path)
        return LibraryVideo(path)
    return ArrayFrames(video)

"""samrt.VideoReader: video files and cameras decoded by libsamrt.so's own FFmpeg reader
(include/samrt_video.h, the reader behind `samrt track --video`), one RGB8 frame at a time, so
that neither VideoPredictor.init_state("clip.mp4") nor a camera loop needs an ffmpeg program or
OpenCV. A library built without FFmpeg raises samrt.UnsupportedError on open, with the
library's reason.

    with samrt.VideoReader("clip.mp4") as r:        # or "/dev/video0"
        r.width, r.height, r.num_frames, r.fps      # num_frames -1 for a camera
        for frame in r:                             # H x W x 3 uint8 RGB, a new array each
            ...
"""
import ctypes
import os
import threading
from typing import Iterator, Optional

import numpy as np

from . import _capi, errors

_CALLS = ("samrt_video_reader_open", "samrt_video_reader_info", "samrt_video_reader_next", "samrt_video_reader_close")


def video_available() -> bool:
    """True when the loaded libsamrt.so reads video (built with FFmpeg)."""
    return _capi.has("samrt_video_reader_available") and bool(_capi.lib().samrt_video_reader_available())


class VideoReader(_capi.Closing):
    """A video file (mp4, mkv, webm, avi, ... whatever the linked FFmpeg decodes) or a V4L2
    camera (/dev/videoN), read forward one frame at a time. Errors: samrt.FileError (cannot
    open), samrt.FormatError (not a video; a frame that does not decode; a file cut off before
    the frames its container lists), samrt.UnsupportedError (no FFmpeg in the library). After
    a frame's error the reader raises samrt.StateError: open it again. One thread at a time."""

    def __init__(self, path: "os.PathLike[str] | str") -> None:
        self.path = os.fsdecode(path)
        self._handle: Optional[ctypes.c_void_p] = None
        self._lock = threading.Lock()
        lib = _capi.lib()
        if not all(_capi.has(n) for n in _CALLS):
            raise errors.UnsupportedError(f"{_capi.library_path()} has no video reader (samrt_video_reader_open): "
                                          "a libsamrt.so built by this project has one", errors.E_UNSUPPORTED,
                                          "unsupported")
        h = ctypes.c_void_p()
        _capi.call("samrt_video_reader_open", lib.samrt_video_reader_open, os.fsencode(path), ctypes.byref(h))
        self._handle = h
        w, hh, n, fps = ctypes.c_int(), ctypes.c_int(), ctypes.c_int64(), ctypes.c_double()
        _capi.call("samrt_video_reader_info", lib.samrt_video_reader_info, h, ctypes.byref(w), ctypes.byref(hh),
                   ctypes.byref(n), ctypes.byref(fps))
        self.width, self.height = int(w.value), int(hh.value)
        self.num_frames = int(n.value)
        """frames the file holds; -1 for a camera (no end)."""
        self.fps = float(fps.value)
        """average frame rate; 0.0 when the container does not say."""
        self.next_index = 0
        """the index the next read() returns (frames read so far)."""

    @property
    def is_camera(self) -> bool:
        return self.num_frames < 0

    def read(self, out: Optional[np.ndarray] = None) -> Optional[np.ndarray]:
        """The next frame as an H x W x 3 uint8 RGB array (into `out` when given: a C-contiguous
        array of that shape), or None at the end of the video."""
        if out is None:
            out = np.empty((self.height, self.width, 3), dtype=np.uint8)
        elif out.shape != (self.height, self.width, 3) or out.dtype != np.uint8 or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous ({self.height}, {self.width}, 3) uint8 array")
        eof = ctypes.c_int()
        with self._lock:
            if self._handle is None:
                raise errors.state_error(f"{self.path}: the reader is closed")
            _capi.call("samrt_video_reader_next", _capi.lib().samrt_video_reader_next, self._handle, out.ctypes.data,
                       out.nbytes, ctypes.byref(eof))
        if eof.value:
            return None
        self.next_index += 1
        return out

    def __iter__(self) -> Iterator[np.ndarray]:
        while True:
            frame = self.read()
            if frame is None:
                return
            yield frame

    def close(self) -> None:
        with self._lock:
            if self._handle is not None:
                _capi.lib().samrt_video_reader_close(self._handle)
                self._handle = None

    def __repr__(self) -> str:
        n = "camera" if self.is_camera else f"{self.num_frames} frames"
        return f"<samrt.VideoReader {self.path}: {self.width}x{self.height}, {n}, {self.fps:g} fps>"

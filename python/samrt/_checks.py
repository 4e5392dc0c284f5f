"""Argument checks and conversions done in Python, before any C code runs: RGB8 frames, masks,
clicks and boxes. Everything the C library would refuse is refused here first with a
ValueError that names the argument, and arrays reach C only as memory whose layout and
lifetime the caller cannot change under it (a copy when the caller's layout does not fit).
"""
import ctypes
import math
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from . import _capi

ArrayLike = Any


def rgb8(image: ArrayLike, what: str = "image") -> Tuple[np.ndarray, _capi.Image]:
    """An HxWx3 uint8 image as (the array that must stay alive during the call, the C view).
    Rows may be padded (a crop of a larger frame is passed without a copy); anything else that
    is not row-major with 3 contiguous bytes per pixel is copied."""
    arr = np.asarray(image)
    if arr.dtype != np.uint8:
        raise ValueError(f"{what} must be uint8 RGB (HxWx3), not {arr.dtype}")
    if arr.ndim != 3 or arr.shape[2] != 3:
        raise ValueError(f"{what} must have shape (height, width, 3), not {arr.shape}")
    h, w = int(arr.shape[0]), int(arr.shape[1])
    if h < 1 or w < 1:
        raise ValueError(f"{what} is empty ({w}x{h})")
    if arr.strides[2] != 1 or arr.strides[1] != 3 or arr.strides[0] < 3 * w:
        arr = np.ascontiguousarray(arr)
    view = _capi.Image(arr.ctypes.data, w, h, int(arr.strides[0]))
    return arr, view


def mask8(mask: ArrayLike, width: int, height: int, what: str = "mask") -> np.ndarray:
    """A height x width mask (bool or any integer / float dtype: nonzero = object) as a
    contiguous uint8 array of 0 / 1."""
    arr = np.asarray(mask)
    if arr.ndim == 3 and arr.shape[0] == 1:  # the official (1, H, W) masks
        arr = arr[0]
    if arr.shape != (height, width):
        raise ValueError(f"{what} must have shape ({height}, {width}) (height, width), not {arr.shape}")
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{what} must be bool or numeric, not {arr.dtype}")
    return np.ascontiguousarray(arr != 0, dtype=np.uint8)


def mask_input(mask: ArrayLike, width: int, height: int, side: int, what: str = "mask") -> Tuple[str, np.ndarray]:
    """An object's mask prompt: ("logits", side x side float32) for float mask-input logits of
    shape (side, side) or (1, side, side) -- SAM2ImagePredictor's mask_input, e.g. an earlier
    call's low-res logits --, or ("binary", height x width uint8 0 / 1) for a bool / integer
    mask of the image's size. Anything else is a ValueError that says which forms fit."""
    arr = np.asarray(mask)
    if arr.dtype.kind == "f":
        if arr.ndim == 3 and arr.shape[0] == 1:
            arr = arr[0]
        if arr.shape != (side, side):
            raise ValueError(f"{what}: float mask logits must have shape ({side}, {side}) or (1, {side}, {side}) "
                             f"(the model's low-res side, imgsz / 4), not {np.asarray(mask).shape}; a binary mask "
                             f"of the image size must be bool or integer")
        arr = np.ascontiguousarray(arr, dtype=np.float32)
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{what}: the mask logits must be finite")
        return "logits", arr
    if arr.dtype.kind not in "biu":
        raise ValueError(f"{what} must be float logits ({side}x{side}) or a bool / integer mask "
                         f"({height}x{width}), not {arr.dtype}")
    return "binary", mask8(arr, width, height, what)


def _finite_pair(p: Sequence[float], what: str) -> Tuple[float, float]:
    x, y = float(p[0]), float(p[1])
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ValueError(f"{what} ({x}, {y}) is not finite")
    return x, y


def prompt(width: int, height: int, points: Optional[ArrayLike] = None, labels: Optional[ArrayLike] = None,
           box: Optional[ArrayLike] = None) -> _capi.ObjectPrompt:
    """One object's clicks (points: N x 2 pixel (x, y); labels: N of 1 = object, 0 = background,
    all 1 when left out) and / or box (x0, y0, x1, y1 in pixels) on a width x height frame, as
    the C struct. The rules are the library's, checked in float32 as it does."""
    p = _capi.ObjectPrompt()
    if points is not None:
        pts = np.asarray(points, dtype=np.float64)
        if pts.size == 0:
            pts = pts.reshape(0, 2)
        if pts.ndim == 1 and pts.shape[0] == 2:
            pts = pts.reshape(1, 2)
        if pts.ndim != 2 or pts.shape[1] != 2:
            raise ValueError(f"points must have shape (N, 2) of (x, y), not {pts.shape}")
        n = pts.shape[0]
        if n > _capi.MAX_CLICKS:
            raise ValueError(f"{n} points: an object takes at most {_capi.MAX_CLICKS}")
        lab = np.ones(n, dtype=np.int64) if labels is None else np.asarray(labels).reshape(-1)
        if lab.shape[0] != n:
            raise ValueError(f"{lab.shape[0]} labels for {n} points")
        for i in range(n):
            x, y = _finite_pair(pts[i], f"point {i}")
            xf, yf = float(np.float32(x)), float(np.float32(y))
            if not (0.0 <= xf < width and 0.0 <= yf < height):
                raise ValueError(f"point {i} at ({x:g}, {y:g}) lies outside the {width}x{height} frame")
            if lab[i] not in (0, 1):
                raise ValueError(f"label {i} is {lab[i]!r}: 1 = on the object, 0 = background")
            p.clicks[i] = _capi.Click(xf, yf, int(lab[i]))
        p.n_clicks = n
    elif labels is not None and np.asarray(labels).size:
        raise ValueError("labels without points")
    if box is not None:
        b = np.asarray(box, dtype=np.float64).reshape(-1)
        if b.shape[0] != 4:
            raise ValueError(f"box must be (x0, y0, x1, y1), not {b.shape[0]} numbers")
        if not np.all(np.isfinite(b)):
            raise ValueError(f"box {tuple(b)} is not finite")
        bf = b.astype(np.float32)
        if not (bf[0] >= 0 and bf[1] >= 0 and bf[2] <= width and bf[3] <= height):
            raise ValueError(f"box ({b[0]:g}, {b[1]:g}, {b[2]:g}, {b[3]:g}) lies outside the {width}x{height} frame")
        if not (bf[0] <= bf[2] and bf[1] <= bf[3]):
            raise ValueError(f"box ({b[0]:g}, {b[1]:g}, {b[2]:g}, {b[3]:g}) must have x0 <= x1 and y0 <= y1")
        p.has_box = 1
        p.box = _capi.c_float4(*[float(v) for v in bf])
    if p.n_clicks == 0 and not p.has_box:
        raise ValueError("an object needs points or a box")
    return p


def size_pair(value: Sequence[int], what: str) -> Tuple[int, int]:
    """A (width, height) pair of positive ints."""
    try:
        w, h = (int(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be (width, height), not {value!r}") from None
    if w < 1 or h < 1:
        raise ValueError(f"{what} ({w}, {h}) must be positive")
    return w, h


def pointer(arr: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(arr.ctypes.data)

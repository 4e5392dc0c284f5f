"""samrt.TrackSession: one video streamed through a Model's tracker (samrt_engine_track_*):
prompt objects, push frames in order, get every object's mask back.

The per-object state (memory bank, pointers) lives in the model's arena, sized at init by
max_objects; nothing grows with the video. A session keeps its model alive, and checks on
every call that the model is open and that no newer session has replaced it (an engine holds
one video), raising samrt.StateError otherwise.
"""
import ctypes
from typing import TYPE_CHECKING, Any, Dict, List, NamedTuple, Optional, Tuple

import numpy as np

from . import _capi, _checks, errors
from .model import box_of

if TYPE_CHECKING:
    from .model import Model


class TrackResult(NamedTuple):
    """One tracked object on one frame."""
    obj_id: int
    mask: Optional[np.ndarray]
    """H x W bool, the caller's own array (None when the session skips masks)."""
    score: float
    """object-score logit; <= 0: absent on this frame (the mask is empty)."""
    area: int
    """pixels set in the mask."""
    box: Optional[Tuple[int, int, int, int]]
    """(x0, y0, x1, y1) inclusive, None when the mask is empty."""


def _cuda_frame(frame: Any, width: int, height: int) -> Optional[Tuple[Any, _capi.Image]]:
    """A frame in GPU memory (an object with __cuda_array_interface__: a torch CUDA tensor,
    CuPy), checked like a host frame; None for anything else."""
    cai = getattr(frame, "__cuda_array_interface__", None)
    if cai is None:
        return None
    shape, typestr, strides = tuple(cai["shape"]), cai["typestr"], cai.get("strides")
    if typestr not in ("|u1", "<u1"):
        raise ValueError(f"frame must be uint8 RGB (HxWx3), not {typestr}")
    if len(shape) != 3 or shape[2] != 3:
        raise ValueError(f"frame must have shape (height, width, 3), not {shape}")
    if (shape[1], shape[0]) != (width, height):
        raise ValueError(f"frame is {shape[1]}x{shape[0]}, the video is {width}x{height}")
    row = 3 * width if strides is None else strides[0]
    if strides is not None and (strides[1] != 3 or strides[2] != 1 or row < 3 * width):
        raise ValueError("a GPU frame must be row-major with 3 contiguous bytes per pixel (call .contiguous())")
    return frame, _capi.Image(int(cai["data"][0]), width, height, int(row))


class TrackSession:
    """A video of width x height frames on a Model: Model.track(width, height) makes one.

        session = model.track(w, h)
        session.prompt(1, points=[[210, 350]], labels=[1])   # applies to the next push
        for frame in frames:                                 # H x W x 3 uint8 RGB
            for r in session.push(frame):
                r.obj_id, r.mask, r.score, r.area, r.box

    Objects are prompted on the frame they first appear, before that frame is pushed, and
    tracked forward from there; a prompt for an object already tracked is a correction from
    that frame on.
    """

    def __init__(self, model: "Model", width: int, height: int, masks: bool = True) -> None:
        w, h = _checks.size_pair((width, height), "frame size")
        mw, mh = model._max_frame
        if w > mw or h > mh:
            raise ValueError(f"{w}x{h} frames are larger than the model's max_frame {mw}x{mh}")
        self._model = model
        self._width, self._height = w, h
        self._masks = bool(masks)
        self._frame = 0
        self._ids: List[int] = []
        with model._lock:
            eng = model._engine()
            _capi.call("samrt_engine_track_begin", _capi.lib().samrt_engine_track_begin, eng, w, h)
            model._session_gen += 1
            self._gen = model._session_gen
        self._results = (_capi.TrackResult * model.max_objects)()

    @property
    def width(self) -> int:
        return self._width

    @property
    def height(self) -> int:
        return self._height

    @property
    def frame_index(self) -> int:
        """The index the next pushed frame gets (frames pushed so far)."""
        return self._frame

    @property
    def model(self) -> "Model":
        return self._model

    def _engine(self) -> int:
        """The engine, when this session is still its video; the caller holds the model's lock."""
        eng = self._model._engine()
        if self._model._session_gen != self._gen:
            raise errors.state_error("this tracking session was replaced by a newer one on the same model")
        return eng

    def _check_id(self, obj_id: int) -> int:
        if not isinstance(obj_id, (int, np.integer)) or isinstance(obj_id, bool) or obj_id < 0:
            raise ValueError(f"obj_id must be an int >= 0, not {obj_id!r}")
        if int(obj_id) not in self._ids and len(self._ids) >= self._model.max_objects:
            raise ValueError(f"object {obj_id} would be object {len(self._ids) + 1}; this model tracks at most "
                             f"{self._model.max_objects} (max_objects)")
        return int(obj_id)

    def prompt(self, obj_id: int, points: Any = None, labels: Any = None, box: Any = None,
               mask: Any = None) -> None:
        """Prompts object obj_id on the next pushed frame: clicks (points N x 2 in pixels,
        labels 1 = object / 0 = background, default all 1) and / or a box (x0, y0, x1, y1), or
        a mask (H x W, nonzero = object) alone."""
        oid = self._check_id(obj_id)
        lib = _capi.lib()
        if mask is not None:
            if points is not None or box is not None or labels is not None:
                raise ValueError("a mask prompt takes no points, labels or box")
            m = _checks.mask8(mask, self._width, self._height)
            with self._model._lock:
                _capi.call("samrt_engine_track_prompt_mask", lib.samrt_engine_track_prompt_mask, self._engine(), oid,
                           _checks.pointer(m))
        else:
            p = _checks.prompt(self._width, self._height, points, labels, box)
            with self._model._lock:
                _capi.call("samrt_engine_track_prompt", lib.samrt_engine_track_prompt, self._engine(), oid,
                           ctypes.byref(p))
        if oid not in self._ids:
            self._ids.append(oid)

    def remove(self, obj_id: int) -> None:
        """Stops tracking obj_id (samrt_engine_track_remove): its memories are dropped, the other
        objects keep their order and results, and its slot is free for a new object. ValueError
        when obj_id was never prompted in this session."""
        if obj_id not in self._ids:
            raise ValueError(f"object {obj_id!r} is not tracked in this session (objects: {self._ids})")
        with self._model._lock:
            _capi.call("samrt_engine_track_remove", _capi.lib().samrt_engine_track_remove, self._engine(), int(obj_id))
        self._ids.remove(obj_id)

    def push(self, frame: Any) -> List[TrackResult]:
        """Runs one frame (H x W x 3 uint8 RGB: a numpy array, anything numpy converts, or a
        CUDA array such as a torch tensor on the GPU of a CUDA engine) and returns every
        tracked object's result, in the order the objects were first prompted."""
        dev = _cuda_frame(frame, self._width, self._height)
        if dev is not None:
            keep, img = dev
            on_device = 1
        else:
            keep, img = _checks.rgb8(frame, "frame")
            if (img.width, img.height) != (self._width, self._height):
                raise ValueError(f"frame is {img.width}x{img.height}, the video is {self._width}x{self._height}")
            on_device = 0
        k = len(self._ids)
        masks = [np.empty((self._height, self._width), dtype=np.bool_) if self._masks else None for _ in range(k)]
        res = self._results
        for i in range(self._model.max_objects):
            mk = masks[i] if i < k else None
            res[i].mask = mk.ctypes.data if mk is not None else None
        n = ctypes.c_int()
        with self._model._lock:
            _capi.call("samrt_engine_track_push", _capi.lib().samrt_engine_track_push, self._engine(),
                       ctypes.byref(img), on_device, res, k, ctypes.byref(n))
        del keep
        self._frame += 1
        out = []
        for i in range(n.value):
            r = res[i]
            out.append(TrackResult(int(r.obj_id), masks[i], float(r.object_score), int(r.area), box_of(r.area, r.box)))
        return out

    def stage_times(self) -> Dict[str, Optional[float]]:
        """Per-stage time of the last pushed frame, ms (preprocess, h2d, image_encoder,
        memory_attention, prompt_and_mask_decoder, memory_encoder, postprocess, d2h); None for
        a stage that did not run on it."""
        with self._model._lock:
            self._engine()
            return self._model.stage_times()

    def io_counters(self) -> Dict[str, int]:
        """How this engine's frames came in (Model.io_counters): a CUDA array frame is counted
        in frames_device and copied device->device only, never to the host."""
        with self._model._lock:
            self._engine()
            return self._model.io_counters()

    @property
    def object_ids(self) -> List[int]:
        """The prompted objects, in the order they were first prompted."""
        return list(self._ids)

    def __repr__(self) -> str:
        return f"<samrt.TrackSession {self._width}x{self._height}, {len(self._ids)} objects, frame {self._frame}>"

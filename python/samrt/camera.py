"""samrt.CameraPredictor: live input (a camera, a stream of frames) in the shape of the community
SAM2CameraPredictor (segment-anything-2-real-time): load_first_frame(frame), add_new_prompt(...)
on it, then track(frame) -> (obj_ids, mask_logits) per new frame, over a samrt TrackSession
(the C streaming tracker: one fixed arena, nothing grows with the stream).

    predictor = samrt.CameraPredictor("sam2.1_hiera_tiny.pt", max_objects=2)
    predictor.load_first_frame(first)                       # H x W x 3 uint8 RGB
    _, obj_ids, logits = predictor.add_new_prompt(frame_idx=0, obj_id=1, bbox=[x0, y0, x1, y1])
    for frame in frames:
        obj_ids, logits = predictor.track(frame)            # (N, 1, H, W) float32, > 0 = object

mask_logits: the C tracker returns binary masks and object scores, not per-pixel logits, so
track() returns the masks as float32 logits-like arrays: +MASK_LOGIT (10.0) on the object,
-MASK_LOGIT elsewhere (everywhere for an object absent from the frame). `logits > 0`, and a
sigmoid, work on them as on real logits, but they carry no confidence. add_new_prompt()
returns the real frame-size mask logits of samrt_engine_segment for the objects prompted with
points or a box on that frame (an absent object's are -MASK_LOGIT), and logits-like arrays for
mask prompts and the other objects.

A model holds one video: the predictor's tracking session begins at its first track() and ends
when a newer one begins on the same model (another predictor's, or model.track(); its calls
then raise samrt.StateError). docs/python.md maps the calls to the official and the
community predictors and lists what differs.
"""
import importlib
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import _checks, errors
from .model import Model
from .system import has_cuda
from .video import VideoPredictor, click_prompt

MASK_LOGIT = 10.0


def host_frame(frame: Any, what: str = "frame") -> np.ndarray:
    """An H x W x 3 uint8 RGB frame as a numpy array: numpy arrays, torch tensors (copied to the
    host when on a GPU) and PIL images."""
    if hasattr(frame, "detach") and hasattr(frame, "cpu"):  # torch
        frame = frame.detach().cpu().numpy()
    elif hasattr(frame, "convert") and hasattr(frame, "size") and not isinstance(frame, np.ndarray):  # PIL
        frame = np.asarray(frame.convert("RGB"))
    arr, _ = _checks.rgb8(frame, what)
    return arr


def _frame_size(frame: Any) -> Tuple[int, int]:
    shape = getattr(frame, "shape", None)
    if shape is None or len(shape) != 3 or shape[2] != 3:
        shape = host_frame(frame).shape
    return int(shape[1]), int(shape[0])


class CameraPredictor:
    """The community SAM2CameraPredictor's calls on a samrt Model.

    Args:
        model: a samrt.Model, or a checkpoint path (then model_kwargs go to samrt.Model, e.g.
            max_objects=3, precision="bf16", max_frame=(1280, 720)).
        output: "numpy" (default) or "torch" (CPU tensors; torch must be importable).

    Frames are H x W x 3 uint8 RGB: numpy arrays, torch tensors (a CUDA tensor goes to a CUDA
    engine without a host copy in track()) or PIL images. OpenCV's frames are BGR: pass
    frame[..., ::-1]. Every frame of a stream has the size of the first (ValueError otherwise).
    """

    def __init__(self, model: Any, output: str = "numpy", **model_kwargs: Any) -> None:
        self._video = VideoPredictor(model, output=output, **model_kwargs)  # the output and model checks
        self.model: Model = self._video.model
        self.output = self._video.output
        self._size: Optional[Tuple[int, int]] = None
        self._cond: List[np.ndarray] = []
        self._session: Any = None
        self._clear()

    def _clear(self) -> None:
        self.obj_ids: List[int] = []
        """objects in first-prompt order: the order of the masks."""
        self._pending: Dict[int, Dict[int, Dict[str, Any]]] = {}  # frame -> obj_id -> prompt, not yet pushed
        self._last: Dict[int, np.ndarray] = {}  # obj_id -> mask of the latest tracked frame
        self._latest: Any = None  # the latest tracked frame
        self.tracking_has_started = False
        self.frame_idx = len(self._cond) - 1
        """index of the latest frame: the conditioning frames are 0 .. k-1, tracked ones follow."""
        self._session = None  # the model's tracking session, begun by the first track()

    # ---- frames ------------------------------------------------------------------------------

    def _checked(self, frame: Any) -> Tuple[int, int]:
        if self._size is None:
            raise errors.state_error("no first frame: call load_first_frame(frame) first")
        w, h = _frame_size(frame)
        if (w, h) != self._size:
            raise ValueError(f"frame is {w}x{h}, the first frame was {self._size[0]}x{self._size[1]}: every frame "
                             "of a stream has one size (call load_first_frame for a new stream)")
        return w, h

    def load_first_frame(self, img: Any) -> None:
        """Starts a stream on its first frame (frame 0): forgets every object and frame before."""
        arr = np.array(host_frame(img, "first frame"))
        w, h = arr.shape[1], arr.shape[0]
        mw, mh = self.model._max_frame
        if w > mw or h > mh:
            raise ValueError(f"the frame is {w}x{h}, larger than the model's max_frame {mw}x{mh}")
        self._size = (w, h)
        self._cond = [arr]
        self._clear()

    def add_conditioning_frame(self, img: Any) -> None:
        """Adds one more frame to prompt before tracking starts (frame 1, 2, ...)."""
        self._checked(img)
        if self.tracking_has_started:
            raise errors.state_error("tracking has started: conditioning frames come before the first track()")
        self._cond.append(np.array(host_frame(img)))
        self.frame_idx = len(self._cond) - 1

    def _frame(self, frame_idx: int) -> np.ndarray:
        if not self.tracking_has_started:
            return self._cond[frame_idx]
        return host_frame(self._latest)

    # ---- prompts -----------------------------------------------------------------------------

    def _check_frame_idx(self, frame_idx: Any) -> int:
        if self._size is None:
            raise errors.state_error("no first frame: call load_first_frame(frame) first")
        ok = isinstance(frame_idx, (int, np.integer)) and not isinstance(frame_idx, bool)
        if not self.tracking_has_started:
            if not ok or not 0 <= frame_idx < len(self._cond):
                raise ValueError(f"frame_idx {frame_idx!r}: before tracking, prompts go on the conditioning frames "
                                 f"0 .. {len(self._cond) - 1}")
        elif not ok or frame_idx != self.frame_idx:
            raise ValueError(f"frame_idx {frame_idx!r}: during tracking, prompts go on the latest frame "
                             f"({self.frame_idx}) and apply from the next track()")
        return int(frame_idx)

    def _add(self, frame_idx: int, obj_id: Any, spec: Dict[str, Any]) -> Tuple[int, List[int], Any]:
        if not isinstance(obj_id, (int, np.integer)) or isinstance(obj_id, bool) or obj_id < 0:
            raise ValueError(f"obj_id must be an int >= 0, not {obj_id!r}")
        oid = int(obj_id)
        if oid not in self.obj_ids:
            if len(self.obj_ids) >= self.model.max_objects:
                raise ValueError(f"object {oid} would be object {len(self.obj_ids) + 1}; the model tracks at most "
                                 f"{self.model.max_objects} (max_objects)")
            self.obj_ids.append(oid)
        self._pending.setdefault(frame_idx, {})[oid] = spec
        return frame_idx, list(self.obj_ids), self._out(self._prompt_logits(frame_idx))

    def add_new_prompt(self, frame_idx: int, obj_id: int, points: Any = None, labels: Any = None, bbox: Any = None,
                       clear_old_points: bool = True, normalize_coords: bool = True,
                       mask: Any = None) -> Tuple[int, List[int], Any]:
        """Clicks (points N x 2 of (x, y) pixels, labels 1 / 0, default all 1) and / or a box
        bbox (x0, y0, x1, y1), or a mask (H x W, nonzero = object) alone, for obj_id on
        frame_idx: a conditioning frame before tracking, the latest frame during tracking
        (then the prompt, a new object or a correction, applies from the next track()).
        normalize_coords=False takes coordinates relative to the frame (0..1). Returns
        (frame_idx, obj_ids, mask_logits (N, 1, H, W) float32) of that frame."""
        fi = self._check_frame_idx(frame_idx)
        if mask is not None:
            if points is not None or labels is not None or bbox is not None:
                raise ValueError("a mask prompt takes no points, labels or bbox")
            return self.add_new_mask(fi, obj_id, mask)
        if points is None and bbox is None:
            raise ValueError("add_new_prompt needs points, a bbox or a mask")
        w, h = self._size  # type: ignore[misc]
        old = self._pending.get(fi, {}).get(obj_id)
        spec = click_prompt(w, h, points, labels, bbox, old, clear_old_points, normalize_coords)
        return self._add(fi, obj_id, spec)

    add_new_points = add_new_prompt

    def add_new_mask(self, frame_idx: int, obj_id: int, mask: Any) -> Tuple[int, List[int], Any]:
        """A mask (H x W, nonzero = object; bool, integer, float or a torch tensor) for obj_id on
        frame_idx, as add_new_prompt. A mask of another size than the frames: ValueError."""
        fi = self._check_frame_idx(frame_idx)
        if hasattr(mask, "detach") and hasattr(mask, "cpu"):
            mask = mask.detach().cpu().numpy()
        w, h = self._size  # type: ignore[misc]
        return self._add(fi, obj_id, {"mask": _checks.mask8(mask, w, h)})

    def add_new_prompt_during_track(self, point: Any = None, bbox: Any = None, mask: Any = None,
                                    if_new_target: bool = True) -> Tuple[int, List[int], Any]:
        """The community's add_new_promot_during_track: a new object (the largest id + 1) or, with
        if_new_target=False, a correction of the latest object, on the latest frame."""
        if not self.obj_ids:
            raise ValueError("no object yet: prompt one with add_new_prompt")
        obj_id = max(self.obj_ids) + 1 if if_new_target else self.obj_ids[-1]
        if mask is not None:
            return self.add_new_mask(self.frame_idx, obj_id, mask)
        return self.add_new_prompt(self.frame_idx, obj_id, points=point, bbox=bbox)

    add_new_promot_during_track = add_new_prompt_during_track  # the community spelling

    def remove_object(self, obj_id: int) -> List[int]:
        """Stops tracking obj_id (its slot is free for a new object); returns the obj_ids left."""
        if obj_id not in self.obj_ids:
            raise ValueError(f"object {obj_id!r} is not tracked (objects: {self.obj_ids})")
        for prompts in self._pending.values():
            prompts.pop(obj_id, None)
        if self._session is not None and obj_id in self._session.object_ids:
            self._session.remove(obj_id)
        self.obj_ids.remove(obj_id)
        self._last.pop(obj_id, None)
        return list(self.obj_ids)

    def reset_state(self) -> None:
        """Forgets every object, prompt and tracked frame; the conditioning frames stay, so that
        prompting starts again on them."""
        self._clear()

    # ---- tracking ----------------------------------------------------------------------------

    def _push(self, frame: Any, prompts: Dict[int, Dict[str, Any]]) -> None:
        for oid in [o for o in self.obj_ids if o in prompts]:
            spec = prompts[oid]
            if "mask" in spec:
                self._session.prompt(oid, mask=spec["mask"])
            else:
                self._session.prompt(oid, points=spec["points"], labels=spec["labels"], box=spec["box"])
        self._last = {r.obj_id: r.mask for r in self._session.push(frame)}
        self._latest = frame

    def track(self, img: Any) -> Tuple[List[int], Any]:
        """Tracks every prompted object into the next frame of the stream. Returns (obj_ids,
        mask_logits (N, 1, H, W) float32, logits-like: see the module's note). The first call
        also runs the conditioning frames with their prompts."""
        self._checked(img)
        on_gpu = getattr(img, "__cuda_array_interface__", None) is not None and has_cuda()
        frame = img if on_gpu else np.array(host_frame(img))  # a copy: the caller may reuse its buffer
        if not self.tracking_has_started:
            self._session = self.model.track(*self._size)  # type: ignore[misc]
            for i, cond in enumerate(self._cond):
                self._push(cond, self._pending.pop(i, {}))
            self.tracking_has_started = True
        self._push(frame, self._pending.pop(self.frame_idx, {}))
        self.frame_idx += 1
        return list(self.obj_ids), self._out(self._tracked_logits())

    # ---- outputs -----------------------------------------------------------------------------

    def _logits_like(self, mask: Optional[np.ndarray]) -> np.ndarray:
        w, h = self._size  # type: ignore[misc]
        if mask is None:
            return np.full((h, w), -MASK_LOGIT, dtype=np.float32)
        return np.where(mask != 0, np.float32(MASK_LOGIT), np.float32(-MASK_LOGIT))

    def _tracked_logits(self) -> np.ndarray:
        w, h = self._size  # type: ignore[misc]
        out = np.empty((len(self.obj_ids), 1, h, w), dtype=np.float32)
        for i, oid in enumerate(self.obj_ids):
            out[i, 0] = self._logits_like(self._last.get(oid))
        return out

    def _prompt_logits(self, frame_idx: int) -> np.ndarray:
        """The prompt frame: segmentation logits of the objects clicked or boxed there, the given
        masks, and for the others their tracked masks (latest frame) or nothing."""
        out = self._tracked_logits() if self.tracking_has_started else None
        if out is None:
            w, h = self._size  # type: ignore[misc]
            out = np.full((len(self.obj_ids), 1, h, w), -MASK_LOGIT, dtype=np.float32)
        prompts = self._pending.get(frame_idx, {})
        seg_ids = [o for o in self.obj_ids if o in prompts and "mask" not in prompts[o]]
        if seg_ids:
            specs = [dict(points=prompts[o]["points"], labels=prompts[o]["labels"], box=prompts[o]["box"])
                     for o in seg_ids]
            for o, r in zip(seg_ids, self.model.segment_objects(self._frame(frame_idx), specs, logits=True)):
                out[self.obj_ids.index(o), 0] = r.logits if r.score > 0 else -MASK_LOGIT
        for o in self.obj_ids:
            if o in prompts and "mask" in prompts[o]:
                out[self.obj_ids.index(o), 0] = self._logits_like(prompts[o]["mask"])
        return out

    def _out(self, logits: np.ndarray) -> Any:
        if self.output == "torch":
            return importlib.import_module("torch").from_numpy(logits)
        return logits

    def __repr__(self) -> str:
        size = "no frame" if self._size is None else f"{self._size[0]}x{self._size[1]}"
        return f"<samrt.CameraPredictor {size}, frame {self.frame_idx}, objects {self.obj_ids}>"

"""samrt.VideoPredictor: the streaming calls of the official SAM 2 video predictor
(init_state, add_new_points_or_box, add_new_mask, propagate_in_video, reset_state,
remove_object) over a samrt Model, so that a script written for the official predictor's
forward propagation runs on the fixed arena with few changes.

Differences from the official predictor (docs/python.md lists them too):
  - Forward only: each propagate_in_video() call tracks from the first prompted frame to the
    end (or start_frame_idx / max_frame_num_to_track); reverse=True raises
    NotImplementedError. An object is not segmented on frames before its first prompt: its
    mask there is empty (the official predictor would use its later prompt as memory).
  - Prompts are kept by the state and applied when propagation reaches their frame; every
    propagate_in_video() call starts the video again, so prompts added after a propagation
    (on any frame) take effect on the next call. A prompt on a frame where the object is
    already tracked is a correction from that frame on. Prompts added while a propagation
    generator is running apply from the next call.
  - add_new_points_or_box returns the segmentation of the prompt frame alone (what the
    official predictor computes for a first prompt); for a correction it does not use the
    object's memory. add_new_mask returns the given mask.
  - Masks are binary (bool), not logits: `masks[i] > 0.0` works on them as on the official
    logits. They are numpy arrays, or CPU torch tensors with output="torch".
  - Post-processing is the vos_inference profile of the C tracker (no hole filling, no
    non-overlap constraint), and frames are read one at a time, never all in memory.
"""
import importlib
import importlib.util
from typing import Any, Dict, Iterator, List, Optional, Tuple

import numpy as np

from . import _checks
from .frames import FrameSource, open_frames
from .model import Model


def click_prompt(w: int, h: int, points: Any, labels: Any, box: Any, old: Optional[Dict[str, Any]],
                 clear_old_points: bool, normalize_coords: bool) -> Dict[str, Any]:
    """The official calls' points / labels / box for a w x h frame as a prompt spec in pixels:
    normalize_coords=False takes coordinates relative to the frame (0..1); clear_old_points=False
    adds the clicks to `old`, the object's earlier prompt on that frame (a box may not be added
    so). Checked here (ValueError), before any state changes."""
    scale = np.array([1.0, 1.0]) if normalize_coords else np.array([float(w), float(h)])
    pts = None if points is None else np.asarray(points, dtype=np.float64).reshape(-1, 2) * scale
    lab = None if labels is None else np.asarray(labels).reshape(-1)
    bx = None if box is None else np.asarray(box, dtype=np.float64).reshape(-1) * np.tile(scale, 2)
    if not clear_old_points:
        if bx is not None:
            raise ValueError("a box can only be added with clear_old_points=True (as in the official predictor)")
        if old is not None and "mask" not in old:
            if old.get("points") is not None and pts is not None:
                old_lab = old["labels"] if old["labels"] is not None else np.ones(len(old["points"]), np.int64)
                new_lab = lab if lab is not None else np.ones(len(pts), np.int64)
                pts, lab = np.concatenate([old["points"], pts]), np.concatenate([old_lab, new_lab])
            bx = old.get("box")
    _checks.prompt(w, h, pts, lab, bx)
    return {"points": pts, "labels": lab, "box": bx}


class InferenceState:
    """What init_state returns: the video (frames are decoded when needed) and the prompts by
    frame. Indexing with the official state's keys "num_frames", "video_height",
    "video_width" and "obj_ids" works."""

    def __init__(self, frames: FrameSource) -> None:
        self.frames = frames
        self.num_frames = len(frames)
        self.video_width, self.video_height = frames.width, frames.height
        self.obj_ids: List[int] = []  # first-prompt order, as the official obj_idx
        self.prompts: Dict[int, Dict[int, Dict[str, Any]]] = {}  # frame -> obj_id -> prompt

    def __getitem__(self, key: str) -> Any:
        if key in ("num_frames", "video_height", "video_width", "obj_ids"):
            return getattr(self, key)
        raise KeyError(key)

    def __repr__(self) -> str:
        return (f"<samrt.InferenceState {self.frames.name}: {self.num_frames} frames "
                f"{self.video_width}x{self.video_height}, objects {self.obj_ids}>")


class VideoPredictor:
    """The official video predictor's streaming calls on a samrt Model.

    Args:
        model: a samrt.Model, or a checkpoint path (then model_kwargs go to samrt.Model,
            e.g. max_objects=3, precision="bf16").
        output: "numpy" (default) or "torch" (CPU tensors; torch must be importable).
    """

    def __init__(self, model: Any, output: str = "numpy", **model_kwargs: Any) -> None:
        self.model = model if isinstance(model, Model) else Model(model, **model_kwargs)
        if isinstance(model, Model) and model_kwargs:
            raise ValueError("model_kwargs are for a checkpoint path, not a Model")
        self.output = self._output(output)

    @staticmethod
    def _output(output: str) -> str:
        if output not in ("numpy", "torch"):
            raise ValueError(f"output must be 'numpy' or 'torch', not {output!r}")
        if output == "torch" and importlib.util.find_spec("torch") is None:
            raise ValueError("output='torch' needs torch, which is not importable")
        return output

    def _masks_out(self, masks: np.ndarray, output: Optional[str]) -> Any:
        if (output or self.output) == "torch":
            return importlib.import_module("torch").from_numpy(masks)
        return masks

    # ---- state -------------------------------------------------------------------------------

    def init_state(self, video_path: Any, offload_video_to_cpu: bool = False, offload_state_to_cpu: bool = False,
                   async_loading_frames: bool = False) -> InferenceState:
        """A video: a folder of JPEG frames, a video file (decoded by the library's FFmpeg
        reader, samrt.VideoReader), or a sequence of H x W x 3 uint8 frames. The offload / async options of the
        official call are accepted and have nothing to do: the state lives in the arena and
        frames are decoded one at a time."""
        state = InferenceState(open_frames(video_path))
        mw, mh = self.model._max_frame
        if state.video_width > mw or state.video_height > mh:
            raise ValueError(f"the video is {state.video_width}x{state.video_height}, larger than the model's "
                             f"max_frame {mw}x{mh}")
        return state

    def reset_state(self, inference_state: InferenceState) -> None:
        """Forgets every prompt and object."""
        inference_state.prompts.clear()
        inference_state.obj_ids.clear()

    def remove_object(self, inference_state: InferenceState, obj_id: int) -> Tuple[List[int], None]:
        """Forgets an object and its prompts; the next propagation tracks the others alone.
        Returns (obj_ids, None): no frame is re-run until the next propagate_in_video."""
        if obj_id in inference_state.obj_ids:
            inference_state.obj_ids.remove(obj_id)
            for per_frame in inference_state.prompts.values():
                per_frame.pop(obj_id, None)
            for f in [f for f, p in inference_state.prompts.items() if not p]:
                del inference_state.prompts[f]
        return list(inference_state.obj_ids), None

    def _add(self, state: InferenceState, frame_idx: int, obj_id: int, spec: Dict[str, Any]) -> None:
        if not isinstance(frame_idx, (int, np.integer)) or not 0 <= frame_idx < state.num_frames:
            raise ValueError(f"frame_idx {frame_idx!r} is not a frame of this {state.num_frames}-frame video")
        if not isinstance(obj_id, (int, np.integer)) or isinstance(obj_id, bool) or obj_id < 0:
            raise ValueError(f"obj_id must be an int >= 0, not {obj_id!r}")
        if obj_id not in state.obj_ids:
            if len(state.obj_ids) >= self.model.max_objects:
                raise ValueError(f"object {obj_id} would be object {len(state.obj_ids) + 1}; the model tracks at most "
                                 f"{self.model.max_objects} (max_objects)")
            state.obj_ids.append(int(obj_id))
        state.prompts.setdefault(int(frame_idx), {})[int(obj_id)] = spec

    # ---- prompts -----------------------------------------------------------------------------

    def add_new_points_or_box(self, inference_state: InferenceState, frame_idx: int, obj_id: int, points: Any = None,
                              labels: Any = None, clear_old_points: bool = True, normalize_coords: bool = True,
                              box: Any = None, *, output: Optional[str] = None) -> Tuple[int, List[int], Any]:
        """Clicks (points N x 2 of (x, y) pixels, labels 1 / 0) and / or a box for obj_id on
        frame_idx. normalize_coords=False takes coordinates relative to the frame (0..1), as
        the official call does; clear_old_points=False adds the clicks to those already given
        on this frame. Returns (frame_idx, obj_ids, masks (N, 1, H, W) bool) for that frame."""
        st = inference_state
        old = st.prompts.get(int(frame_idx), {}).get(obj_id) if isinstance(frame_idx, (int, np.integer)) else None
        spec = click_prompt(st.video_width, st.video_height, points, labels, box, old, clear_old_points,
                            normalize_coords)
        self._add(st, frame_idx, obj_id, spec)
        return int(frame_idx), list(st.obj_ids), self._masks_out(self._frame_masks(st, int(frame_idx)), output)

    def add_new_mask(self, inference_state: InferenceState, frame_idx: int, obj_id: int, mask: Any, *,
                     output: Optional[str] = None) -> Tuple[int, List[int], Any]:
        """A mask (H x W, nonzero = object) for obj_id on frame_idx. Returns (frame_idx,
        obj_ids, masks (N, 1, H, W) bool) for that frame."""
        st = inference_state
        m = _checks.mask8(mask, st.video_width, st.video_height)
        self._add(st, frame_idx, obj_id, {"mask": m})
        return int(frame_idx), list(st.obj_ids), self._masks_out(self._frame_masks(st, int(frame_idx)), output)

    def _frame_masks(self, st: InferenceState, frame_idx: int) -> np.ndarray:
        """The prompt frame's masks for every object: segmentation for clicks and boxes, the
        given mask for mask prompts, empty for objects not prompted there."""
        out = np.zeros((len(st.obj_ids), 1, st.video_height, st.video_width), dtype=np.bool_)
        prompts = st.prompts.get(frame_idx, {})
        seg_ids = [o for o in st.obj_ids if o in prompts and "mask" not in prompts[o]]
        if seg_ids:
            specs = [dict(points=prompts[o]["points"], labels=prompts[o]["labels"], box=prompts[o]["box"])
                     for o in seg_ids]
            results = self.model.segment_objects(st.frames.get(frame_idx), specs)
            for o, r in zip(seg_ids, results):
                out[st.obj_ids.index(o), 0] = r.mask
        for o in st.obj_ids:
            if o in prompts and "mask" in prompts[o]:
                out[st.obj_ids.index(o), 0] = prompts[o]["mask"] != 0
        return out

    # ---- propagation -------------------------------------------------------------------------

    def propagate_in_video(self, inference_state: InferenceState, start_frame_idx: Optional[int] = None,
                           max_frame_num_to_track: Optional[int] = None, reverse: bool = False, *,
                           output: Optional[str] = None) -> Iterator[Tuple[int, List[int], Any]]:
        """Tracks every prompted object forward and yields (frame_idx, obj_ids, masks) per frame,
        masks (N, 1, H, W) bool in obj_ids order. Frames run from the first prompted frame
        (frames before start_frame_idx run without being yielded, so that objects prompted
        there are tracked into it) to the last frame, or max_frame_num_to_track frames after
        start_frame_idx."""
        if reverse:
            raise NotImplementedError("samrt tracks forward only, as a streaming tracker: reverse=True is not available")
        st = inference_state
        if not st.prompts:
            raise ValueError("no prompts: call add_new_points_or_box or add_new_mask first")
        out_kind = self._output(output) if output is not None else self.output
        first = min(st.prompts)
        start = first if start_frame_idx is None else int(start_frame_idx)
        if not 0 <= start < st.num_frames:
            raise ValueError(f"start_frame_idx {start} is not a frame of this {st.num_frames}-frame video")
        end = st.num_frames - 1
        if max_frame_num_to_track is not None:
            end = min(start + int(max_frame_num_to_track), end)
        return self._propagate(st, min(first, start), start, end, out_kind)

    def _propagate(self, st: InferenceState, begin: int, start: int, end: int,
                   out_kind: str) -> Iterator[Tuple[int, List[int], Any]]:
        session = self.model.track(st.video_width, st.video_height)
        obj_ids = list(st.obj_ids)
        prompts = {f: dict(p) for f, p in st.prompts.items()}  # later changes apply to the next call
        for f, frame in st.frames.iterate(begin, end + 1):
            for obj_id, spec in prompts.get(f, {}).items():
                if "mask" in spec:
                    session.prompt(obj_id, mask=spec["mask"])
                else:
                    session.prompt(obj_id, points=spec["points"], labels=spec["labels"], box=spec["box"])
            results = session.push(frame)
            if f < start:
                continue
            masks = np.zeros((len(obj_ids), 1, st.video_height, st.video_width), dtype=np.bool_)
            for r in results:
                if r.obj_id in obj_ids and r.mask is not None:
                    masks[obj_ids.index(r.obj_id), 0] = r.mask
            yield f, list(obj_ids), self._masks_out(masks, out_kind)

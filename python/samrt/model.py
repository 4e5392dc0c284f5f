"""samrt.Model: a checkpoint planned into one fixed arena (samrt_engine_init), its exact memory
budget, single-frame segmentation, and the tracking sessions of track.py.

One Model owns one C engine. Its calls are serialised by a lock (the engine is not reentrant)
and release the GIL while the library works. close() (or leaving a ``with`` block) frees the
engine; a closed model, and any session of it, raises samrt.StateError instead of touching
freed memory.
"""
import ctypes
import threading
from typing import TYPE_CHECKING, Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import _capi, _checks, errors
from .system import model_id, precision_id, profile_for

if TYPE_CHECKING:
    from .track import TrackSession

_POSTPROC = {"vos_inference": _capi.POSTPROC_VOS_INFERENCE, "notebook": _capi.POSTPROC_NOTEBOOK}
_MEM_KIND = {None: _capi.MEM_AUTO, "auto": _capi.MEM_AUTO, "device": _capi.MEM_DEVICE,
             "unified": _capi.MEM_UNIFIED, "host": _capi.MEM_HOST}


class SegmentResult(NamedTuple):
    """One object on one image (samrt_engine_segment)."""
    mask: np.ndarray
    """H x W bool, the caller's own array."""
    score: float
    """object-score logit; <= 0 means absent (the mask is then empty)."""
    iou: float
    """the predicted IoU of the returned mask."""
    box: Optional[Tuple[int, int, int, int]]
    """(x0, y0, x1, y1) inclusive, None when the mask is empty."""
    area: int
    """pixels set in the mask."""
    logits: Optional[np.ndarray]
    """H x W float32 mask logits when asked for (logits=True), else None."""


def box_of(area: int, box: Any) -> Optional[Tuple[int, int, int, int]]:
    return (int(box[0]), int(box[1]), int(box[2]), int(box[3])) if area > 0 else None


_MEMORY_POLICY = ("sam2", "samurai", "dam4sam")  # samrt.h enum samrt_memory_policy, in order


def postproc_id(name: str) -> int:
    if name not in _POSTPROC:
        raise ValueError(f"postproc must be one of {', '.join(_POSTPROC)}, not {name!r}")
    return _POSTPROC[name]


def _params(precision: Optional[str], platform: Optional[str], max_objects: int, max_frame: Sequence[int],
            imgsz: int, device: int, memory: Optional[str], expect_model: Optional[str],
            verbose: bool, sm_limit: int = 0, memory_policy: str = "sam2") -> Tuple[_capi.EngineParams, bytes]:
    p = _capi.lib().samrt_engine_default_params()
    if memory_policy not in _MEMORY_POLICY:
        raise ValueError(f"memory_policy must be one of {', '.join(_MEMORY_POLICY)}, not {memory_policy!r}")
    if not isinstance(sm_limit, int) or sm_limit < 0:
        raise ValueError(f"sm_limit must be an int >= 0 (0 = the whole GPU), not {sm_limit!r}")
    if not isinstance(max_objects, int) or not 1 <= max_objects <= 256:
        raise ValueError(f"max_objects must be an int in [1, 256], not {max_objects!r}")
    if not isinstance(imgsz, int) or not (64 <= imgsz <= 4096 and imgsz % 16 == 0):
        raise ValueError(f"imgsz must be a multiple of 16 in [64, 4096], not {imgsz!r}")
    if memory not in _MEM_KIND:
        raise ValueError(f"memory must be one of auto, device, unified, host, not {memory!r}")
    w, h = _checks.size_pair(max_frame, "max_frame")
    platform_b = platform.encode() if platform is not None else b""
    p.platform = platform_b if platform is not None else None
    p.precision = _capi.DTYPE_COUNT if precision is None else precision_id(precision)
    p.mem_kind = _MEM_KIND[memory]
    p.expect_model = _capi.MODEL_UNKNOWN if expect_model is None else model_id(expect_model)
    p.imgsz, p.max_objects, p.device = imgsz, max_objects, int(device)
    p.max_frame_width, p.max_frame_height = w, h
    p.verbose = 1 if verbose else 0
    p.sm_limit = sm_limit
    p.memory = _MEMORY_POLICY.index(memory_policy)
    return p, platform_b  # the bytes stay referenced while the params are used


class Model(_capi.Closing):
    """A SAM 2.1 or EdgeTAM checkpoint (official .pt or safetensors) in one fixed arena.

    Args:
        checkpoint: the checkpoint file.
        precision: "fp32", "bf16" or "fp16"; None = the platform profile's default. The CPU
            backend runs fp32 only.
        platform: a platform profile name (samrt.platform_profiles()), None = detected from
            the device ("cpu" without a GPU).
        max_objects: objects segmented or tracked at once; it enters the plan.
        max_frame: (width, height) of the largest frame; sizes the frame staging slots.
        imgsz: the model's input side (1024 for the released models).
        device: the CUDA device ordinal.
        memory: where the arena lives: None / "auto", "device", "unified" or "host".
        expect_model: refuse a checkpoint of another model ("sam2.1_tiny", ...).
        verbose: log the arena plan (logger "samrt", level INFO).
        sm_limit: 0 = the whole GPU; N > 0 runs the model in a CUDA green context of N SMs, an
            Orin-sized share of a large GPU (8 ~ Orin Nano / NX, 16 ~ AGX Orin), rounded up to
            the driver's granularity. UnsupportedError where green contexts are unavailable.
        memory_policy: which frames enter each tracked object's memory and which candidate mask
            a tracked frame keeps: "sam2" (the official predictor), "samurai" (a Kalman filter
            per object) or "dam4sam" (distractor-resolving and recent-appearance memories per
            object; docs/tracking.md).

    Raises samrt.Error subclasses for what the library refuses (CheckpointError for keys,
    FileError for a missing file, ArenaTooSmallError when the plan exceeds the profile's pool)
    and ValueError for arguments checked in Python.
    """

    def __init__(self, checkpoint: str, precision: Optional[str] = None, platform: Optional[str] = None,
                 max_objects: int = 1, max_frame: Sequence[int] = (3840, 2160), imgsz: int = 1024, device: int = 0,
                 memory: Optional[str] = None, expect_model: Optional[str] = None, verbose: bool = False,
                 sm_limit: int = 0, memory_policy: str = "sam2") -> None:
        self._init_state()
        params, keep = _params(precision, platform, max_objects, max_frame, imgsz, device, memory, expect_model,
                               verbose, sm_limit, memory_policy)
        path = str(checkpoint).encode()
        eng = ctypes.c_void_p()
        _capi.call("samrt_engine_init", _capi.lib().samrt_engine_init, path, ctypes.byref(params), ctypes.byref(eng))
        self._setup(eng, params, platform, device, plan_only=False)
        del keep

    def shared(self, max_objects: Optional[int] = None, max_frame: Optional[Sequence[int]] = None) -> "Model":
        """Another Model that reads this one's weights in place (samrt_engine_init_session): its
        own memory bank, staging, scratch and CUDA stream, so several videos run at once, from
        different threads, on one copy of the weights. Same checkpoint, precision, platform and
        imgsz (and sm_limit: the same green context); max_objects and max_frame may differ
        (default: this model's). Closing this model
        first is fine: the weights stay until the last model reading them is closed."""
        if self._plan_only:
            raise errors.UnsupportedError("a plan_only model has no weights to share", errors.E_UNSUPPORTED,
                                          "unsupported")
        mo = self._max_objects if max_objects is None else max_objects
        mf = self._max_frame if max_frame is None else max_frame
        params, keep = _params(self._precision, self._platform, mo, mf, self._imgsz, self._device, None, None, False,
                               self._sm_limit, self._memory_policy)
        other = type(self).__new__(type(self))
        other._init_state()
        eng = ctypes.c_void_p()
        with self._lock:
            _capi.call("samrt_engine_init_session", _capi.lib().samrt_engine_init_session, self._engine(),
                       ctypes.byref(params), ctypes.byref(eng))
        other._setup(eng, params, self._platform, self._device, plan_only=False)
        del keep
        return other

    @classmethod
    def plan_only(cls, model: str, platform: str, precision: Optional[str] = None, max_objects: int = 1,
                  max_frame: Sequence[int] = (3840, 2160), imgsz: int = 1024,
                  memory: Optional[str] = None) -> "Model":
        """The arena plan of `model` ("sam2.1_large", "edgetam", ...) on a platform profile, without
        a checkpoint and without a GPU: budget() and info() answer exactly what Model(...)
        would commit there; segment() and track() raise samrt.UnsupportedError."""
        if not isinstance(platform, str):
            raise ValueError("plan_only needs a platform profile name (samrt.platform_profiles())")
        self = cls.__new__(cls)
        self._init_state()
        params, keep = _params(precision, platform, max_objects, max_frame, imgsz, 0, memory, None, False)
        eng = ctypes.c_void_p()
        _capi.call("samrt_engine_init_plan_only", _capi.lib().samrt_engine_init_plan_only, model_id(model),
                   ctypes.byref(params), ctypes.byref(eng))
        self._setup(eng, params, platform, 0, plan_only=True)
        del keep
        return self

    def _init_state(self) -> None:
        """No engine yet: the handle, the lock that serialises calls, the session counter."""
        self._handle: Optional[int] = None
        self._lock = threading.RLock()
        self._session_gen = 0

    def _setup(self, eng: ctypes.c_void_p, params: _capi.EngineParams, platform: Optional[str], device: int,
               plan_only: bool) -> None:
        self._handle = eng.value
        self._plan_only = plan_only
        self._device = int(device)
        self._imgsz = int(params.imgsz)
        self._sm_limit = int(params.sm_limit)
        self._memory_policy = _MEMORY_POLICY[int(params.memory)]
        self._max_objects = int(params.max_objects)
        self._max_frame = (int(params.max_frame_width), int(params.max_frame_height))
        mid, n_params = ctypes.c_int(), ctypes.c_uint64()
        _capi.call("samrt_engine_model", _capi.lib().samrt_engine_model, self._handle, ctypes.byref(mid),
                   ctypes.byref(n_params))
        self._model = _capi.text(_capi.lib().samrt_model_name(mid.value))
        self._n_params = int(n_params.value)
        prof = profile_for(platform, device)
        self._platform = _capi.text(prof.name)
        prec = prof.precision if params.precision == _capi.DTYPE_COUNT else params.precision
        self._precision = _capi.text(_capi.lib().samrt_dtype_name(prec))

    # ---- lifetime ------------------------------------------------------------------------

    def close(self) -> None:
        """Frees the engine and its arena. Idempotent; sessions of this model raise
        samrt.StateError afterwards. Waits for a call running in another thread."""
        with self._lock:
            handle, self._handle = self._handle, None
            self._session_gen += 1
        if handle:
            _capi.lib().samrt_engine_free(handle)

    @property
    def closed(self) -> bool:
        return self._handle is None

    def _engine(self) -> int:
        """The live engine handle; the caller holds self._lock."""
        if self._handle is None:
            raise errors.state_error("the model is closed")
        return self._handle

    # ---- what it is ------------------------------------------------------------------------

    @property
    def model(self) -> str:
        """The model the checkpoint was recognised as, e.g. "sam2.1_tiny"."""
        return self._model

    @property
    def max_objects(self) -> int:
        return self._max_objects

    @property
    def imgsz(self) -> int:
        return self._imgsz

    def budget(self) -> Dict[str, Any]:
        """The arena by region, in bytes, exactly as committed (or as it would be, for a
        plan_only model): weights, state (per-object memory bank), workspace (cuBLASLt +
        cuDNN), scratch (lifetime-packed activations), staging (frame upload, mask download),
        arena (the single pool), pool_capacity (the profile's cap), mem_kind, and weights_shared
        (a shared() model: the weights it reads from the model it was made from; its own
        weights are then 0 and arena excludes them)."""
        rep = _capi.MemoryReport()
        with self._lock:
            _capi.call("samrt_engine_memory", _capi.lib().samrt_engine_memory, self._engine(), ctypes.byref(rep))
        return {"weights": rep.weights_bytes, "state": rep.state_bytes, "workspace": rep.workspace_bytes,
                "scratch": rep.scratch_bytes, "staging": rep.staging_bytes, "arena": rep.arena_bytes,
                "pool_capacity": rep.pool_capacity_bytes, "weights_shared": rep.weights_shared_bytes,
                "mem_kind": _capi.text(_capi.lib().samrt_mem_kind_name(rep.mem_kind))}

    def info(self) -> Dict[str, Any]:
        """What this model is: model, parameters, precision, platform profile, imgsz,
        max_objects, max_frame, whether it only plans, the backend ("cuda" when the arena is
        on a GPU, else "cpu") and the budget()."""
        mem = self.budget()
        return {"model": self._model, "parameters": self._n_params, "precision": self._precision,
                "platform": self._platform, "imgsz": self._imgsz, "max_objects": self._max_objects,
                "max_frame": self._max_frame, "plan_only": self._plan_only,
                "backend": "cpu" if mem["mem_kind"] == "host" else "cuda", "budget": mem}

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{self._precision}, {self._platform}"
        return f"<samrt.Model {self._model} ({state})>"

    # ---- single frame -----------------------------------------------------------------------

    def segment(self, image: Any, points: Any = None, labels: Any = None, box: Any = None, *,
                mask: Any = None, postproc: str = "vos_inference", logits: bool = False) -> SegmentResult:
        """Segments one object on an H x W x 3 uint8 RGB image, prompted by clicks (points N x 2
        in pixels, labels 1 = object / 0 = background, default all 1) and / or a box (x0, y0,
        x1, y1). It is what the official video predictor computes on a prompt frame. postproc
        "vos_inference" (default) or "notebook" (best of three for an unstable single mask);
        logits=True also returns the H x W float32 mask logits.

        mask: a mask prompt beside the clicks / box (not alone), SAM2ImagePredictor.predict's
        mask_input: float32 logits of shape (S, S) or (1, S, S) with S = mask_input_side()
        (imgsz / 4: 256 at imgsz 1024), passed unchanged; or a bool / integer H x W mask
        (nonzero = object), turned into those logits as the tracker does for a mask prompt:
        bilinear antialiased resize to imgsz, >= 0.5, +10 / -10, antialiased downsample to S."""
        return self.segment_objects(image, [dict(points=points, labels=labels, box=box, mask=mask)],
                                    postproc=postproc, logits=logits)[0]

    def mask_input_side(self) -> int:
        """S, the side of segment()'s float mask logits (imgsz / 4)."""
        if not _capi.has("samrt_engine_mask_input_side"):
            raise errors.UnsupportedError("this libsamrt has no mask prompts for segment(); rebuild it",
                                          errors.E_UNSUPPORTED, "unsupported")
        side = ctypes.c_int(0)
        with self._lock:
            _capi.call("samrt_engine_mask_input_side", _capi.lib().samrt_engine_mask_input_side, self._engine(),
                       ctypes.byref(side))
        return int(side.value)

    def mask_logits(self, mask: Any, width: int, height: int) -> np.ndarray:
        """A bool / integer height x width mask as the (S, S) float32 mask-input logits that
        segment(mask=...) uses for it (samrt_engine_mask_prompt_logits)."""
        side = self.mask_input_side()
        bin8 = _checks.mask8(mask, width, height)
        out = np.zeros((side, side), dtype=np.float32)
        with self._lock:
            _capi.call("samrt_engine_mask_prompt_logits", _capi.lib().samrt_engine_mask_prompt_logits,
                       self._engine(), bin8.ctypes.data, width, height, out.ctypes.data)
        return out

    def segment_objects(self, image: Any, prompts: Sequence[Dict[str, Any]], *, postproc: str = "vos_inference",
                        logits: bool = False) -> List[SegmentResult]:
        """Several objects on one image in one pass (up to max_objects): each prompt is a dict
        with points / labels / box / mask as for segment()."""
        arr, img = _checks.rgb8(image)
        mw, mh = self._max_frame
        if img.width > mw or img.height > mh:
            raise ValueError(f"a {img.width}x{img.height} image is larger than the model's max_frame {mw}x{mh}")
        pp = postproc_id(postproc)
        n = len(prompts)
        if not 1 <= n <= self._max_objects:
            raise ValueError(f"{n} objects: this model segments 1 .. {self._max_objects} at once (max_objects)")
        c_prompts = (_capi.ObjectPrompt * n)()
        mask_in: List[Optional[np.ndarray]] = [None] * n
        for i, pr in enumerate(prompts):
            unknown = set(pr) - {"points", "labels", "box", "mask"}
            if unknown:
                raise ValueError(f"prompt {i}: unknown keys {sorted(unknown)} (points, labels, box, mask)")
            if pr.get("mask") is not None and pr.get("points") is None and pr.get("box") is None:
                raise ValueError(f"prompt {i}: a mask needs points or a box beside it (a mask alone is not supported)")
            c_prompts[i] = _checks.prompt(img.width, img.height, pr.get("points"), pr.get("labels"), pr.get("box"))
            if pr.get("mask") is not None:
                mask_in[i] = self._mask_input(pr["mask"], img.width, img.height, f"prompt {i}: mask")
        masks = [np.zeros((img.height, img.width), dtype=np.bool_) for _ in range(n)]
        lgs = [np.zeros((img.height, img.width), dtype=np.float32) if logits else None for _ in range(n)]
        out = (_capi.MaskResult * n)()
        for i, (mk, lg) in enumerate(zip(masks, lgs)):
            out[i].mask = mk.ctypes.data
            out[i].logits = lg.ctypes.data if lg is not None else None
        with self._lock:
            if any(m is not None for m in mask_in):
                ptrs = (ctypes.c_void_p * n)(*[m.ctypes.data if m is not None else None for m in mask_in])
                _capi.call("samrt_engine_segment_masked", _capi.lib().samrt_engine_segment_masked, self._engine(),
                           ctypes.byref(img), c_prompts, ptrs, n, pp, out)
            else:
                _capi.call("samrt_engine_segment", _capi.lib().samrt_engine_segment, self._engine(),
                           ctypes.byref(img), c_prompts, n, pp, out)
        del arr, mask_in
        return [SegmentResult(masks[i], float(out[i].object_score), float(out[i].iou), box_of(out[i].area, out[i].box),
                              int(out[i].area), lgs[i]) for i in range(n)]

    def _mask_input(self, mask: Any, width: int, height: int, what: str) -> np.ndarray:
        """An object's mask prompt as the (S, S) float32 logits the C call takes."""
        side = self.mask_input_side()
        kind, arr = _checks.mask_input(mask, width, height, side, what)
        return arr if kind == "logits" else self.mask_logits(arr, width, height)

    # ---- video ------------------------------------------------------------------------------

    def track(self, width: int, height: int, *, masks: bool = True) -> "TrackSession":
        """Starts a video of width x height frames and returns its streaming session (track.py).
        An engine holds one video: a new session ends the previous one, which then raises
        samrt.StateError. masks=False skips the per-object mask copies (scores, areas and boxes
        only)."""
        from .track import TrackSession
        return TrackSession(self, width, height, masks=masks)

    def io_counters(self) -> Dict[str, int]:
        """How frames came in (samrt_engine_io_counters): frames read from host and from device
        memory, and the frame bytes copied host->device, device->device and device->host."""
        c = _capi.IoCounters()
        with self._lock:
            _capi.call("samrt_engine_io_counters", _capi.lib().samrt_engine_io_counters, self._engine(),
                       ctypes.byref(c))
        return {f[0]: int(getattr(c, f[0])) for f in c._fields_}

    def stage_times(self) -> Dict[str, Optional[float]]:
        """Per-stage device time of the last frame, ms (samrt_engine_stage_times); None for a
        stage that did not run."""
        st = _capi.StageTimes()
        with self._lock:
            _capi.call("samrt_engine_stage_times", _capi.lib().samrt_engine_stage_times, self._engine(),
                       ctypes.byref(st))
        ms = {f[0][:-3]: float(getattr(st, f[0])) for f in st._fields_}
        return {name: (None if v < 0 else v) for name, v in ms.items()}

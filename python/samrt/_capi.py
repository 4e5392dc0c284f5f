"""The C API of libsamrt through ctypes: finding and loading the shared library, the structs and
prototypes of include/samrt.h (and samrt_image.h, samrt_video.h), the library's log lines, and statuses turned
into exceptions. Nothing else in the package touches ctypes' foreign functions directly.

The library is loaded with ctypes.CDLL, so every call releases the GIL while the C code runs:
other Python threads (a frame capture thread, a UI) keep running during a model's forward pass.
The library is looked for, in this order: the file named by the environment variable
SAMRT_LIBRARY (e.g. the libsamrt.so of a `cmake --install`), the libsamrt.so installed inside
this package by pip, and a libsamrt the dynamic loader finds (ctypes.util.find_library).
"""
import ctypes
import ctypes.util
import logging
import os
import threading
from typing import Any, Callable, List, Optional, TypeVar

from . import errors

_logger = logging.getLogger("samrt")

MAX_CLICKS = 16  # SAMRT_MAX_CLICKS

# enum samrt_dtype, samrt_mem_kind, samrt_postproc, samrt_log_level
DTYPE_F32, DTYPE_F16, DTYPE_BF16, DTYPE_U8, DTYPE_I32, DTYPE_I64, DTYPE_COUNT = range(7)
MEM_AUTO, MEM_DEVICE, MEM_UNIFIED, MEM_HOST = range(4)
POSTPROC_VOS_INFERENCE, POSTPROC_NOTEBOOK = range(2)
LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG = range(4)
MODEL_UNKNOWN = 0

c_float4 = ctypes.c_float * 4
c_int4 = ctypes.c_int * 4


class DeviceInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 256), ("ordinal", ctypes.c_int), ("sm_count", ctypes.c_int),
                ("cc_major", ctypes.c_int), ("cc_minor", ctypes.c_int), ("integrated", ctypes.c_int),
                ("total_bytes", ctypes.c_uint64), ("free_bytes", ctypes.c_uint64), ("l2_bytes", ctypes.c_int),
                ("driver_version", ctypes.c_int), ("runtime_version", ctypes.c_int)]


class LibVersions(ctypes.Structure):
    _fields_ = [("cuda_driver", ctypes.c_int), ("cuda_runtime", ctypes.c_int), ("cudnn", ctypes.c_int),
                ("cublaslt", ctypes.c_int)]


class PlatformProfile(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("description", ctypes.c_char_p),
                ("device_bytes", ctypes.c_uint64), ("pool_bytes", ctypes.c_uint64),
                ("reserve_bytes", ctypes.c_uint64), ("cublaslt_ws_bytes", ctypes.c_uint64),
                ("cudnn_ws_bytes", ctypes.c_uint64), ("precision", ctypes.c_int), ("mem_kind", ctypes.c_int),
                ("cc_major", ctypes.c_int), ("cc_minor", ctypes.c_int), ("sm_count", ctypes.c_int),
                ("clock_mhz", ctypes.c_int), ("fp16_tflops", ctypes.c_double), ("dram_gbps", ctypes.c_double),
                ("launch_us", ctypes.c_double)]


class EngineParams(ctypes.Structure):
    _fields_ = [("platform", ctypes.c_char_p), ("precision", ctypes.c_int), ("mem_kind", ctypes.c_int),
                ("expect_model", ctypes.c_int), ("imgsz", ctypes.c_int), ("max_objects", ctypes.c_int),
                ("device", ctypes.c_int), ("max_frame_width", ctypes.c_int), ("max_frame_height", ctypes.c_int),
                ("verbose", ctypes.c_int), ("sm_limit", ctypes.c_int), ("memory", ctypes.c_int),
                ("memory_kf_weight", ctypes.c_double)]


class MemoryReport(ctypes.Structure):
    _fields_ = [("weights_bytes", ctypes.c_uint64), ("state_bytes", ctypes.c_uint64),
                ("workspace_bytes", ctypes.c_uint64), ("scratch_bytes", ctypes.c_uint64),
                ("staging_bytes", ctypes.c_uint64), ("arena_bytes", ctypes.c_uint64),
                ("pool_capacity_bytes", ctypes.c_uint64), ("mem_kind", ctypes.c_int),
                ("weights_shared_bytes", ctypes.c_uint64)]


class Image(ctypes.Structure):
    _fields_ = [("rgb", ctypes.c_void_p), ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("stride", ctypes.c_int)]


class Click(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float), ("label", ctypes.c_int)]


class ObjectPrompt(ctypes.Structure):
    _fields_ = [("n_clicks", ctypes.c_int), ("clicks", Click * MAX_CLICKS), ("has_box", ctypes.c_int),
                ("box", c_float4)]


class MaskResult(ctypes.Structure):
    _fields_ = [("mask", ctypes.c_void_p), ("logits", ctypes.c_void_p), ("object_score", ctypes.c_float),
                ("iou", ctypes.c_float), ("area", ctypes.c_int), ("box", c_int4)]


class TrackResult(ctypes.Structure):
    _fields_ = [("obj_id", ctypes.c_int), ("mask", ctypes.c_void_p), ("object_score", ctypes.c_float),
                ("area", ctypes.c_int), ("box", c_int4)]


class StageTimes(ctypes.Structure):
    _fields_ = [(name, ctypes.c_float) for name in (
        "preprocess_ms", "h2d_ms", "image_encoder_ms", "memory_attention_ms", "prompt_and_mask_decoder_ms",
        "memory_encoder_ms", "postprocess_ms", "d2h_ms")]


class IoCounters(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in (
        "frames_host", "frames_device", "frame_bytes_h2d", "frame_bytes_d2d", "frame_bytes_d2h")]


LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)

_P = ctypes.POINTER
_st = ctypes.c_int  # enum samrt_status
_vp = ctypes.c_void_p
# name: (restype, argtypes)
_PROTOTYPES = {
    "samrt_status_str": (ctypes.c_char_p, [_st]),
    "samrt_dtype_name": (ctypes.c_char_p, [ctypes.c_int]),
    "samrt_dtype_parse": (_st, [ctypes.c_char_p, _P(ctypes.c_int)]),
    "samrt_mem_kind_name": (ctypes.c_char_p, [ctypes.c_int]),
    "samrt_model_name": (ctypes.c_char_p, [ctypes.c_int]),
    "samrt_model_parse": (_st, [ctypes.c_char_p, _P(ctypes.c_int)]),
    "samrt_has_cuda": (ctypes.c_int, []),
    "samrt_device_count": (_st, [_P(ctypes.c_int)]),
    "samrt_device_query": (_st, [ctypes.c_int, _P(DeviceInfo)]),
    "samrt_library_versions": (None, [_P(LibVersions)]),
    "samrt_platform_profile_list": (_P(PlatformProfile), [_P(ctypes.c_int)]),
    "samrt_platform_profile_by_name": (_P(PlatformProfile), [ctypes.c_char_p]),
    "samrt_platform_profile_for_device": (_P(PlatformProfile), [_P(DeviceInfo)]),
    "samrt_engine_default_params": (EngineParams, []),
    "samrt_engine_init": (_st, [ctypes.c_char_p, _P(EngineParams), _P(_vp)]),
    "samrt_engine_init_session": (_st, [_vp, _P(EngineParams), _P(_vp)]),
    "samrt_engine_init_plan_only": (_st, [ctypes.c_int, _P(EngineParams), _P(_vp)]),
    "samrt_engine_free": (None, [_vp]),
    "samrt_engine_memory": (_st, [_vp, _P(MemoryReport)]),
    "samrt_engine_model": (_st, [_vp, _P(ctypes.c_int), _P(ctypes.c_uint64)]),
    "samrt_engine_segment": (_st, [_vp, _P(Image), _P(ObjectPrompt), ctypes.c_int, ctypes.c_int, _P(MaskResult)]),
    "samrt_engine_segment_masked": (_st, [_vp, _P(Image), _P(ObjectPrompt), _P(_vp), ctypes.c_int, ctypes.c_int,
                                          _P(MaskResult)]),
    "samrt_engine_mask_input_side": (_st, [_vp, _P(ctypes.c_int)]),
    "samrt_engine_mask_prompt_logits": (_st, [_vp, _vp, ctypes.c_int, ctypes.c_int, _vp]),
    "samrt_engine_track_begin": (_st, [_vp, ctypes.c_int, ctypes.c_int]),
    "samrt_engine_track_prompt": (_st, [_vp, ctypes.c_int, _P(ObjectPrompt)]),
    "samrt_engine_track_prompt_mask": (_st, [_vp, ctypes.c_int, _vp]),
    "samrt_engine_track_remove": (_st, [_vp, ctypes.c_int]),
    "samrt_engine_track_push": (_st, [_vp, _P(Image), ctypes.c_int, _P(TrackResult), ctypes.c_int,
                                      _P(ctypes.c_int)]),
    "samrt_engine_stage_times": (_st, [_vp, _P(StageTimes)]),
    "samrt_engine_io_counters": (_st, [_vp, _P(IoCounters)]),
    "samrt_log_set": (None, [LOG_FN, _vp, ctypes.c_int]),
    "samrt_image_read_rgb8": (_st, [ctypes.c_char_p, _vp, ctypes.c_size_t, _P(ctypes.c_int), _P(ctypes.c_int)]),
    "samrt_video_reader_available": (ctypes.c_int, []),
    "samrt_video_reader_open": (_st, [ctypes.c_char_p, _P(_vp)]),
    "samrt_video_reader_info": (_st, [_vp, _P(ctypes.c_int), _P(ctypes.c_int), _P(ctypes.c_int64),
                                      _P(ctypes.c_double)]),
    "samrt_video_reader_next": (_st, [_vp, _vp, ctypes.c_size_t, _P(ctypes.c_int)]),
    "samrt_video_reader_close": (None, [_vp]),
}
# Calls a library may lack: a libsamrt.so of another build. Their absence is reported on use.
_OPTIONAL = {"samrt_engine_segment_masked", "samrt_engine_mask_input_side", "samrt_engine_mask_prompt_logits",
             "samrt_image_read_rgb8", "samrt_video_reader_available", "samrt_video_reader_open",
             "samrt_video_reader_info", "samrt_video_reader_next", "samrt_video_reader_close"}

_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None
_path: Optional[str] = None
_tls = threading.local()


def _candidates() -> List[str]:
    env = os.environ.get("SAMRT_LIBRARY")
    if env:
        return [env]  # an explicit choice: no silent fallback to another library
    out = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "libsamrt.so")]
    found = ctypes.util.find_library("samrt")
    if found:
        out.append(found)
    return out


def _load() -> ctypes.CDLL:
    tried = []
    for cand in _candidates():
        if os.sep in cand and not os.path.exists(cand):
            tried.append(f"{cand} (no such file)")
            continue
        try:
            lib = ctypes.CDLL(cand)
        except OSError as exc:
            tried.append(f"{cand} ({exc})")
            continue
        missing = [n for n in _PROTOTYPES if n not in _OPTIONAL and not hasattr(lib, n)]
        if missing:
            tried.append(f"{cand} (not a samrt library of this version: lacks {', '.join(missing[:3])})")
            continue
        for name, (res, args) in _PROTOTYPES.items():
            if hasattr(lib, name):
                fn = getattr(lib, name)
                fn.restype, fn.argtypes = res, args
        global _path
        _path = cand
        lib.samrt_log_set(_on_log, None, LOG_INFO)
        return lib
    raise ImportError("samrt: cannot load libsamrt: tried " + "; ".join(tried) +
                      ". Install the package with `pip install ./python`, or set SAMRT_LIBRARY to a libsamrt.so "
                      "built with -DSAMRT_BUILD_SHARED=ON.")


def lib() -> ctypes.CDLL:
    """The loaded library (loaded on first use; ImportError when none can be found)."""
    global _lib
    if _lib is None:
        with _lock:
            if _lib is None:
                _lib = _load()
    return _lib


def library_path() -> str:
    """The path the library was loaded from."""
    lib()
    assert _path is not None
    return _path


def has(name: str) -> bool:
    """Whether the loaded library exports `name` (the optional calls)."""
    return hasattr(lib(), name)


_PY_LEVEL = {LOG_ERROR: logging.ERROR, LOG_WARN: logging.WARNING, LOG_INFO: logging.INFO, LOG_DEBUG: logging.DEBUG}


def _log_sink(level: int, msg: Optional[bytes], user: Any) -> None:
    text = msg.decode("utf-8", "replace").rstrip("\n") if msg else ""
    pending = getattr(_tls, "pending", None)
    if pending is not None and level <= LOG_WARN:
        pending.append((level, text))  # reported with the call's status, or logged after it
        return
    _logger.log(_PY_LEVEL.get(level, logging.DEBUG), "%s", text)


_on_log = LOG_FN(_log_sink)  # referenced here for as long as the library may call it


def status_name(status: int) -> str:
    return text(lib().samrt_status_str(status))


def call(what: str, fn: Callable[..., int], *args: Any) -> None:
    """Runs one status-returning C call; raises the errors.Error subclass of its status, with
    the error lines the library logged during the call. The GIL is released inside fn."""
    _tls.pending = []
    try:
        st = fn(*args)
    finally:
        pending, _tls.pending = _tls.pending, None
    if st != errors.OK:
        lines = [t for lv, t in pending if lv == LOG_ERROR] or [t for _, t in pending]
        raise errors.error_for(st, status_name(st), what, lines)
    for lv, text in pending:
        _logger.log(_PY_LEVEL.get(lv, logging.WARNING), "%s", text)


_C = TypeVar("_C", bound="Closing")


class Closing:
    """A holder of a library handle freed by close(): a context manager, and closed when
    collected too."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: _C) -> _C:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone; a half-made object
            pass


def text(ptr: Optional[bytes]) -> str:
    return ptr.decode("utf-8", "replace") if ptr else ""

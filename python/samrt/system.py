"""What the loaded libsamrt is and what it finds on this machine (the system calls of samrt.h:
backend, devices, library versions, platform profiles), the names of models and precisions,
and the image reader of samrt_image.h. None of these needs a model or a GPU.
"""
import ctypes
import os
from typing import Any, Dict, List, Optional, Tuple, cast

import numpy as np

from . import _capi, errors


def has_cuda() -> bool:
    """True when the library was built with CUDA (GPU kernels, cuBLASLt, cuDNN)."""
    return bool(_capi.lib().samrt_has_cuda())


def library_path() -> str:
    """The libsamrt.so this package loaded."""
    return _capi.library_path()


def device_count() -> int:
    """CUDA devices visible to the process; 0 in a CPU build or without a GPU."""
    n = ctypes.c_int()
    _capi.call("samrt_device_count", _capi.lib().samrt_device_count, ctypes.byref(n))
    return int(n.value)


def _device(info: _capi.DeviceInfo) -> Dict[str, Any]:
    return {"name": info.name.decode("utf-8", "replace"), "ordinal": info.ordinal, "sm_count": info.sm_count,
            "compute_capability": (info.cc_major, info.cc_minor), "integrated": bool(info.integrated),
            "total_bytes": info.total_bytes, "free_bytes": info.free_bytes, "l2_bytes": info.l2_bytes,
            "driver_version": info.driver_version, "runtime_version": info.runtime_version}


def devices() -> List[Dict[str, Any]]:
    """Name, compute capability, memory, ... of every visible CUDA device."""
    out = []
    for i in range(device_count()):
        info = _capi.DeviceInfo()
        _capi.call("samrt_device_query", _capi.lib().samrt_device_query, i, ctypes.byref(info))
        out.append(_device(info))
    return out


def library_versions() -> Dict[str, int]:
    """CUDA driver and runtime, cuDNN and cuBLASLt versions (0 where absent)."""
    v = _capi.LibVersions()
    _capi.lib().samrt_library_versions(ctypes.byref(v))
    return {f[0]: int(getattr(v, f[0])) for f in v._fields_}


def _profile(p: _capi.PlatformProfile) -> Dict[str, Any]:
    lib = _capi.lib()
    return {"name": _capi.text(p.name), "description": _capi.text(p.description), "device_bytes": p.device_bytes,
            "pool_bytes": p.pool_bytes, "reserve_bytes": p.reserve_bytes, "cublaslt_ws_bytes": p.cublaslt_ws_bytes,
            "cudnn_ws_bytes": p.cudnn_ws_bytes, "precision": _capi.text(lib.samrt_dtype_name(p.precision)),
            "mem_kind": _capi.text(lib.samrt_mem_kind_name(p.mem_kind)),
            "compute_capability": (p.cc_major, p.cc_minor), "sm_count": p.sm_count,
            "clock_mhz": p.clock_mhz, "fp16_tflops": p.fp16_tflops, "dram_gbps": p.dram_gbps,
            "launch_us": p.launch_us}


def platform_profiles() -> List[Dict[str, Any]]:
    """The built-in platform profiles ("orin-nano-8gb", "h100-80gb", ..., "cpu")."""
    n = ctypes.c_int()
    arr = _capi.lib().samrt_platform_profile_list(ctypes.byref(n))
    return [_profile(arr[i]) for i in range(n.value)]


def profile_for(platform: Optional[str], device: int = 0) -> _capi.PlatformProfile:
    """The profile an engine plans for: the named one, else the best match for the device
    ("cpu" without one), as samrt_engine_init picks it."""
    lib = _capi.lib()
    if platform is not None:
        p = lib.samrt_platform_profile_by_name(platform.encode())
        if not p:
            names = ", ".join(x["name"] for x in platform_profiles())
            raise ValueError(f"unknown platform profile {platform!r} (known: {names})")
        return cast(_capi.PlatformProfile, p.contents)
    info = _capi.DeviceInfo()
    have = lib.samrt_device_query(int(device), ctypes.byref(info)) == errors.OK
    return cast(_capi.PlatformProfile, lib.samrt_platform_profile_for_device(ctypes.byref(info) if have else None).contents)


def model_id(name: str) -> int:
    """The enum samrt_model_id of "sam2.1_tiny", "edgetam", ... (ValueError for others)."""
    out = ctypes.c_int()
    if not isinstance(name, str) or _capi.lib().samrt_model_parse(name.encode(), ctypes.byref(out)) != errors.OK:
        known = ", ".join(model_names())
        raise ValueError(f"unknown model {name!r} (known: {known})")
    return out.value


def model_names() -> List[str]:
    """Every model name the library knows."""
    lib = _capi.lib()
    names: List[str] = []
    i = 1
    while True:
        name = _capi.text(lib.samrt_model_name(i))
        if not name or name == "unknown" or i > 64:
            return names
        names.append(name)
        i += 1


def precision_id(name: str) -> int:
    """The enum samrt_dtype of "fp32"/"f32", "fp16"/"f16" or "bf16" (ValueError for others)."""
    out = ctypes.c_int()
    ok = isinstance(name, str) and _capi.lib().samrt_dtype_parse(name.encode(), ctypes.byref(out)) == errors.OK
    if not ok or out.value not in (_capi.DTYPE_F32, _capi.DTYPE_F16, _capi.DTYPE_BF16):
        raise ValueError(f"precision must be fp32, fp16 or bf16, not {name!r}")
    return out.value


def read_image(path: "os.PathLike[str] | str") -> np.ndarray:
    """A JPEG or PNG file as an H x W x 3 uint8 RGB array, decoded by libsamrt.so's reader
    (libjpeg's defaults: the bytes Pillow gives). Raises samrt.FileError, samrt.FormatError,
    samrt.UnsupportedError (a palette or 16-bit PNG; a library built without the reader)."""
    if not _capi.has("samrt_image_read_rgb8"):
        raise errors.UnsupportedError(f"{_capi.library_path()} has no image reader (samrt_image_read_rgb8): "
                                      "a libsamrt.so built by this project has one", errors.E_UNSUPPORTED,
                                      "unsupported")
    lib = _capi.lib()
    p = os.fsencode(path)
    w, h = ctypes.c_int(), ctypes.c_int()
    _capi.call("samrt_image_read_rgb8", lib.samrt_image_read_rgb8, p, None, 0, ctypes.byref(w), ctypes.byref(h))
    out = np.empty((h.value, w.value, 3), dtype=np.uint8)
    _capi.call("samrt_image_read_rgb8", lib.samrt_image_read_rgb8, p, out.ctypes.data, out.nbytes, ctypes.byref(w),
               ctypes.byref(h))
    if out.shape[:2] != (h.value, w.value):
        raise errors.FormatError(f"{os.fsdecode(path)} changed while it was read", errors.E_FORMAT, "format error")
    return out


def image_size(path: "os.PathLike[str] | str") -> Tuple[int, int]:
    """(width, height) of a JPEG or PNG file, from its header."""
    if not _capi.has("samrt_image_read_rgb8"):
        return read_image(path).shape[1::-1]  # raises the UnsupportedError
    w, h = ctypes.c_int(), ctypes.c_int()
    _capi.call("samrt_image_read_rgb8", _capi.lib().samrt_image_read_rgb8, os.fsencode(path), None, 0,
               ctypes.byref(w), ctypes.byref(h))
    return int(w.value), int(h.value)

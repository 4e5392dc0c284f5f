"""The package without a checkpoint: the library it loads (only the public API exported, the
ctypes structs laid out as include/samrt.h says), the system calls, plan-only budgets, the
image reader against Pillow's pixels, and statuses raised as samrt.Error subclasses."""
import ctypes
import os
import shutil
import struct
import subprocess
import zlib

import numpy as np
import pytest

import samrt
from samrt import _capi
from conftest import REPO


def test_library_loads():
    assert os.path.exists(samrt.library_path())
    assert isinstance(samrt.has_cuda(), bool)
    assert samrt.device_count() >= 0
    assert set(samrt.library_versions()) == {"cuda_driver", "cuda_runtime", "cudnn", "cublaslt"}
    if not samrt.has_cuda():
        assert samrt.device_count() == 0 and samrt.devices() == []
    assert "sam2.1_tiny" in samrt.model_names() and "edgetam" in samrt.model_names()
    names = [p["name"] for p in samrt.platform_profiles()]
    assert "cpu" in names and "orin-nano-8gb" in names
    # every field of the table reads back (the struct layout matches samrt.h), the last ones too
    by_name = {p["name"]: p for p in samrt.platform_profiles()}
    nano, h100 = by_name["orin-nano-8gb"], by_name["h100-80gb"]
    assert nano["sm_count"] == 8 and nano["dram_gbps"] == 68.0 and nano["clock_mhz"] == 625
    assert h100["sm_count"] == 132 and h100["dram_gbps"] == 3350.0 and h100["launch_us"] > 0
    assert by_name["cpu"]["fp16_tflops"] == 0.0


def test_only_public_symbols_exported():
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm program to list the library's symbols")
    out = subprocess.run([nm, "-D", "--defined-only", samrt.library_path()], capture_output=True, text=True,
                         check=True).stdout
    syms = {line.split()[-1].split("@")[0] for line in out.splitlines() if " T " in line}
    assert syms, out
    assert all(s.startswith("samrt_") for s in syms), sorted(syms)
    assert set(_capi._PROTOTYPES) <= syms
    internal = {s for s in syms if s.startswith(("samrt_internal_", "samrt_op_", "samrt_sam2_", "samrt_arena_"))}
    assert not internal, sorted(internal)


_STRUCTS = {"samrt_device_info": _capi.DeviceInfo, "samrt_lib_versions": _capi.LibVersions,
            "samrt_platform_profile": _capi.PlatformProfile, "samrt_engine_params": _capi.EngineParams,
            "samrt_memory_report": _capi.MemoryReport, "samrt_image": _capi.Image, "samrt_click": _capi.Click,
            "samrt_object_prompt": _capi.ObjectPrompt, "samrt_mask_result": _capi.MaskResult,
            "samrt_track_result": _capi.TrackResult, "samrt_stage_times": _capi.StageTimes}


def test_structs_match_the_header(tmp_path):
    """sizeof and every offsetof of the ctypes structs, against a C compiler's on samrt.h."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    header = os.path.join(REPO, "include", "samrt.h")
    if cc is None or not os.path.exists(header):
        pytest.skip("needs a C compiler and the repository's include/samrt.h")
    lines = ["#include <stdio.h>", "#include <stddef.h>", '#include "samrt.h"', "int main(void) {"]
    for cname, cls in _STRUCTS.items():
        lines.append(f'printf("{cname} %zu\\n", sizeof(struct {cname}));')
        for field, _ in cls._fields_:
            lines.append(f'printf("{cname}.{field} %zu\\n", offsetof(struct {cname}, {field}));')
    lines += ["return 0;", "}"]
    src = tmp_path / "probe.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "probe"
    subprocess.run([cc, "-std=c11", "-I", os.path.dirname(header), str(src), "-o", str(exe)], check=True)
    got = dict(line.split() for line in subprocess.run([str(exe)], capture_output=True, text=True,
                                                       check=True).stdout.splitlines())
    for cname, cls in _STRUCTS.items():
        assert int(got[cname]) == ctypes.sizeof(cls), cname
        for field, _ in cls._fields_:
            assert int(got[f"{cname}.{field}"]) == getattr(cls, field).offset, f"{cname}.{field}"


def test_plan_only_budget():
    m = samrt.Model.plan_only("sam2.1_large", platform="orin-nano-8gb", precision="bf16", max_objects=3)
    b = m.budget()
    regions = b["weights"] + b["state"] + b["workspace"] + b["scratch"] + b["staging"]
    assert 0 < regions <= b["arena"] <= b["pool_capacity"]
    assert b["mem_kind"] == "unified"
    info = m.info()
    assert info["model"] == "sam2.1_large" and info["plan_only"] and info["precision"] == "bf16"
    assert info["parameters"] == 224446642
    # more objects: more state, the same weights
    m5 = samrt.Model.plan_only("sam2.1_large", platform="orin-nano-8gb", precision="bf16", max_objects=5)
    assert m5.budget()["state"] > b["state"] and m5.budget()["weights"] == b["weights"]
    with pytest.raises(samrt.UnsupportedError):
        m.segment(np.zeros((8, 8, 3), np.uint8), points=[[1, 1]])
    m.close()
    m.close()  # idempotent
    with pytest.raises(samrt.StateError, match="closed"):
        m.budget()


def test_budget_matches_the_samrt_program():
    exe = os.environ.get("SAMRT_CLI")
    if not exe or not os.path.exists(exe):
        pytest.skip("SAMRT_CLI (the samrt program of the same build) is not set")
    out = subprocess.run([exe, "budget", "--model", "edgetam", "--precision", "bf16", "--platform", "orin-nano-8gb"],
                         capture_output=True, text=True, check=True).stdout
    arena = samrt.Model.plan_only("edgetam", platform="orin-nano-8gb", precision="bf16").budget()["arena"]
    assert f"{arena / 1048576:.2f}" in out, out


def test_bad_arguments_raise_value_error():
    with pytest.raises(ValueError, match="unknown model"):
        samrt.Model.plan_only("sam3", platform="cpu")
    with pytest.raises(ValueError, match="imgsz"):
        samrt.Model.plan_only("sam2.1_tiny", platform="cpu", imgsz=1000)
    with pytest.raises(ValueError, match="precision"):
        samrt.Model.plan_only("sam2.1_tiny", platform="cpu", precision="int8")
    with pytest.raises(ValueError, match="max_objects"):
        samrt.Model.plan_only("sam2.1_tiny", platform="cpu", max_objects=0)
    with pytest.raises(ValueError, match="max_frame"):
        samrt.Model.plan_only("sam2.1_tiny", platform="cpu", max_frame=(0, 10))
    # the library's own check: an InvalidArgumentError, which is a ValueError too
    with pytest.raises(samrt.InvalidArgumentError, match="no-such-board") as exc:
        samrt.Model.plan_only("sam2.1_tiny", platform="no-such-board")
    assert isinstance(exc.value, ValueError) and exc.value.status == 1


def test_library_errors(tmp_path):
    with pytest.raises(samrt.FileError) as exc:
        samrt.Model(str(tmp_path / "missing.pt"))
    e = exc.value
    assert isinstance(e, samrt.InputError) and isinstance(e, samrt.Error) and isinstance(e, OSError)
    assert e.status == 2 and e.status_name == "i/o error"
    assert any("missing.pt" in m for m in e.messages) and "missing.pt" in str(e)
    bad = tmp_path / "garbage.safetensors"
    bad.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}      ")
    with pytest.raises(samrt.FormatError):
        samrt.Model(str(bad))


def _png(w, h, ctype, rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + r.tobytes() for r in rows)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, ctype, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def _fnv1a64(b):
    h = 0xCBF29CE484222325
    for c in b:
        h = ((h ^ c) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def test_read_image(tmp_path, data_dir):
    # Pillow's pixels of the repository's JPEGs (the hashes test_image_io.c checks)
    want = {"q90_420.jpg": 0x1e90ceab427dfc84, "q85_422_prog.jpg": 0x7ce4a88fd505dc0e, "gray.jpg": 0x3cb27b0022d97ae0}
    for name, h in want.items():
        img = samrt.read_image(os.path.join(data_dir, "images", "ok", name))
        assert img.shape == (13, 17, 3) and img.dtype == np.uint8
        assert _fnv1a64(img.tobytes()) == h, name
    rng = np.random.default_rng(0)
    rgba = rng.integers(0, 256, (5, 7, 4), dtype=np.uint8)
    for ctype, arr, want_rgb in ((2, rgba[..., :3], rgba[..., :3]), (6, rgba, rgba[..., :3]),
                                 (0, rgba[..., 0], np.repeat(rgba[..., :1], 3, -1))):
        p = tmp_path / f"c{ctype}.png"
        p.write_bytes(_png(7, 5, ctype, np.ascontiguousarray(arr)))
        assert np.array_equal(samrt.read_image(p), want_rgb), ctype
    with pytest.raises(samrt.FormatError):
        samrt.read_image(os.path.join(data_dir, "images", "bad", "truncated.jpg"))
    with pytest.raises(samrt.FormatError):
        samrt.read_image(os.path.join(data_dir, "images", "bad", "garbage.bin"))
    with pytest.raises(samrt.FileError):
        samrt.read_image(tmp_path / "none.jpg")

#!/usr/bin/env python3
"""Self-test of taps_io.py (safetensors on numpy), compare_taps.py (thresholds) and
lowp_error_structure.py (bias / noise split), numpy only.

Expected values are worked out by hand from the formats and definitions (byte layouts,
bfloat16 rounding of chosen values, IoU/agreement of small masks), never read back from the
code under test. Run: python3 tests/parity/test_parity_io.py  (exit 0 = all passed)
"""
import contextlib
import io
import json
import os
import struct
import sys
import tempfile

try:
    import numpy as np
except ImportError:  # the harness needs numpy; without it the test cannot run here
    print("test_parity_io: SKIPPED: numpy is not installed")
    sys.exit(77)

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_taps  # noqa: E402
import lowp_error_structure  # noqa: E402
import taps_io  # noqa: E402

N_PASS, N_FAIL = 0, 0


def check(cond, what):
    global N_PASS, N_FAIL
    if cond:
        N_PASS += 1
    else:
        N_FAIL += 1
        print(f"FAIL: {what}")


def raises(fn, exc=taps_io.SafetensorsError):
    try:
        fn()
    except exc:
        return True
    return False


def test_layout(d):
    """Bytes on disk for a two-tensor file, checked field by field."""
    p = os.path.join(d, "a.safetensors")
    bits = taps_io.Bf16Bits(np.array([0x3F80, 0xC000], np.uint16))  # 1.0, -2.0
    taps_io.write(p, {"x": np.array([1.0, -2.0], np.float32), "y": bits}, {"k": 5})
    raw = open(p, "rb").read()
    (n,) = struct.unpack_from("<Q", raw, 0)
    check(n % 8 == 0, "header padded to 8 bytes")
    hdr = json.loads(raw[8:8 + n])
    check(hdr["__metadata__"] == {"k": "5"}, "metadata stored as strings")
    check(hdr["x"] == {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "x header entry")
    check(hdr["y"] == {"dtype": "BF16", "shape": [2], "data_offsets": [8, 12]}, "y header entry")
    check(raw[8 + n:] == struct.pack("<2f", 1.0, -2.0) + struct.pack("<2H", 0x3F80, 0xC000), "data bytes")
    check(not [f for f in os.listdir(d) if ".tmp." in f], "no temporary file left")


def test_roundtrip(d):
    p = os.path.join(d, "r.safetensors")
    rng = np.random.default_rng(1)
    src = {
        "f32": rng.standard_normal((2, 3, 4)).astype(np.float32),
        "f32_fortran": np.asfortranarray(rng.standard_normal((3, 5)).astype(np.float32)),
        "f32_big_endian": np.array([1.5, -3.25], dtype=">f4"),
        "f16": np.array([0.5, 65504.0], np.float16),
        "i64": np.array([-1, 2**40], np.int64),
        "u8": np.arange(7, dtype=np.uint8),
        "bool": np.array([True, False]),
        "scalar": np.float32(3.0),
        "empty": np.zeros((0, 4), np.float32),
        "bf16": taps_io.Bf16Bits(np.array([[0x3F80, 0x7FC0]], np.uint16)),
    }
    taps_io.write(p, src, {"model": "m"})
    got, meta = taps_io.read(p)
    check(meta == {"model": "m"}, "metadata round trip")
    check(list(got) == list(src), "insertion order kept")
    for k, v in src.items():
        tag, arr = got[k]
        want = v.bits if isinstance(v, taps_io.Bf16Bits) else np.asarray(v)
        check(arr.shape == want.shape and np.array_equal(arr, want.astype(arr.dtype)), f"round trip {k}")
    check(got["i64"][0] == "I64" and got["bf16"][0] == "BF16" and got["f16"][0] == "F16", "dtype tags")
    check(got["f32_big_endian"][0] == "F32" and got["f32_big_endian"][1].tolist() == [1.5, -3.25],
          "big-endian input written little-endian")


def test_reader_rejects(d):
    good = os.path.join(d, "g.safetensors")
    taps_io.write(good, {"x": np.zeros(4, np.float32)})
    raw = open(good, "rb").read()
    (n,) = struct.unpack_from("<Q", raw, 0)

    def variant(name, blob):
        p = os.path.join(d, name)
        with open(p, "wb") as f:
            f.write(blob)
        return p

    def with_header(name, hdr, data=b"\0" * 16):
        h = json.dumps(hdr).encode()
        return variant(name, struct.pack("<Q", len(h)) + h + data)

    check(raises(lambda: taps_io.read(variant("t1", raw[:5]))), "shorter than 8 bytes")
    check(raises(lambda: taps_io.read(variant("t2", raw[:-1]))), "truncated data")
    check(raises(lambda: taps_io.read(variant("t3", struct.pack("<Q", 10**6) + raw[8:]))), "header past end")
    check(raises(lambda: taps_io.read(variant("t4", struct.pack("<Q", n) + b"{" * n + raw[8 + n:]))), "bad JSON")
    check(raises(lambda: taps_io.read(with_header("t5", {"x": {"dtype": "F32", "shape": [3], "data_offsets": [0, 16]}}))),
          "shape does not match byte range")
    check(raises(lambda: taps_io.read(with_header("t6", {"x": {"dtype": "Q7", "shape": [4], "data_offsets": [0, 16]}}))),
          "unknown dtype")
    check(raises(lambda: taps_io.read(with_header("t7", {
        "a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
        "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}))), "overlapping tensors")
    check(raises(lambda: taps_io.read(with_header("t8", {"x": {"dtype": "F32"}}))), "missing fields")
    check(raises(lambda: taps_io.write(os.path.join(d, "w"), {"__metadata__": np.zeros(1)}), ValueError),
          "reserved name refused")


def test_bf16():
    f = np.array([1.0, 1.0 + 2**-8, 1.0 + 3 * 2**-8, 1.0 + 2**-8 + 2**-20, -0.0, np.inf,
                  np.float32(3.4028235e38), 2.0**-133], np.float32)
    # 1+2^-8 is halfway between 0x3F80 and 0x3F81 -> even 0x3F80; 1+3*2^-8 halfway between
    # 0x3F81 and 0x3F82 -> even 0x3F82; just above halfway rounds up; FLT_MAX overflows to inf;
    # 2^-133 is the bf16 denormal 0x0001 (mantissa lsb of exponent 0 is 2^-133).
    want = [0x3F80, 0x3F80, 0x3F82, 0x3F81, 0x8000, 0x7F80, 0x7F80, 0x0001]
    check(taps_io.f32_to_bf16_bits(f).tolist() == want, "bf16 rounding, ties to even")
    nan = taps_io.f32_to_bf16_bits(np.array([np.nan], np.float32))[0]
    check((nan & 0x7F80) == 0x7F80 and (nan & 0x7F) != 0, "NaN stays NaN")
    back = taps_io.bf16_bits_to_f32(np.array([0x3F80, 0xC040, 0x0001], np.uint16))
    check(back.tolist() == [1.0, -3.0, 2.0**-133], "bf16 widening")


def test_name_match():
    m = taps_io.name_match
    check(m("frame.3.obj_ptr", "frame.*.obj_ptr"), "* within a part")
    check(not m("frame.3.heads.obj_ptr", "frame.*.obj_ptr"), "* does not cross a dot")
    check(m("frame.3.heads.obj_ptr", "frame.**"), "** crosses dots")
    check(m("tap.trunk.block.11", "tap.trunk.block.1?") and not m("tap.trunk.block.1", "tap.trunk.block.1?"), "?")
    check(m("tap.trunk.block.7", "tap.trunk.block.[5-9]") and not m("tap.trunk.block.4", "tap.trunk.block.[5-9]"),
          "character class")
    check(not m("tapXinput", "tap.input"), "dot is literal")


def entry(a):
    return ("F32", np.asarray(a, np.float32))


def test_compare():
    th32, lowp = compare_taps.PRESETS["fp32"], compare_taps.PRESETS["lowp"]
    ref = np.linspace(-4.0, 4.0, 4096).astype(np.float32).reshape(1, 1, 64, 64)

    r = compare_taps.compare_one("t.x", entry(ref), entry(ref + np.float32(2e-4)), None, th32, 0.5)
    check(not r["fail"] and abs(r["maxref"] - 4.0) < 1e-6 and abs(r["rel"] - 5e-5) < 1e-6, "5e-5 relative passes")
    r = compare_taps.compare_one("t.x", entry(ref), entry(ref + np.float32(8e-4)), None, th32, 0.5)
    check(r["fail"] == ["rel>0.0001"], "2e-4 relative fails fp32")
    nan = ref.copy()
    nan[0, 0, 0, 0] = np.nan
    check("non-finite" in compare_taps.compare_one("t.x", entry(ref), entry(nan), None, th32, 0.5)["fail"],
          "NaN in test fails")
    r = compare_taps.compare_one("t.x", entry(ref), entry(ref.reshape(64, 64)), None, th32, 0.5)
    check(not r["fail"], "size-1 dims ignored")
    r = compare_taps.compare_one("t.x", entry(ref), entry(ref.reshape(1, 1, 32, 128)), None, th32, 0.5)
    check(r["fail"] and r["fail"][0].startswith("shape"), "incompatible shape fails")

    # Mask logits: 1000 confident pixels (|x| = 2), 24 unsure (|x| = 0.1), ref positive on the
    # first 500 confident and the first 12 unsure pixels.
    m = np.full(1024, -2.0, np.float32)
    m[:500] = 2.0
    m[1000:] = -0.1
    m[1000:1012] = 0.1
    t = m.copy()
    t[0:2] = -2.0        # 2 confident flips: agreement 998/1000
    t[1012:1024] = 0.1   # 12 unsure pixels turn positive: not in the agreement
    r = compare_taps.compare_one("x.masks", entry(m), entry(t), None, lowp, 0.5)
    # ref positive 512, test positive 498 + 24 = 522, overlap 498 + 12 = 510 -> IoU 510 / 524
    check(abs(r["agree"] - 0.998) < 1e-12, "confident agreement 998/1000")
    check(abs(r["iou"] - 510 / 524) < 1e-12, "IoU 510/524")
    check(r["fail"] == ["agree<0.999"], "agreement below 0.999 fails lowp")
    base = m.copy()
    base[0:10] = -2.0    # base IoU 502 / 512
    r = compare_taps.compare_one("x.masks", entry(m), entry(t), entry(base), dict(lowp, min_agree=None), 0.5)
    check(abs(r["base_iou"] - 502 / 512) < 1e-12 and not r["fail"], "IoU within 0.01 of base passes")
    base = m.copy()
    base[0:2] = -2.0     # base IoU 510 / 512 = 0.996: test's 510 / 524 = 0.973 is 0.023 below
    r = compare_taps.compare_one("x.masks", entry(m), entry(t), entry(base), dict(lowp, min_agree=None), 0.5)
    check(r["fail"] == ["iou<base-0.01"], "IoU more than 0.01 below base fails")
    empty = np.full(16, -3.0, np.float32)
    check(compare_taps.compare_one("x.masks", entry(empty), entry(empty), None, lowp, 0.5)["iou"] == 1.0,
          "two empty masks have IoU 1")

    # bf16 values 1.0, 2^-133, -2.0, 2.0; ulp of 1.0 is 2^-7, of 2.0 is 2^-6.
    bits = np.array([0x3F80, 0x0001, 0xC000, 0x4000], np.uint16)
    off1 = np.array([0x3F81, 0x8001, 0xC000, 0x4001], np.uint16)  # 1 ulp, sign flip near 0, 0, 1 ulp
    off2 = np.array([0x3F80, 0x0001, 0xC000, 0x4002], np.uint16)  # 2 ulps at 2.0
    r = compare_taps.compare_one("f.maskmem_features", ("BF16", bits), ("BF16", off1), None, th32, 0.5)
    check(r["ulp"] == 1.0 and not r["fail"], "1 ulp passes, a sign flip of tiny values does not count")
    r = compare_taps.compare_one("f.maskmem_features", ("BF16", bits), ("BF16", off2), None, th32, 0.5)
    check(r["ulp"] == 2.0 and r["fail"] == ["ulp>1"], "2 ulps fail fp32, relative error not applied")
    f32 = taps_io.bf16_bits_to_f32(bits) * np.float32(1 + 2**-9)  # a quarter ulp on the F32 side
    r = compare_taps.compare_one("f.maskmem_features", ("BF16", bits), entry(f32), None, th32, 0.5)
    check(abs(r["ulp"] - 0.25) < 1e-12 and not r["fail"], "F32 side measured in bf16 ulps")

    rows, only_ref, only_test = compare_taps.compare({"a": entry(ref), "b": entry(ref)},
                                                     {"a": entry(ref), "c": entry(ref)})
    check(len(rows) == 1 and only_ref == ["b"] and only_test == ["c"], "one-sided taps listed")


def test_main(d):
    ref = np.arange(12, dtype=np.float32).reshape(3, 4)
    pr, pt, pb = (os.path.join(d, n) for n in ("ref.safetensors", "ok.safetensors", "bad.safetensors"))
    taps_io.write(pr, {"tap.a": ref, "tap.b": ref}, {"model": "m"})
    taps_io.write(pt, {"tap.a": ref, "tap.z": ref}, {"model": "m"})
    taps_io.write(pb, {"tap.a": ref + 1}, {"model": "m"})

    def rc(*args):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return compare_taps.main(list(args))
    check(rc(pr, pt) == 0, "exit 0 when all compared taps pass, one-sided ones ignored")
    check(rc(pr, pb) == 1, "exit 1 on a failed threshold")
    check(rc(pr, pb, "--no-threshold") == 0, "--no-threshold reports only")
    check(rc(pr, pb, "--max-rel", "0.1") == 0, "flag overrides preset")
    check(rc(pr, pb, "--only", "tap.b") == 2, "exit 2 when nothing is in common")
    check(rc(pr, os.path.join(d, "missing.safetensors")) == 2, "exit 2 on unreadable file")


def test_error_structure():
    # band |ref| < 1: ref = [0.5, -0.5, 2, -3] keeps the first two pixels
    ref = np.array([0.5, -0.5, 2.0, -3.0], dtype=np.float32).reshape(1, 1, 2, 2)
    test = ref + np.array([0.25, 0.25, 9.0, 9.0], dtype=np.float32).reshape(1, 1, 2, 2)  # bias 0.25, rms 0.25
    base = ref + np.array([0.5, -0.5, 0.0, 0.0], dtype=np.float32).reshape(1, 1, 2, 2)   # bias 0, rms 0.5
    off = np.zeros(256, dtype=np.float32)
    off[:4] = [2.0, -2.0, 2.0, -2.0]  # a per-channel offset: rms over channels sqrt(16/256) = 0.25
    m = np.ones((3, 1, 256), dtype=np.float32)
    noise = np.zeros((3, 1, 256), dtype=np.float32)
    noise[:, 0, 10] = [1.0, -1.0, 0.0]  # zero-mean over tokens: rms sqrt(2/768), no channel bias
    taps = lambda masks, ma: {"frame.1.pred_masks": entry(masks), "frame.1.memattn.out": entry(ma)}
    row = lowp_error_structure.frame_row(taps(ref, m), taps(base, m + noise), taps(test, m + off), 1)
    near = lambda a, b: abs(a - b) < 1e-6
    check(near(row[0], 0.25) and near(row[2], 0.25), "samrt: bias 0.25, rms 0.25 in the band only")
    check(near(row[1], 0.0) and near(row[3], 0.5), "official: bias 0, rms 0.5")
    check(near(row[4], 0.0), "a constant error field has no correlation (0 by definition)")
    check(near(row[5], 0.25) and near(row[7], 0.25), "per-channel offset: chan = rms")
    check(near(row[6], 0.0) and near(row[8], (2.0 / 768) ** 0.5), "token noise: no channel bias")
    row = lowp_error_structure.frame_row(taps(ref, m), {"frame.1.pred_masks": entry(base)},
                                         {"frame.1.pred_masks": entry(test)}, 1)
    check(np.isnan(row[5]) and np.isnan(row[8]), "memattn columns nan without the taps")
    check(lowp_error_structure.frame_row(taps(ref, m), {}, {}, 1) is None, "no masks, no row")


def main():
    with tempfile.TemporaryDirectory() as d:
        test_layout(d)
        test_roundtrip(d)
        test_reader_rejects(d)
        test_main(d)
    test_bf16()
    test_name_match()
    test_compare()
    test_error_structure()
    print(f"{N_PASS} passed, {N_FAIL} failed")
    return 1 if N_FAIL else 0


if __name__ == "__main__":
    sys.exit(main())

"""Read and write safetensors files with numpy and struct only (no torch, no safetensors package).

Used by dump_taps.py (official side), compare_taps.py and the checkpoint copies. Layout of a file:
8-byte little-endian header length N, N bytes of JSON header (padded with spaces to a multiple of 8),
then the raw little-endian tensor bytes, each tensor contiguous and row-major, back to back in the
order the header lists them. Offsets in the header are relative to the first data byte.

Design choice: bfloat16 has no numpy dtype, so a BF16 tensor travels as its raw uint16 bit patterns
wrapped in Bf16Bits; the reader hands those bits back unchanged and to_f32() widens them exactly
(bits << 16). Nothing here ever rounds a value.

Self-test: python3 tests/parity/test_parity_io.py
"""
import json
import os
import re
import struct

import numpy as np

# safetensors dtype tag <-> numpy dtype (little-endian). BF16 is handled separately.
_DTYPES = {
    "F64": np.dtype("<f8"), "F32": np.dtype("<f4"), "F16": np.dtype("<f2"),
    "I64": np.dtype("<i8"), "I32": np.dtype("<i4"), "I16": np.dtype("<i2"), "I8": np.dtype("i1"),
    "U64": np.dtype("<u8"), "U32": np.dtype("<u4"), "U16": np.dtype("<u2"), "U8": np.dtype("u1"),
    "BOOL": np.dtype("?"),
}
_MAX_HEADER = 100 * 1024 * 1024  # the reference implementation's limit


class Bf16Bits:
    """A bfloat16 tensor held as its raw uint16 bit patterns."""

    def __init__(self, bits):
        self.bits = np.asarray(bits, dtype="<u2", order="C")  # keeps 0-d shapes

    @property
    def shape(self):
        return self.bits.shape

    @property
    def nbytes(self):
        return self.bits.nbytes


def bf16_bits_to_f32(bits):
    """Exact widening of bfloat16 bit patterns to float32."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16_bits(x):
    """Round float32 to bfloat16 (nearest, ties to even), as torch's .to(torch.bfloat16); NaN stays NaN."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = (u + np.uint32(0x7FFF) + ((u >> 16) & np.uint32(1))) >> 16
    nan = (u & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    out = np.where(nan, (u >> 16) | np.uint32(0x0040), rounded)
    return out.astype(np.uint16)


def _tag_of(arr):
    for tag, ref in _DTYPES.items():  # byte order is fixed later by the cast to the '<' dtype
        if arr.dtype.kind == ref.kind and arr.dtype.itemsize == ref.itemsize:
            return tag
    raise ValueError(f"no safetensors dtype for numpy {arr.dtype}")


def write(path, tensors, metadata=None):
    """Write {name: np.ndarray | Bf16Bits} in insertion order; metadata values become strings.

    The file appears atomically (written to a temporary name, then renamed)."""
    header, blobs, off = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name, t in tensors.items():
        if name == "__metadata__":
            raise ValueError("'__metadata__' is reserved")
        if isinstance(t, Bf16Bits):
            tag, arr = "BF16", t.bits
        else:
            arr = np.asarray(t)
            tag = _tag_of(arr)
            arr = np.asarray(arr, dtype=_DTYPES[tag], order="C")
        header[name] = {"dtype": tag, "shape": [int(s) for s in arr.shape],
                        "data_offsets": [off, off + arr.nbytes]}
        blobs.append(arr)
        off += arr.nbytes
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(struct.pack("<Q", len(raw)))
            f.write(raw)
            for arr in blobs:
                if arr.size:
                    f.write(arr.reshape(-1).view(np.uint8).data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return 8 + len(raw) + off


class SafetensorsError(ValueError):
    pass


def read(path):
    """Return ({name: (tag, ndarray)}, metadata). BF16 arrays are uint16 bit patterns.

    Checks what a truncated or hand-made file could get wrong: header bounds, known dtypes,
    shape x itemsize == byte range, ranges inside the data and not overlapping."""
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise SafetensorsError(f"{path}: shorter than the 8-byte header length")
    (n,) = struct.unpack_from("<Q", blob, 0)
    if n > _MAX_HEADER or 8 + n > len(blob):
        raise SafetensorsError(f"{path}: header length {n} does not fit the file ({len(blob)} bytes)")
    try:
        header = json.loads(blob[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SafetensorsError(f"{path}: header is not JSON: {e}") from None
    if not isinstance(header, dict):
        raise SafetensorsError(f"{path}: header is not a JSON object")
    meta = header.pop("__metadata__", None) or {}
    data = memoryview(blob)[8 + n:]
    out, spans = {}, []
    for name, info in header.items():
        try:
            tag, shape, (b, e) = info["dtype"], list(info["shape"]), info["data_offsets"]
        except (KeyError, TypeError, ValueError):
            raise SafetensorsError(f"{path}: malformed entry for {name!r}") from None
        if tag == "BF16":
            dt = np.dtype("<u2")
        elif tag in _DTYPES:
            dt = _DTYPES[tag]
        else:
            raise SafetensorsError(f"{path}: {name}: unsupported dtype {tag}")
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if not (0 <= b <= e <= len(data)) or e - b != count * dt.itemsize:
            raise SafetensorsError(f"{path}: {name}: byte range [{b},{e}) does not match shape {shape} "
                                   f"x {dt.itemsize} B or the {len(data)}-byte data section")
        spans.append((b, e, name))
        out[name] = (tag, np.frombuffer(data[b:e], dtype=dt).reshape(tuple(shape)))
    spans.sort()
    for (b0, e0, n0), (b1, _e1, n1) in zip(spans, spans[1:]):
        if b1 < e0:
            raise SafetensorsError(f"{path}: {n0} and {n1} overlap")
    return out, meta


def _glob_regex(pattern):
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^.]*")
        elif c == "?":
            out.append("[^.]")
        elif c == "[" and "]" in pattern[i + 1:]:
            j = pattern.index("]", i + 1)
            out.append(pattern[i:j + 1])
            i = j
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out))


def name_match(name, pattern):
    """Glob over dotted tap names: '*' and '?' stay inside one dot-separated part, '**' crosses
    parts, '[0-9]' is a character class. 'frame.*.obj_ptr' matches frame.3.obj_ptr but not
    frame.3.heads.obj_ptr; 'frame.**' matches every per-frame tap."""
    return _glob_regex(pattern).fullmatch(name) is not None


def to_f32(tag, arr):
    """Any stored tensor as float32 (exact for F32/BF16/F16; integers converted)."""
    if tag == "BF16":
        return bf16_bits_to_f32(arr)
    return np.asarray(arr, dtype=np.float32)

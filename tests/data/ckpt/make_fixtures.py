#!/usr/bin/env python3
"""Writes the checkpoint fixtures under tests/data/ckpt/: good/ (valid files in every layout
the reader accepts, all holding the same small state_dict) and bad/ (the malformed-file
corpus, with bad/expected.txt naming the status each file must produce).

Needs only the Python standard library. torch.save's layout is reproduced byte for byte
where it matters: the stdlib pickler itself writes data.pkl (protocol 2, as torch.save does),
with stand-in `torch` / `torch._utils` modules registered so that globals are written under
torch's names, tensors reduce to torch._utils._rebuild_tensor_v2(storage, offset, size,
stride, requires_grad, OrderedDict()) and storages become the persistent id
('storage', torch.FloatStorage, key, location, numel). The zip follows PyTorch's writer:
records <dir>/data.pkl, .format_version, .storage_alignment, byteorder, data/<key>, version,
.data/serialization_id; STORED entries whose data start is padded to 64 bytes with an "FB"
extra field; a zip64 end-of-central-directory record and locator before the classic one.

Run from anywhere:  python3 tests/data/ckpt/make_fixtures.py
The output is deterministic; the test executables only read the committed files.
"""
import collections
import io
import math
import os
import pickle
import struct
import sys
import types
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- stand-in torch modules: only names, so the pickler writes torch's globals ----------------

torch = types.ModuleType("torch")
torch_utils = types.ModuleType("torch._utils")
torch._utils = torch_utils


def _rebuild_tensor_v2(*args):
    raise RuntimeError("fixture stand-in, never called")


def _rebuild_parameter(*args):
    raise RuntimeError("fixture stand-in, never called")


for fn in (_rebuild_tensor_v2, _rebuild_parameter):
    fn.__module__ = "torch._utils"
    setattr(torch_utils, fn.__name__, fn)

STORAGE_CLASS = {}
for dtype, cls_name in [("f32", "FloatStorage"), ("f16", "HalfStorage"), ("bf16", "BFloat16Storage"),
                        ("i64", "LongStorage"), ("i32", "IntStorage"), ("u8", "ByteStorage"),
                        ("f64", "DoubleStorage")]:
    cls = type(cls_name, (), {"__module__": "torch"})
    setattr(torch, cls_name, cls)
    STORAGE_CLASS[dtype] = cls
sys.modules["torch"] = torch
sys.modules["torch._utils"] = torch_utils

ELEM = {"f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "u8": 1, "f64": 8}
ST_DTYPE = {"f32": "F32", "f16": "F16", "bf16": "BF16", "i64": "I64", "i32": "I32", "u8": "U8", "f64": "F64"}


def encode(dtype, values):
    if dtype == "bf16":
        out = b""
        for v in values:
            bits = struct.unpack("<I", struct.pack("<f", v))[0]
            assert bits & 0xFFFF == 0 or math.isnan(v), f"{v} is not exact in bf16"
            out += struct.pack("<H", bits >> 16 if not math.isnan(v) else 0x7FC0)
        return out
    fmt = {"f32": "f", "f16": "e", "i64": "q", "i32": "i", "u8": "B", "f64": "d"}[dtype]
    return struct.pack("<%d%s" % (len(values), fmt), *values)


class Storage:
    def __init__(self, dtype, values, numel=None):
        self.dtype = dtype
        self.data = encode(dtype, values)
        self.numel = len(values) if numel is None else numel


class Tensor:
    """Reduces exactly like torch.Tensor.__reduce_ex__ for a dense CPU tensor."""

    def __init__(self, storage, shape, offset=0, stride=None, parameter=False):
        self.storage, self.shape, self.offset, self.parameter = storage, tuple(shape), offset, parameter
        if stride is None:
            stride, acc = [], 1
            for n in reversed(self.shape):
                stride.insert(0, acc)
                acc *= n
        self.stride = tuple(stride)

    def __reduce_ex__(self, protocol):
        args = (self.storage, self.offset, self.shape, self.stride, False, collections.OrderedDict())
        if self.parameter:  # nn.Parameter: _rebuild_parameter(data, requires_grad, hooks)
            inner = Tensor(self.storage, self.shape, self.offset, self.stride)
            return (_rebuild_parameter, (inner, True, collections.OrderedDict()))
        return (_rebuild_tensor_v2, args)


def tensor(dtype, shape, values, **kw):
    return Tensor(Storage(dtype, values), shape, **kw)


# ---- pickling --------------------------------------------------------------------------------

def persistent_id_factory(storages):
    keys = {}

    def persistent_id(obj):
        if isinstance(obj, Storage):
            key = keys.setdefault(id(obj), str(len(keys)))
            storages[key] = obj
            return ("storage", STORAGE_CLASS[obj.dtype], key, "cpu", obj.numel)
        return None
    return persistent_id


def torch_pickle(obj, protocol=2, long1=False):
    """data.pkl bytes and the storages it references ({key: Storage})."""
    storages = {}
    buf = io.BytesIO()
    if long1:  # the pure-Python pickler, told to write every int >= 256 as LONG1
        class P(pickle._Pickler):
            dispatch = pickle._Pickler.dispatch.copy()

            def save_long(self, v):
                if v >= 256:
                    enc = pickle.encode_long(v)
                    self.write(pickle.LONG1 + struct.pack("<B", len(enc)) + enc)
                else:
                    pickle._Pickler.save_long(self, v)
            dispatch[int] = save_long
    else:
        class P(pickle.Pickler):
            pass
    p = P(buf, protocol=protocol)
    p.persistent_id = persistent_id_factory(storages)
    p.dump(obj)
    return buf.getvalue(), storages


# ---- zip, as PyTorch's writer lays it out -------------------------------------------------------

def torch_zip(prefix, records, zip64_eocd=True, zip64_extra=False, methods=None, align=64):
    """records: [(name, bytes)]; names get the '<prefix>/' folder."""
    out, cd = bytearray(), bytearray()
    methods = methods or {}
    for name, data in records:
        full = (prefix + "/" + name).encode()
        lho = len(out)
        start = lho + 30 + len(full) + 4
        pad = (-start) % align
        extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
        crc = zlib.crc32(data)
        method = methods.get(name, 0)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, len(data), len(data),
                           len(full), len(extra)) + full + extra + data
        if zip64_extra:
            cx = struct.pack("<HHQQQ", 1, 24, len(data), len(data), lho)
            sizes = (0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF)
        else:
            cx, sizes = b"", (len(data), len(data), lho)
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x031E, 20, 0, method, 0, 0x21, crc, sizes[0],
                          sizes[1], len(full), len(cx), 0, 0, 0, 0, sizes[2]) + full + cx
    n, cd_off = len(records), len(out)
    out += cd
    if zip64_eocd:
        z64 = len(out)
        out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 45, 0, 0, n, n, len(cd), cd_off)
        out += struct.pack("<IIQI", 0x07064B50, 0, z64, 1)
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(cd), cd_off, 0)
    return bytes(out)


def torch_save(obj, prefix="archive", protocol=2, long1=False, byteorder=b"little", old_layout=False,
               pkl=None, extra_storages=None, **zip_kw):
    """What torch.save(obj, f) writes. old_layout: PyTorch 1.x records (no .format_version...)."""
    data_pkl, storages = torch_pickle(obj, protocol, long1) if pkl is None else (pkl, {})
    storages.update(extra_storages or {})
    recs = [("data.pkl", data_pkl)]
    if not old_layout:
        recs += [(".format_version", b"1"), (".storage_alignment", b"64")]
    recs.append(("byteorder", byteorder))
    recs += [("data/" + k, s.data) for k, s in storages.items()]
    recs.append(("version", b"3\n"))
    if not old_layout:
        recs.append((".data/serialization_id", b"0123456789012345678901234567890123456789"))
    return torch_zip(prefix, recs, zip64_eocd=not old_layout, **zip_kw)


# ---- safetensors -------------------------------------------------------------------------------

def safetensors(tensors, metadata=None, header=None, data=None):
    """tensors: {name: (dtype, shape, bytes)} -> the file; header/data override for bad cases."""
    if header is None:
        h, blobs, off = {}, [], 0
        if metadata is not None:
            h["__metadata__"] = metadata
        for name, (dt, shape, raw) in tensors.items():
            h[name] = {"dtype": ST_DTYPE[dt], "shape": list(shape), "data_offsets": [off, off + len(raw)]}
            blobs.append(raw)
            off += len(raw)
        import json
        header = json.dumps(h, separators=(",", ":")).encode()
        data = b"".join(blobs)
    header = header + b" " * ((-len(header)) % 8)  # the reference writer pads to 8 bytes
    return struct.pack("<Q", len(header)) + header + data


# ---- the good state_dict (tests/test_ckpt.c checks these exact values) ---------------------------

CONV = [1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-11, 1 + 3 * 2**-11, 65520.0, -0.0, 2**-25, 3.0e38]


def good_state_dict(parameters=False):
    shared = Storage("f32", [float(i) for i in range(8)])
    sd = collections.OrderedDict()
    sd["a"] = tensor("f32", (2, 3), [0.25 * i - 1 for i in range(6)], parameter=parameters)
    sd["image_encoder.trunk.blocks.0.attn.qkv.weight"] = tensor("f32", (3, 2), [100.0 + i for i in range(6)])
    sd["b"] = tensor("f16", (4,), [0.5, -1.5, 2.0, 65504.0])
    sd["c"] = tensor("bf16", (2, 2), [1.0, -2.0, 0.5, 3.0], parameter=parameters)
    sd["w"] = Tensor(shared, (8,))
    sd["v"] = Tensor(shared, (2, 2), offset=4)
    sd["n"] = tensor("i64", (), [7])
    sd["i"] = tensor("i32", (3,), [-1, 0, 2147483647])
    sd["big"] = tensor("i64", (2,), [5, -3])
    sd["u"] = tensor("u8", (2, 2, 1), [0, 1, 254, 255], stride=(2, 1, 5))  # size-1 dims: any stride
    sd["s"] = tensor("f32", (), [3.5])
    sd["z"] = tensor("f32", (0, 4), [])
    sd["conv"] = tensor("f32", (8,), CONV)
    sd._metadata = collections.OrderedDict([("", {"version": 1}), ("image_encoder", {"version": 1})])
    return sd


def good_safetensors():
    t = collections.OrderedDict()
    for name, x in good_state_dict().items():
        es = ELEM[x.storage.dtype]
        n = 1
        for d in x.shape:
            n *= d
        t[name] = (x.storage.dtype, x.shape, x.storage.data[x.offset * es:(x.offset + n) * es])
    return safetensors(t, metadata={"format": "pt"})


# ---- the malformed corpus --------------------------------------------------------------------------

def raw_pkl(body):
    return b"\x80\x02" + body


def bad_cases():
    """[(file name, expected status, bytes)]; status: ok[:nonfinite], format, forbidden, unsupported."""
    good = torch_save({"model": good_state_dict()})
    cases = []
    add = lambda name, status, data, msg="": cases.append((name, status, data, msg))

    # zip container
    add("truncated_zip.pt", "format", good[: len(good) // 2])
    add("truncated_tail.pt", "format", good[:-7])
    eocd = good.rindex(b"PK\x05\x06")
    add("cd_offset_past_end.pt", "format",
        torch_save({"model": good_state_dict()}, old_layout=True)[:-6] + struct.pack("<IH", 0x7FFFFFF0, 0))
    z64 = good.rindex(b"PK\x06\x07")
    add("zip64_locator_bad.pt", "format", good[:z64 + 8] + struct.pack("<Q", 3) + good[z64 + 16:])
    cd0 = good.index(b"PK\x01\x02")  # first central header: data.pkl; its size field at +24
    add("entry_past_end.pt", "format", good[:cd0 + 20] + struct.pack("<II", 10**9, 10**9) + good[cd0 + 28:])
    add("compressed_entry.pt", "unsupported",
        torch_save({"model": good_state_dict()}, methods={"data.pkl": 8}), "compressed (method 8)")
    add("no_data_pkl.pt", "format", torch_zip("archive", [("version", b"3\n"), ("byteorder", b"little")]))
    add("duplicate_zip_entry.pt", "format",
        torch_zip("archive", [("data.pkl", torch_pickle({"model": {}})[0]), ("data.pkl", b"")]))
    add("big_endian.pt", "unsupported", torch_save({"model": good_state_dict()}, byteorder=b"big"))
    add("legacy_pickle.pt", "format", b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19." + b"\0" * 32, "legacy")
    add("empty.pt", "format", b"")
    add("text.bin", "format", b"this is not a checkpoint\n")

    # pickle
    pkl, st = torch_pickle({"model": good_state_dict()})
    add("corrupt_pickle_truncated.pt", "format", torch_save(None, pkl=pkl[: len(pkl) // 2], extra_storages=st))
    add("corrupt_pickle_string_length.pt", "format", torch_save(None, pkl=raw_pkl(b"X\xff\xff\xff\x7fabc.")))
    add("unknown_opcode.pt", "forbidden", torch_save(None, pkl=raw_pkl(b"}\xff.")), "opcode 0xff")
    add("opcode_inst.pt", "forbidden", torch_save(None, pkl=raw_pkl(b"(ios\nsystem\nS'true'\n.")), "(INST)")
    add("forbidden_os_system.pt", "forbidden",
        torch_save(None, pkl=raw_pkl(b"cos\nsystem\nq\x00X\x04\x00\x00\x00trueq\x01\x85q\x02Rq\x03.")), "global os.system")
    add("forbidden_builtins_eval.pt", "forbidden",
        torch_save(None, pkl=raw_pkl(b"cbuiltins\neval\nX\x04\x00\x00\x00None\x85R.")), "global builtins.eval")
    class Evil:  # a state_dict with a payload among the tensors, as the stdlib pickler writes it
        def __reduce__(self):
            return (os.system, ("true",))
    add("forbidden_stack_global.pt", "forbidden", torch_save(None, pkl=pickle.dumps(Evil(), protocol=4)),
        "global posix.system")
    sd = good_state_dict()
    sd["evil"] = Evil()
    add("forbidden_in_state_dict.pt", "forbidden", torch_save({"model": sd}), "global posix.system")
    add("memo_undefined.pt", "format", torch_save(None, pkl=raw_pkl(b"}h\x05.")))
    add("stack_underflow.pt", "format", torch_save(None, pkl=raw_pkl(b"R.")))
    add("setitems_odd.pt", "format", torch_save(None, pkl=raw_pkl(b"}(X\x01\x00\x00\x00au.")))
    add("mark_underflow.pt", "format", torch_save(None, pkl=raw_pkl(b"}t.")))
    add("deep_marks.pt", "format", torch_save(None, pkl=raw_pkl(b"(" * 1000 + b".")))
    add("no_stop.pt", "format", torch_save(None, pkl=raw_pkl(b"}")))
    add("not_a_dict.pt", "format", torch_save([1, 2, 3]))
    add("value_not_tensor.pt", "format", torch_save({"model": {"a": 3}}))
    add("empty_state_dict.pt", "format", torch_save({"model": {}}))
    dup = collections.OrderedDict([("dupA", tensor("f32", (1,), [1.0])), ("dupB", tensor("f32", (1,), [2.0]))])
    p, st = torch_pickle({"model": dup})
    add("duplicate_key.pt", "format", torch_save(None, pkl=p.replace(b"dupB", b"dupA"), extra_storages=st))

    # tensors
    s8 = Storage("f32", [float(i) for i in range(8)])
    add("storage_offset_past_end.pt", "format", torch_save({"model": {"x": Tensor(s8, (4,), offset=6)}}),
        "runs past its storage")
    add("shape_vs_bytes.pt", "format",
        torch_save({"model": {"x": Tensor(Storage("f32", [1.0] * 4, numel=6), (6,))}}), "holds 16 bytes")
    add("noncontiguous.pt", "unsupported",
        torch_save({"model": {"x": Tensor(Storage("f32", [0.0] * 6), (2, 3), stride=(1, 2))}}), "contiguous")
    add("missing_storage.pt", "format", torch_save(None, pkl=torch_pickle({"model": good_state_dict()})[0]))
    add("double_storage.pt", "unsupported", torch_save({"model": {"x": tensor("f64", (2,), [1.0, 2.0])}}),
        "torch.DoubleStorage")
    add("too_many_dims.pt", "unsupported", torch_save({"model": {"x": tensor("f32", (1,) * 7, [1.0])}}))

    # non-finite weights load, with a warning per tensor
    nf = collections.OrderedDict()
    nf["ok"] = tensor("f32", (2,), [1.0, 2.0])
    nf["nan"] = tensor("f32", (3,), [0.0, float("nan"), 1.0])
    nf["inf"] = tensor("f16", (2,), [float("inf"), 1.0])
    nf["bnan"] = tensor("bf16", (2,), [float("nan"), float("-inf")])
    add("nonfinite.pt", "ok:3", torch_save({"model": nf}))
    add("nonfinite.safetensors", "ok:3", safetensors(
        {k: (x.storage.dtype, x.shape, x.storage.data) for k, x in nf.items()}))

    # safetensors
    f4 = encode("f32", [1.0, 2.0, 3.0, 4.0])
    add("st_header_too_large.safetensors", "format", struct.pack("<Q", 200_000_000) + b"{}" + b" " * 30,
        "larger than")
    add("st_header_past_end.safetensors", "format", struct.pack("<Q", 5000) + b'{"a":1}' + b" " * 40)
    add("st_overlap.safetensors", "format", safetensors(None, header=(
        b'{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},'
        b'"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}'), data=f4), "overlap")
    add("st_offsets_out_of_range.safetensors", "format", safetensors(None, header=(
        b'{"a":{"dtype":"F32","shape":[8],"data_offsets":[0,32]}}'), data=f4))
    add("st_offsets_reversed.safetensors", "format", safetensors(None, header=(
        b'{"a":{"dtype":"F32","shape":[0],"data_offsets":[16,8]}}'), data=f4))
    add("st_shape_mismatch.safetensors", "format", safetensors(None, header=(
        b'{"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,16]}}'), data=f4), "make 24 bytes")
    add("st_trailing_comma.safetensors", "format", safetensors(None, header=(
        b'{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},}'), data=f4))
    add("st_unterminated_string.safetensors", "format", safetensors(None, header=b'{"a:{}}', data=f4))
    add("st_bad_dtype.safetensors", "unsupported", safetensors(None, header=(
        b'{"a":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}}'), data=f4))
    add("st_duplicate_name.safetensors", "format", safetensors(None, header=(
        b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},'
        b'"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}'), data=f4))
    add("st_unknown_field.safetensors", "format", safetensors(None, header=(
        b'{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16],"x":1}}'), data=f4))
    add("st_negative_dim.safetensors", "format", safetensors(None, header=(
        b'{"a":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}}'), data=f4))
    add("st_lone_surrogate.safetensors", "format", safetensors(None, header=(
        b'{"a\\ud800":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}'), data=f4))
    add("st_missing_offsets.safetensors", "format", safetensors(None, header=(
        b'{"a":{"dtype":"F32","shape":[4]}}'), data=f4))
    add("st_huge_dims.safetensors", "format", safetensors(None, header=(
        b'{"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,16]}}'), data=f4))
    return cases


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def main():
    good = os.path.join(HERE, "good")
    write(os.path.join(good, "tiny_state.pt"), torch_save({"model": good_state_dict()}))
    write(os.path.join(good, "tiny_state_old.pt"),
          torch_save({"model": good_state_dict()}, prefix="tiny_state_old", old_layout=True))
    write(os.path.join(good, "tiny_state_bare_param.pt"), torch_save(good_state_dict(parameters=True)))
    write(os.path.join(good, "tiny_state_proto4.pt"),
          torch_save({"model": good_state_dict()}, protocol=4, zip64_extra=True))
    write(os.path.join(good, "tiny_state_long1.pt"), torch_save({"model": good_state_dict()}, long1=True))
    write(os.path.join(good, "tiny_state.safetensors"), good_safetensors())

    bad = os.path.join(HERE, "bad")
    os.makedirs(bad, exist_ok=True)
    for f in os.listdir(bad):
        os.remove(os.path.join(bad, f))
    lines = ["# file, expected status (ok[:n]: loads, n tensors warned non-finite), then text the error log",
             "# must contain. Written by make_fixtures.py."]
    for name, status, data, msg in bad_cases():
        write(os.path.join(bad, name), data)
        lines.append(f"{name} {status} {msg}".rstrip())
    write(os.path.join(bad, "expected.txt"), ("\n".join(lines) + "\n").encode())


if __name__ == "__main__":
    main()

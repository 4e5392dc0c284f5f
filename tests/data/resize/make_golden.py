#!/usr/bin/env python3
"""Golden data for tests/test_resize_normalize.c: Pillow's own BICUBIC resize output.

Each case builds a deterministic RGB8 frame from integer formulas that the C test repeats
(so no input image is stored), resizes it with PIL.Image.resize(size) (BICUBIC, Pillow's
default for RGB) and stores the uint8 result: every row for small outputs, a few sampled
rows for the 1024x1024 ones, plus an FNV-1a 64 hash of the whole output. norm.bin holds the
(3, 256) table x = float32(v / 255.0); (x - mean) / std computed by numpy in float32.

Run from anywhere:  pip install pillow numpy && python3 tests/data/resize/make_golden.py
Made with Pillow 13.0 (same Resample.c arithmetic as 12.3, which the reference machine runs;
the coefficient formula changed in 12.3 from x / filterscale to x * (1 / filterscale), which
gives the same fixed-point weights for every case here).
"""
import os
import struct

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
M64 = (1 << 64) - 1

# name, in_w, in_h, out_w, out_h, pattern, seed, sampled rows (None: all rows)
CASES = [
    ("down_1920x1080_64x48", 1920, 1080, 64, 48, 0, 1, None),
    ("up_30x20_64x64", 30, 20, 64, 64, 0, 2, None),
    ("odd_37x23_101x67", 37, 23, 101, 67, 1, 3, None),
    ("mixed_333x101_50x160", 333, 101, 50, 160, 0, 4, None),
    ("prod_960x540_1024", 960, 540, 1024, 1024, 2, 5, [0, 1, 341, 682, 1022, 1023]),
    ("prod_1920x1080_1024", 1920, 1080, 1024, 1024, 2, 6, [0, 1, 341, 682, 1022, 1023]),
    ("prod_854x480_1024", 854, 480, 1024, 1024, 1, 7, [0, 1, 341, 682, 1022, 1023]),
]
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def noise(seed, idx):
    """splitmix64 of (seed << 32) + idx, top byte. idx: uint64 array."""
    z = (np.uint64(seed) << np.uint64(32)) + idx
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(56)).astype(np.int64)


def frame(w, h, pattern, seed):
    y, x, c = np.meshgrid(np.arange(h, dtype=np.int64), np.arange(w, dtype=np.int64),
                          np.arange(3, dtype=np.int64), indexing="ij")
    idx = ((y * w + x) * 3 + c).astype(np.uint64)
    if pattern == 0:  # noise: every overshoot and clip path
        v = noise(seed, idx)
    elif pattern == 1:  # sawtooth: smooth ramps with sharp 255 -> 0 edges
        v = (x * 5 + y * 3 + c * 85 + ((x * y) >> 5)) & 255
    else:  # gradient plus small noise, like a photo
        g = (x * 255 // max(w - 1, 1) + y * 255 // max(h - 1, 1) + c * 40) // 2
        v = np.clip(g + (noise(seed, idx) & 31) - 16, 0, 255)
    return v.astype(np.uint8)


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:  # pure Python is fine at these sizes
        h = ((h ^ b) * 0x100000001B3) & M64
    return h


def main():
    import PIL
    for name, iw, ih, ow, oh, pattern, seed, rows in CASES:
        img = Image.fromarray(frame(iw, ih, pattern, seed), "RGB")
        out = np.asarray(img.resize((ow, oh)))  # default filter for RGB: BICUBIC
        assert out.shape == (oh, ow, 3)
        rows = list(range(oh)) if rows is None else rows
        with open(os.path.join(HERE, name + ".bin"), "wb") as f:
            f.write(b"RSZ1")
            f.write(struct.pack("<7i", iw, ih, ow, oh, pattern, seed, len(rows)))
            f.write(struct.pack("<Q", fnv1a64(out.tobytes())))
            f.write(struct.pack("<%di" % len(rows), *rows))
            for r in rows:
                f.write(out[r].tobytes())
        print("%-24s %4dx%-4d -> %4dx%-4d rows %d" % (name, iw, ih, ow, oh, len(rows)))
    x = (np.arange(256) / 255.0).astype(np.float32)
    table = np.stack([(x - np.float32(m)) / np.float32(s) for m, s in zip(MEAN, STD)])
    with open(os.path.join(HERE, "norm.bin"), "wb") as f:
        f.write(b"NRM1")
        f.write(struct.pack("<3f", *MEAN))
        f.write(struct.pack("<3f", *STD))
        f.write(table.astype("<f4").tobytes())
    print("norm.bin (3, 256); Pillow", PIL.__version__, "numpy", np.__version__)


if __name__ == "__main__":
    main()

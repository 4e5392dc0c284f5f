#!/usr/bin/env python3
"""Regenerates tests/data/images: ok/ (JPEGs whose Pillow-decoded pixels test_image_io.c
checks by hash) and bad/ (the malformed-image corpus every decoder entry point must refuse
with a status). Needs Pillow and numpy for ok/ and cmyk.jpg; the rest is the standard library.

    python3 tests/data/images/make_images.py   # then update the hashes printed for ok/
"""
import os, random, struct, zlib

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
OK, BAD = os.path.join(HERE, "ok"), os.path.join(HERE, "bad")


def fnv1a64(b):
    h = 0xCBF29CE484222325
    for c in b:
        h = ((h ^ c) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def chunk(kind, data, crc_xor=0):
    crc = zlib.crc32(kind + data) ^ crc_xor
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc & 0xFFFFFFFF)


def png(w, h, depth=8, ctype=0, idat=None, plte=None, iend=True, crc_bad=b""):
    ihdr = struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 0)
    if idat is None:
        idat = zlib.compress(b"".join(b"\x00" + bytes(w) for _ in range(h)))
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr, 1 if crc_bad == b"IHDR" else 0)
    if plte is not None:
        out += chunk(b"PLTE", plte)
    out += chunk(b"IDAT", idat, 1 if crc_bad == b"IDAT" else 0)
    return out + (chunk(b"IEND", b"") if iend else b"")


def write(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OK, exist_ok=True)
    os.makedirs(BAD, exist_ok=True)
    H, W = 13, 17
    y, x = np.mgrid[0:H, 0:W]
    rgb = np.stack([(x * 15) % 256, (y * 19 + x * 3) % 256, ((x ^ y) * 37) % 256], -1).astype(np.uint8)
    rgb[4:9, 5:12] = [250, 20, 30]
    Image.fromarray(rgb).save(os.path.join(OK, "q90_420.jpg"), quality=90, subsampling=2)
    Image.fromarray(rgb).save(os.path.join(OK, "q85_422_prog.jpg"), quality=85, subsampling=1, progressive=True)
    Image.fromarray(rgb[:, :, 1]).save(os.path.join(OK, "gray.jpg"), quality=90)
    for n in sorted(os.listdir(OK)):
        a = np.array(Image.open(os.path.join(OK, n)).convert("RGB"))
        print(f"{n}: {a.shape[1]}x{a.shape[0]} fnv1a64 0x{fnv1a64(a.tobytes()):016x}")

    good = open(os.path.join(OK, "q90_420.jpg"), "rb").read()
    rnd = random.Random(7)
    write(BAD, "truncated.jpg", good[: len(good) * 6 // 10])
    write(BAD, "header_only.jpg", good[:20])
    write(BAD, "soi_only.jpg", b"\xff\xd8\xff")
    write(BAD, "no_image.jpg", b"\xff\xd8\xff\xd9")
    write(BAD, "garbage.jpg", b"\xff\xd8\xff\xe0" + bytes(rnd.randrange(256) for _ in range(300)))
    sof = good.find(b"\xff\xc0")
    write(BAD, "huge_dims.jpg", good[: sof + 5] + struct.pack(">HH", 65000, 65000) + good[sof + 9 :])
    dht = good.find(b"\xff\xc4")  # 16 code counts of 255: a Huffman table libjpeg refuses
    write(BAD, "bad_huffman.jpg", good[: dht + 5] + b"\xff" * 16 + good[dht + 21 :])
    Image.new("CMYK", (8, 8), (10, 20, 30, 40)).save(os.path.join(BAD, "cmyk.jpg"))
    write(BAD, "garbage.bin", bytes(rnd.randrange(256) for _ in range(256)))
    write(BAD, "empty.png", b"")
    write(BAD, "signature_only.png", b"\x89PNG\r\n\x1a\n")
    full = png(8, 8)
    write(BAD, "bad_crc_idat.png", png(8, 8, crc_bad=b"IDAT"))
    write(BAD, "bad_crc_ihdr.png", png(8, 8, crc_bad=b"IHDR"))
    write(BAD, "truncated.png", full[: len(full) - 20])
    write(BAD, "no_iend.png", png(8, 8, iend=False))
    write(BAD, "huge_dims.png", png(100000, 100000, idat=zlib.compress(b"\x00" * 64)))
    write(BAD, "bad_depth.png", png(8, 8, depth=3))
    write(BAD, "palette_no_plte.png", png(8, 8, ctype=3))
    write(BAD, "zlib_garbage.png", png(8, 8, idat=b"\x78\x9c" + bytes(rnd.randrange(256) for _ in range(40))))
    write(BAD, "short_idat.png", png(8, 8, idat=zlib.compress(b"\x00" * 20)))


if __name__ == "__main__":
    main()

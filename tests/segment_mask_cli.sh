#!/bin/sh
# segment_mask_cli.sh - `samrt segment --mask` end to end on the CPU backend (the seeded SAM 2.1
# tiny checkpoint of python_ckpt, 64-pixel model side): a click, then the same click with the
# first run's output PNG as mask prompt (the 16x16 mask-input logits are reported), two objects
# with the mask on the second only; refusals with exit 2 and the reason: a mask without a
# click or box, two masks for one object, a missing file, a file that is not a PNG, a mask of
# another size, a palette PNG of two objects.
#   segment_mask_cli.sh SAMRT PYTHON_CKPT SOURCE_DIR WORK_DIR
set -u
S=$1 CKW=$2 SRC=$3 W=$4
IMG=$SRC/tests/data/images/ok/q90_420.jpg
CPU="--imgsz 64 --platform cpu --precision fp32"
fails=0
rm -rf "$W" && mkdir -p "$W"

. "$SRC/tests/cli_expect.sh"  # expect CODE PATTERN CMD...

"$CKW" "$W/tiny.safetensors" sam2.1_tiny f32 || { echo "segment_mask_cli: cannot write the checkpoint"; exit 1; }
CK=$W/tiny.safetensors
expect 0 "object 1: score" "$S" segment --weights "$CK" --image "$IMG" --point 8,6 --out "$W/a.png" $CPU
expect 0 "object 1: mask prompt $W/a.png, [0-9]* px set -> 16x16 mask-input logits" "$S" segment --weights "$CK" \
  --image "$IMG" --point 8,6 --mask "$W/a.png" --out "$W/b.png" $CPU
grep -q "object 1: score" "$W/out.txt" || { echo "FAIL: no result line with --mask"; fails=$((fails + 1)); }
[ -f "$W/b.png" ] || { echo "FAIL: --mask wrote no mask"; fails=$((fails + 1)); }
expect 0 "object 2: mask prompt" "$S" segment --weights "$CK" --image "$IMG" --point 8,6 --object --box 1,1,12,10 \
  --mask "$W/a.png" --out "$W/c.png" $CPU
grep -q "object 1: mask prompt" "$W/out.txt" && { echo "FAIL: object 1 has no mask"; fails=$((fails + 1)); }
expect 2 "a mask alone is not supported" "$S" segment --weights "$CK" --image "$IMG" --mask "$W/a.png" --out "$W/x.png"
expect 2 "one PNG per object" "$S" segment --weights "$CK" --image "$IMG" --point 8,6 --mask "$W/a.png" \
  --mask "$W/a.png" --out "$W/x.png"
expect 2 "nope.png" "$S" segment --weights "$CK" --image "$IMG" --point 8,6 --mask "$W/nope.png" --out "$W/x.png"
expect 2 "q90_420.jpg" "$S" segment --weights "$CK" --image "$IMG" --point 8,6 --mask "$IMG" --out "$W/x.png"
# a 5x4 gray PNG: not the image's size
python3 -c "import struct,sys,zlib
def ch(t,d): return struct.pack('>I',len(d))+t+d+struct.pack('>I',zlib.crc32(t+d))
raw=b''.join(b'\\0'+bytes([255]*5) for _ in range(4))
sys.stdout.buffer.write(b'\\x89PNG\\r\\n\\x1a\\n'+ch(b'IHDR',struct.pack('>IIBBBBB',5,4,8,0,0,0,0))+ch(b'IDAT',zlib.compress(raw))+ch(b'IEND',b''))" \
  >"$W/small.png" || { echo "segment_mask_cli: cannot write a PNG"; exit 1; }
expect 2 "small.png is 5x4, the image is 17x13" "$S" segment --weights "$CK" --image "$IMG" --point 8,6 \
  --mask "$W/small.png" --out "$W/x.png" $CPU
# a palette PNG of two objects: one object per mask PNG (the SA-V rule of samrt track --mask)
"$S" segment --weights "$CK" --image "$IMG" --point 8,6 --object --point 3,3 --out "$W/pal.png" $CPU >/dev/null 2>&1
expect 2 "more than 1 object" "$S" segment --weights "$CK" --image "$IMG" --point 8,6 --mask "$W/pal.png" \
  --out "$W/x.png" $CPU
[ "$fails" -eq 0 ] && echo "segment_mask_cli: all checks passed" || echo "segment_mask_cli: $fails checks FAILED"
exit $fails

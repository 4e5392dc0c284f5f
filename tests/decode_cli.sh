#!/bin/sh
# decode_cli.sh - a corrupt or truncated JPEG in a folder, end to end, on the CPU backend with
# the demo's random-weight EdgeTAM checkpoint (test_samrt_demo writes it): `samrt track
# --frames` over synthetic frames (samrt synth) whose frame 3 is cut in half (3 decode
# threads), then replaced by a JPEG whose Huffman table libjpeg refuses (the corpus'
# bad_huffman.jpg, 1 thread), names the file and the frame, writes the masks of frames 0..2
# (three non-empty files equal to a run that stops before frame 3, none for frame 3) and exits 2.
#   decode_cli.sh SAMRT SOURCE_DIR WORK_DIR CHECKPOINT
set -u
S=$1 SRC=$2 W=$3 CK=$4
CPU="--imgsz 256 --platform cpu --precision fp32"
fails=0
rm -rf "$W" && mkdir -p "$W"

. "$SRC/tests/cli_expect.sh"  # expect CODE PATTERN CMD...

[ -f "$CK" ] || { echo "decode_cli: SKIPPED: no checkpoint $CK (test_samrt_demo writes it)"; exit 77; }
"$S" synth --out "$W/ds" --videos 1 --frames 6 --objects 1 --width 128 --height 96 >/dev/null 2>&1 ||
  { echo "FAIL: samrt synth"; exit 1; }
F=$W/frames
cp -r "$W/ds/JPEGImages_24fps/synth_000" "$F"
expect 0 "tracked 3 frames" "$S" track --weights "$CK" --frames "$F" --max-frames 3 --point 60,40 --out "$W/good" \
  --decode-threads 3 $CPU

# frame 3 cut in half; then a Huffman table libjpeg refuses
size=$(wc -c <"$F/00003.jpg")
head -c $((size / 2)) "$F/00003.jpg" >"$W/cut.jpg" && mv "$W/cut.jpg" "$F/00003.jpg"

for case in "truncated 3" "huffman 1"; do
  set -- $case
  [ "$1" = huffman ] && cp "$SRC/tests/data/images/bad/bad_huffman.jpg" "$F/00003.jpg"
  O=$W/out_$1
  expect 2 "cannot decode frame 3 (.*00003.jpg)\|cannot read frame 3 (.*00003.jpg)" "$S" track --weights "$CK" \
    --frames "$F" --point 60,40 --out "$O" --decode-threads "$2" $CPU
  grep "error" "$W/out.txt"
  for t in 00000 00001 00002; do
    [ -s "$O/001/$t.png" ] && cmp -s "$W/good/001/$t.png" "$O/001/$t.png" ||
      { echo "FAIL: $1: mask $t missing, empty or different"; fails=$((fails + 1)); }
  done
  n=$(ls "$O/001" | wc -l)
  [ "$n" -eq 3 ] || { echo "FAIL: $1: $n masks, want 3 (frames 0..2, none for the bad frame)"; fails=$((fails + 1)); }

done
echo "decode_cli: $fails failure(s)"
[ "$fails" -eq 0 ]

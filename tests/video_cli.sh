#!/bin/sh
# video_cli.sh - the video options of the samrt program end to end, on the CPU backend with
# the demo's random-weight EdgeTAM checkpoint (test_samrt_demo writes it): malformed videos of
# the corpus, a missing camera and a start past the end give exit 2 with a clear message (files
# cut in their data, with the masks before the cut: bad_input_cli.sh); `samrt track
# --video` writes masks, overlay PNGs and an overlay video that samrt's own reader decodes
# back (segment --video, report --thumbs, and a start past its last frame); `samrt bench
# --video` writes its profile. In a build without FFmpeg it checks that --video is refused
# with exit 4 and the reason instead.
#   video_cli.sh SAMRT SOURCE_DIR WORK_DIR CHECKPOINT
set -u
S=$1 SRC=$2 W=$3 CK=$4
CLIP=$SRC/data/bedroom_40.mp4 BAD=$SRC/tests/data/video/bad
CPU="--imgsz 256 --platform cpu --precision fp32"
fails=0
rm -rf "$W" && mkdir -p "$W"

. "$SRC/tests/cli_expect.sh"  # expect CODE PATTERN CMD...

[ -f "$CK" ] || { echo "video_cli: SKIPPED: no checkpoint $CK (test_samrt_demo writes it)"; exit 77; }
if ! "$S" check 2>/dev/null | grep -q "FFmpeg (video)"; then
  expect 4 "not in this build" "$S" track --weights "$CK" --video "$CLIP" --point 1,1 --out "$W/x"
  expect 4 "not in this build" "$S" bench --video "$CLIP" --point 1,1 --models edgetam --out_dir "$W/b"
  echo "video_cli: FFmpeg absent: checked that --video is refused (exit 4)"
  exit $fails
fi

expect 2 "not a video FFmpeg can read" "$S" track --weights "$CK" --video "$BAD/garbage.mp4" --point 1,1 --out "$W/x"
expect 2 "no video stream" "$S" track --weights "$CK" --video "$BAD/audio_only.wav" --point 1,1 --out "$W/x"
expect 2 "cut off" "$S" track --weights "$CK" --video "$BAD/truncated_half.mp4" --point 1,1 --out "$W/x" $CPU
expect 2 "avi_header_oom.avi: not a video FFmpeg can read" "$S" track --weights "$CK" \
  --video "$BAD/avi_header_oom.avi" --point 1,1 --out "$W/x"
expect 2 "cannot open" "$S" track --weights "$CK" --video /dev/video99 --point 1,1 --out "$W/x"
expect 2 "past the last frame" "$S" track --weights "$CK" --video "$CLIP" --start 40 --point 1,1 --out "$W/x"
expect 2 "not a video FFmpeg can read" "$S" segment --weights "$CK" --video "$BAD/text.mp4" --point 1,1 --out "$W/x.png"
expect 2 "not a video FFmpeg can read" "$S" bench --video "$BAD/empty.mp4" --point 1,1 --models edgetam \
  --weights_dir "$(dirname "$CK")" --out_dir "$W/b"

expect 0 "overlay video: $W/over.mp4" "$S" track --weights "$CK" --video "$CLIP" --start 5 --max-frames 2 \
  --point 210,350 --obj 2 --point 400,150 $CPU --out "$W/masks" --overlay-dir "$W/over" \
  --overlay-video "$W/over.mp4" --timing
for f in masks/001/00005.png masks/002/00006.png over/00005.png over/00006.png over.mp4; do
  [ -f "$W/$f" ] || { echo "FAIL: $W/$f missing"; fails=$((fails + 1)); }
done
# the overlay video decodes back: two frames, no third
expect 0 "object 1: score" "$S" segment --weights "$CK" --video "$W/over.mp4" --start 1 --point 100,100 $CPU \
  --out "$W/seg.png"
expect 2 "past the last frame (2 frames)" "$S" segment --weights "$CK" --video "$W/over.mp4" --start 2 \
  --point 100,100 --out "$W/seg.png"

expect 0 "decoding keeps up\|decode-bound" "$S" bench --video "$CLIP" --max-frames 1 --point 210,350 --object \
  --point 400,150 --models edgetam --weights_dir "$(dirname "$CK")" --out_dir "$W/bench" --warmup 0 $CPU
[ "$(wc -l <"$W/bench/profile_summary.csv")" -eq 3 ] || { echo "FAIL: bench rows"; fails=$((fails + 1)); }
expect 0 "report written" "$S" report "$W/bench/profile_summary.csv" -o "$W/r.html" --thumbs "$W/over.mp4"
grep -q "frame 1</figcaption>" "$W/r.html" || { echo "FAIL: no thumbnail of frame 1 in the report"; fails=$((fails + 1)); }
echo "video_cli: $fails failure(s)"
[ "$fails" -eq 0 ]

#!/bin/sh
# bad_input_cli.sh - bad video input through `samrt track`, end to end on the CPU backend with
# the demo's random-weight EdgeTAM checkpoint (test_samrt_demo writes it). The inputs are made
# here: bad_clip writes 8 noisy 64x48 frames (each about the same bytes) as mp4, mkv and webm,
# which are cut to 45% of their bytes; a Matroska file whose codec no FFmpeg decodes; and a
# named pipe that stops in the middle of a clip, as a camera that is unplugged. Each case must
# give its exit code and a message naming the file and the frame, and leave the masks of every
# frame before the bad one (count, and each a non-empty PNG), none after. Skips (77) with the
# reason without the checkpoint or without FFmpeg in the build.
#   bad_input_cli.sh SAMRT BAD_CLIP WORK_DIR CHECKPOINT
set -u
S=$1 CLIP=$2 W=$3 CK=$4
CPU="--imgsz 256 --platform cpu --precision fp32"
fails=0 writer=
rm -rf "$W" && mkdir -p "$W"
trap '[ -n "$writer" ] && kill "$writer" 2>/dev/null' EXIT

. "$(dirname "$0")/cli_expect.sh"  # expect CODE PATTERN CMD...

[ -f "$CK" ] || { echo "bad_input_cli: SKIPPED: no checkpoint $CK (test_samrt_demo writes it)"; exit 77; }
"$S" check 2>/dev/null | grep -q "FFmpeg (video)" ||
  { echo "bad_input_cli: SKIPPED: this build has no FFmpeg (SAMRT_VIDEO, docs/video.md)"; exit 77; }

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# masks NAME OUT N: exactly N masks of object 1, frames 0..N-1, each a non-empty file
masks() {
  got=$(ls "$2/001" 2>/dev/null | wc -l)
  [ "$got" -eq "$3" ] || fail "$1: $got mask files, want $3 (the frames before the bad one)"
  i=0
  while [ "$i" -lt "$3" ]; do
    f=$2/001/$(printf %05d "$i").png
    [ -s "$f" ] || fail "$1: $f missing or empty"
    i=$((i + 1))
  done
  echo "ok: $1: $got masks, frames 0..$(($3 - 1)), none empty"
}

# the number in "after frame K" / "at frame K" of the last run's output
frame_of() { sed -n "s/.*$1 \([0-9][0-9]*\).*/\1/p" "$W/out.txt" | head -n 1; }

# mp4 / mkv / webm cut to 45% of their bytes: "cut off", exit 2, the masks of frames 0..K
for ext in mp4 mkv webm; do
  enc=; [ "$ext" = webm ] && enc=libvpx
  SAMRT_VIDEO_ENCODER=$enc "$CLIP" write "$W/clip.$ext" 8 64 48 >"$W/clip.txt" 2>&1; rc=$?
  [ $rc -eq 77 ] && { echo "skipped: $ext: $(cat "$W/clip.txt")"; continue; }
  [ $rc -eq 0 ] || { fail "bad_clip write clip.$ext: $(cat "$W/clip.txt")"; continue; }
  size=$(wc -c <"$W/clip.$ext")
  head -c $((size * 45 / 100)) "$W/clip.$ext" >"$W/cut.$ext"
  expect 2 "cut.$ext: cut off: the file ends after frame [0-9]" "$S" track --weights "$CK" --video "$W/cut.$ext" \
    --point 30,20 --out "$W/m_$ext" $CPU
  grep "error" "$W/out.txt"
  k=$(frame_of "after frame")
  [ -n "$k" ] && masks "cut $ext" "$W/m_$ext" $((k + 1))
done

# a stream whose codec no FFmpeg decodes: exit 4 before any frame, no mask
if [ -f "$W/clip.mkv" ] && "$CLIP" unknown-codec "$W/clip.mkv" "$W/codec.mkv" >/dev/null; then
  expect 4 "codec.mkv: this FFmpeg has no decoder for its video stream (codec none)" "$S" track --weights "$CK" \
    --video "$W/codec.mkv" --point 30,20 --out "$W/m_codec" $CPU
  grep "error" "$W/out.txt"
  [ -e "$W/m_codec/001" ] && fail "unknown codec: masks written"
fi

# a camera that disappears: a named pipe read as a live source, its writer gone after 40% of a
# clip: "the pipe stopped sending at frame N", exit 2, the masks of frames 0..N-1
if [ -f "$W/clip.mkv" ] && mkfifo "$W/cam.fifo" 2>/dev/null; then
  size=$(wc -c <"$W/clip.mkv")
  head -c $((size * 40 / 100)) "$W/clip.mkv" >"$W/cam.fifo" &
  writer=$!
  expect 2 "cam.fifo: the pipe stopped sending at frame [1-9][0-9]*, after [0-9]* good frame" "$S" track \
    --weights "$CK" --video "$W/cam.fifo" --point 30,20 --out "$W/m_cam" $CPU
  grep "error" "$W/out.txt"
  n=$(frame_of "at frame")
  [ -n "$n" ] && masks "pipe" "$W/m_cam" "$n"
  kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null; writer=  # a writer nobody read from
else
  echo "skipped: the camera case (no mkv clip, or mkfifo failed)"
fi
echo "bad_input_cli: $fails failure(s)"
[ "$fails" -eq 0 ]

#!/bin/sh
# ffv1_track.sh - `samrt track --video` and `samrt track --frames` see the same pixels and give
# the same masks, bit for bit: synthesizes a few JPEG frames (`samrt synth`), has ffv1_clip
# encode their decoded RGB losslessly (FFV1 in Matroska) and check that samrt's reader gives it
# back exactly, then tracks two objects through both with the random-weight EdgeTAM checkpoint
# (test_samrt_demo writes it) on the CPU backend and compares every mask file. Skips (77) with
# the reason when the build has no FFmpeg or its FFmpeg no FFV1 encoder.
#   ffv1_track.sh SAMRT FFV1_CLIP WORK_DIR CHECKPOINT
set -u
S=$1 CLIPPER=$2 W=$3 CK=$4
CPU="--imgsz 256 --platform cpu --precision fp32"
rm -rf "$W" && mkdir -p "$W"
[ -f "$CK" ] || { echo "ffv1_track: SKIPPED: no checkpoint $CK (test_samrt_demo writes it)"; exit 77; }

"$S" synth --out "$W/synth" --videos 1 --frames 2 --objects 2 --width 320 --height 192 --seed 7 >"$W/synth.txt" 2>&1 ||
  { echo "FAIL: samrt synth"; exit 1; }
F=$(ls -d "$W/synth/JPEGImages_24fps"/*/ | head -n 1)
"$CLIPPER" "$F" "$W/clip.mkv"; rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "FAIL: ffv1_clip exit $rc"; exit 1; }

prompts="--point 100,90 --obj 2 --point 230,60"
"$S" track --weights "$CK" --frames "$F" $prompts $CPU --out "$W/m_frames" >"$W/frames.txt" 2>&1 ||
  { echo "FAIL: track --frames"; tail -5 "$W/frames.txt"; exit 1; }
"$S" track --weights "$CK" --video "$W/clip.mkv" $prompts $CPU --out "$W/m_video" >"$W/video.txt" 2>&1 ||
  { echo "FAIL: track --video"; tail -5 "$W/video.txt"; exit 1; }
n=$(find "$W/m_frames" -name '*.png' | wc -l)
[ "$n" -eq 4 ] || { echo "FAIL: $n mask files from --frames, want 4 (2 objects x 2 frames)"; exit 1; }
diff -r "$W/m_frames" "$W/m_video" || { echo "FAIL: the masks of --video and --frames differ"; exit 1; }
grep "^frame .* area" "$W/frames.txt" >"$W/frames.scores"
grep "^frame .* area" "$W/video.txt" >"$W/video.scores"
[ -s "$W/frames.scores" ] && cmp -s "$W/frames.scores" "$W/video.scores" ||
  { echo "FAIL: the scores and areas printed differ"; diff "$W/frames.scores" "$W/video.scores"; exit 1; }
cat "$W/video.scores"
echo "ffv1_track: $n masks of track --video clip.mkv (FFV1) identical to track --frames"

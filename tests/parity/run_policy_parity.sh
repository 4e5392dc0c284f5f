#!/usr/bin/env bash
# run_policy_parity.sh - the memory-selection policies against their official code: SAMURAI's
# tracker (github.com/yangchris11/samurai, its `sam2` package carried in .carry/samurairef, like
# .carry/sam2ref) and `samrt track --memory samurai` on the same seeded checkpoint (the gate
# forced open, as run_sam2_video_parity.sh makes it), compared frame by frame: the kept
# candidate mask (1..3) and the memory frames attended to (compare_decisions.py over
# policy_reference.py's JSON lines and samrt's SAMRT_TRACK_DECISIONS file). Two clips, one
# object each (SAMURAI's filter is one per model): the bedroom clip with the click 210,350,
# and a synthetic clip with occluders (`samrt synth --seed 1`; the box of object 001 on frame 0).
#   tests/parity/run_policy_parity.sh sam2.1_tiny 200           (GPU machine, build/gpu)
#   SAMRT=build/cpurel/tools/samrt DEVICE=cpu tests/parity/run_policy_parity.sh sam2.1_tiny 8
# Summary lines go to $OUT/policy_parity_summary.txt (OUT default parity-out). Exit 0 when every
# compared frame agrees. DAM4SAM has no samrt policy yet.
set -uo pipefail
model=${1:-sam2.1_tiny}; n=${2:-200}
final=${OUT:-parity-out}; mkdir -p "$final"; P=${PARITY_DIR:-build/parity}; mkdir -p "$P"
S=${SAMRT:-build/gpu/tools/samrt}; DEV=${DEVICE:-cuda}
PKG=${SAMURAI_PKG:-.carry/samurairef/sam2}; FRAMES_SRC=${FRAMES:-.carry/bedroom}
[ -d "$PKG/sam2" ] || { echo "no SAMURAI package in $PKG (git archive HEAD sam2 of yangchris11/samurai)"; exit 2; }
ck=$P/$model.gate.pt
if [ ! -f "$ck" ]; then  # the seeded weights with the gate open, as the video parity run saves them
  python3 tests/parity/dump_taps.py --device "$DEV" --model "$model" --gate-open --ckpt-out "$ck" --build-only \
    || { echo "cannot write $ck"; exit 3; }
fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bedroom"
ls "$FRAMES_SRC" | grep -iE '\.jpe?g$' | sort -n | head -$((n + 1)) | while read -r f; do
  ln -s "$(readlink -f "$FRAMES_SRC/$f")" "$work/bedroom/$f"; done
"$S" synth --out "$work/synth" --videos 1 --frames $((n + 1)) --objects 3 --seed 1 >/dev/null || exit 3
synth=$(ls -d "$work"/synth/JPEGImages_24fps/*/ | head -1)
ann=$(ls -d "$work"/synth/Annotations_6fps/*/001 | head -1)
box=$(python3 -c "import sys, numpy as np; from PIL import Image
m = np.array(Image.open(sys.argv[1])) > 0; ys, xs = np.nonzero(m)
print(f'{xs.min()},{ys.min()},{xs.max()},{ys.max()}')" "$ann/00000.png") || exit 3
summary="$final/policy_parity_summary.txt"; status=0
for clip in bedroom synth; do
  if [ $clip = bedroom ]; then dir=$work/bedroom; ref=(--click 210,350); s=(--point 210,350)
  else dir=$synth; ref=(--box "$box"); s=(--box "$box"); fi
  python3 tests/parity/policy_reference.py --pkg "$PKG" --model "$model" --ckpt "$ck" --device "$DEV" \
    --frames "$dir" "${ref[@]}" --out "$final/$clip.samurai.ref.jsonl" >>"$final/policy_parity.log" 2>&1 \
    || { echo "official SAMURAI run failed ($clip)"; tail -5 "$final/policy_parity.log"; exit 3; }
  SAMRT_TRACK_DECISIONS="$final/$clip.samurai.samrt.txt" "$S" track --weights "$ck" --frames "$dir" "${s[@]}" \
    --memory samurai --precision fp32 --out "$work/out_$clip" >>"$final/policy_parity.log" 2>&1 \
    || { echo "samrt track failed ($clip)"; tail -5 "$final/policy_parity.log"; exit 3; }
  python3 tests/parity/compare_decisions.py --samrt "$final/$clip.samurai.samrt.txt" \
    --ref "$final/$clip.samurai.ref.jsonl" --label "$model samurai $clip ($((n + 1)) frames)" | tee -a "$summary"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
exit $status

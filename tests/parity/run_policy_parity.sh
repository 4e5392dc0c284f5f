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
# Summary lines go to $OUT/policy_parity_summary.txt (OUT default parity-out). Both sides also
# run at LOWP (default bf16; "bf16 fp16" for both, the official side always bf16 autocast), and
# the masks are judged by compare_policy_masks.py: fp32 against the official fp32 run's, the low
# precision against it next to the official bf16 run's own IoU (docs/parity.md's bar). Exit 0
# when every compared frame agrees and every mask meets its bar.
#
# DAM4SAM (third argument dam4sam): its official tracker (github.com/jovanavidenovic/DAM4SAM,
# DAM4SAMTracker.initialize / track, driven by policy_reference.py --policy dam4sam) against
# `samrt track --memory dam4sam`, both prompted with the same frame-0 mask (DAM4SAM starts from a
# mask): bedroom, an ellipse around the click; synth, object 001's annotation. Both sides run the
# settings profile SET (default vos_inference; DAM4SAM's own build uses notebook, where the
# reference keeps its holes unfilled and samrt fills those of <= 8 pixels). Its snapshot, once:
#   fetch github:jovanavidenovic/DAM4SAM, then from its git directory
#   mkdir -p .carry/dam4samref && git --git-dir=<mirror> archive HEAD dam4sam_tracker.py \
#     dam4sam_config.yaml utils sam2 | tar -x -C .carry/dam4samref
#   tests/parity/run_policy_parity.sh sam2.1_tiny 200 dam4sam  (GPU machine: DAM4SAMTracker
#   allocates on "cuda"; vot, cv2 and torchvision are stood in for when missing)
set -uo pipefail
model=${1:-sam2.1_tiny}; n=${2:-200}; policy=${3:-samurai}; SET=${SET:-vos_inference}
final=${OUT:-parity-out}; mkdir -p "$final"; P=${PARITY_DIR:-build/parity}; mkdir -p "$P"
S=${SAMRT:-build/gpu/tools/samrt}; DEV=${DEVICE:-cuda}
FRAMES_SRC=${FRAMES:-.carry/bedroom}
case $policy in
  samurai) PKG=${SAMURAI_PKG:-.carry/samurairef/sam2}
    [ -d "$PKG/sam2" ] || { echo "no SAMURAI package in $PKG (git archive HEAD sam2 of yangchris11/samurai)"; exit 2; } ;;
  dam4sam) PKG=${DAM4SAM_PKG:-.carry/dam4samref}
    [ -f "$PKG/dam4sam_tracker.py" ] && [ -d "$PKG/sam2" ] \
      || { echo "no DAM4SAM snapshot in $PKG (see the header: git archive HEAD of jovanavidenovic/DAM4SAM)"; exit 2; } ;;
  *) echo "policy: samurai or dam4sam, not '$policy'"; exit 2 ;;
esac
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
python3 -c "import sys, numpy as np; from PIL import Image
w, h = Image.open(sys.argv[1]).size; y, x = np.mgrid[:h, :w]
m = ((x - 210) / 45.0) ** 2 + ((y - 350) / 70.0) ** 2 <= 1
Image.fromarray((m * 255).astype(np.uint8)).save(sys.argv[2])" "$(ls -d "$work"/bedroom/* | head -1)" "$work/bedroom_mask.png" \
  || exit 3
summary="$final/policy_parity_summary.txt"; status=0
for clip in bedroom synth; do
  if [ $policy = dam4sam ]; then
    mask=$work/bedroom_mask.png; [ $clip = synth ] && mask=$ann/00000.png
    dir=$work/bedroom; [ $clip = synth ] && dir=$synth
    ref=(--policy dam4sam --mask "$mask" --settings "$SET"); s=(--mask "$mask" --settings "$SET")
  elif [ $clip = bedroom ]; then dir=$work/bedroom; ref=(--click 210,350); s=(--point 210,350)
  else dir=$synth; ref=(--box "$box"); s=(--box "$box"); fi
  for p in fp32 bf16; do  # the official runs (fp32: the decisions' reference; bf16 autocast: the masks' baseline)
    o=(--masks-out "$work/ref_${clip}_$p"); [ $p = fp32 ] || o+=(--bf16)
    python3 tests/parity/policy_reference.py --pkg "$PKG" --model "$model" --ckpt "$ck" --device "$DEV" \
      --frames "$dir" "${ref[@]}" "${o[@]}" --out "$final/$clip.$policy.ref$([ $p = fp32 ] || echo _$p).jsonl" \
      >>"$final/policy_parity.log" 2>&1 && continue
    echo "official $policy $p run failed ($clip)"; tail -5 "$final/policy_parity.log"
    [ $p = fp32 ] && exit 3
    echo "$model $policy $clip: official bf16 run failed, no low-precision mask bar" | tee -a "$summary"; status=1
  done
  for p in fp32 ${LOWP:-bf16}; do
    SAMRT_TRACK_DECISIONS="$final/$clip.$policy.samrt$([ $p = fp32 ] || echo _$p).txt" "$S" track --weights "$ck" \
      --frames "$dir" "${s[@]}" --memory $policy --precision $p --out "$work/out_${clip}_$p" >>"$final/policy_parity.log" 2>&1 \
      || { echo "samrt track $p failed ($clip)"; tail -5 "$final/policy_parity.log"; exit 3; }
  done
  python3 tests/parity/compare_decisions.py --samrt "$final/$clip.$policy.samrt.txt" \
    --ref "$final/$clip.$policy.ref.jsonl" --label "$model $policy $clip ($((n + 1)) frames)" | tee -a "$summary"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  # the masks: fp32 against the official fp32 run; the low precision against it, next to the official bf16 run's
  python3 tests/parity/compare_policy_masks.py --ref "$work/ref_${clip}_fp32" --test "$work/out_${clip}_fp32/001" \
    --label "$model $policy $clip fp32 masks" | tee -a "$summary"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  for p in ${LOWP:-bf16}; do
    [ -d "$work/ref_${clip}_bf16" ] || continue
    python3 tests/parity/compare_policy_masks.py --ref "$work/ref_${clip}_fp32" --test "$work/out_${clip}_$p/001" \
      --base "$work/ref_${clip}_bf16" --label "$model $policy $clip $p masks" | tee -a "$summary"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
done
exit $status

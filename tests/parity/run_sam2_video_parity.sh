#!/usr/bin/env bash
# run_sam2_video_parity.sh - SAM 2.1 video tracking parity: the official video predictor
# (tests/parity/dump_taps.py --frames-to-track N: per-frame pred_masks, object_score_logits,
# obj_ptr, maskmem_features, video_res_masks) against `samrt track --dump-taps` on the same
# checkpoint, frames and click, compared tap by tap with compare_taps.py. Both see the same
# video (the first N+1 bedroom frames linked into one folder), so num_frames, and with it the
# pointer tpos normalisation min(num_frames, 16) - 1, agree.
#   tests/parity/run_sam2_video_parity.sh sam2.1_tiny 200 fp32        (GPU machine, build/gpu)
#   SAMRT=build/cpurel/tools/samrt DEVICE=cpu tests/parity/run_sam2_video_parity.sh sam2.1_tiny 3 fp32
# Precisions: fp32 (thresholds of the fp32 preset), bf16 (lowp preset against the official
# bf16 run, with the official fp32 run as reference). Summary lines go to $OUT/video_parity_summary.txt.
# SETTINGS=notebook runs both sides with the notebook post-processing (default vos_inference);
# then check_fill_holes.py also checks the hole filling when the official run could not fill
# (no sam2/_C extension). MASK=PNG prompts with that mask (add_new_mask) instead of the click.
set -uo pipefail
model=${1:-sam2.1_tiny}; n=${2:-200}; prec=${3:-fp32}
final=${OUT:-parity-out}; mkdir -p "$final"; P=build/parity; mkdir -p $P
S=${SAMRT:-build/gpu/tools/samrt}; DEV=${DEVICE:-cuda}
FRAMES_SRC=${FRAMES:-.carry/bedroom}; CLICK=210,350; SET=${SETTINGS:-vos_inference}
if [ -n "${MASK:-}" ]; then ref_prompt=(--prompt mask --mask-png "$MASK"); s_prompt=(--mask "$MASK")
else ref_prompt=(--click $CLICK); s_prompt=(--point $CLICK); fi
tag=$SET${MASK:+.mask}
frames=$(mktemp -d); trap 'rm -rf "$frames"' EXIT
ls "$FRAMES_SRC" | grep -iE '\.jpe?g$' | sort -n | head -$((n + 1)) | while read -r f; do
  ln -s "$(readlink -f "$FRAMES_SRC/$f")" "$frames/$f"; done
sub='frame.*.pred_masks,frame.*.obj_ptr,frame.*.object_score_logits,frame.*.maskmem_features,frame.*.video_res_masks,mem.pos_enc'
summary="$final/video_parity_summary.txt"
ck=$P/$model.gate.pt ref=$P/$model.video$n.$tag.ref32.st
python3 tests/parity/dump_taps.py --device "$DEV" --model "$model" --gate-open --precision fp32 --frames "$frames" \
  --frames-to-track "$n" "${ref_prompt[@]}" --settings "$SET" --ckpt-out "$ck" --taps-subset "$sub" \
  --max-mb 100000 --out "$ref" \
  >"$final/video_dump.log" 2>&1 || { echo "official dump failed"; tail -5 "$final/video_dump.log"; exit 3; }
t0=$(date +%s.%N)
$S track --weights "$ck" --frames "$frames" "${s_prompt[@]}" --settings "$SET" --precision "$prec" --out $P/track_$model \
  ${PLATFORM:+--platform $PLATFORM} --dump-taps $P/$model.video$n.$tag.s$prec.st >"$final/video_track.log" 2>&1 \
  || { echo "samrt track failed"; tail -5 "$final/video_track.log"; exit 3; }
echo "samrt track: $(echo "$(date +%s.%N) - $t0" | bc) s for $((n + 1)) frames" | tee -a "$summary"
args=()
if [ "$prec" != fp32 ]; then
  base=$P/$model.video$n.$tag.ref16.st
  python3 tests/parity/dump_taps.py --device "$DEV" --model "$model" --ckpt "$ck" --precision bf16 --frames "$frames" \
    --frames-to-track "$n" "${ref_prompt[@]}" --settings "$SET" --taps-subset "$sub" --max-mb 100000 --out "$base" \
    >>"$final/video_dump.log" 2>&1
  args=(--preset lowp --base "$base")
fi
python3 tests/parity/compare_taps.py "$ref" $P/$model.video$n.$tag.s$prec.st "${args[@]}" >"$final/video_parity_$model.$tag.$prec.txt" 2>&1
rc=$?
echo "$model.$tag.$prec.video$n rc=$rc $(tail -1 "$final/video_parity_$model.$tag.$prec.txt")" | tee -a "$summary"
# the first frame where a tap misses (the table lists taps in name order)
grep -E 'FAIL' "$final/video_parity_$model.$tag.$prec.txt" | head -5 | tee -a "$summary"
if [ "$SET" = notebook ] && [ "$prec" = fp32 ]; then
  python3 tests/parity/check_fill_holes.py "$ref" $P/$model.video$n.$tag.s$prec.st >"$final/video_fill_$model.$tag.txt" 2>&1
  echo "$model.$tag.$prec.video$n fill check rc=$? $(tail -1 "$final/video_fill_$model.$tag.txt")" | tee -a "$summary"
fi
exit $rc

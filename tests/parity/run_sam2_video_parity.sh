#!/usr/bin/env bash
# run_sam2_video_parity.sh - SAM 2.1 / EdgeTAM video tracking parity: the official video
# predictor (tests/parity/dump_taps.py --frames-to-track N: per-frame pred_masks,
# object_score_logits, obj_ptr, maskmem_features, video_res_masks of every object) against
# `samrt track --dump-taps` on the same checkpoint, frames and prompts, compared tap by tap and
# object by object with compare_taps.py. Both see the same video (the first N+1 bedroom frames
# linked into one folder), so num_frames, and with it the pointer tpos normalisation
# min(num_frames, 16) - 1, agree.
#   tests/parity/run_sam2_video_parity.sh sam2.1_tiny 200 fp32,bf16   (GPU machine, build/gpu)
#   SAMRT=build/cpurel/tools/samrt DEVICE=cpu PROMPT=two tests/parity/run_sam2_video_parity.sh sam2.1_tiny 3 fp32
# PROMPT (docs/parity.md):
#   click  object 1: a click on frame 0 (default)
#   box    object 1: a box on frame 0
#   two    object 1: the click, object 2: another click, both on frame 0
#   later  object 1: the click on frame 0; object 2: another click on frame LATER_AT (default 30,
#          1 below 60 frames). Its reference is a SEPARATE official run of object 2 alone over
#          frames LATER_AT..N (dump_taps.py --start-frame, taps renamed to samrt's
#          obj2.frame.<t>; with --whole-video when that clip is shorter than 16 frames); object
#          1's is the official run of object 1 alone. SAM 2.1 only: the official EdgeTAM
#          predictor refuses objects added after tracking started.
# Precisions: fp32 (thresholds of the fp32 preset), bf16 or fp16 (lowp preset against the
# official bf16 run, with the official fp32 run as reference); a comma list (fp32,bf16,fp16)
# runs samrt once per precision against the same official references; a low precision also
# writes the official bf16 run's own per-tap report (official_bf16.*.curves). ANALYZE=1 adds
# lowp_mask_gap.py for each low precision (one object): logits or their upsampling, and
# lowp_error_structure.py: bias or noise. Summary lines (one per object) go to
# $OUT/video_parity_summary.txt. SETTINGS=notebook runs both sides with the notebook
# post-processing (default vos_inference); TAPS_EXTRA adds official taps (frame.*.memattn.out, and samrt
# track --dump-memattn); then check_fill_holes.py also checks the hole
# filling of object 1 when the official run could not fill (no sam2/_C extension). MASK=PNG
# prompts object 1 with that mask (add_new_mask) instead of its click or box. PARITY_DIR
# (default build/parity) holds the checkpoint and tap files, one per concurrent run.
set -uo pipefail
model=${1:-sam2.1_tiny}; n=${2:-200}; precs=${3:-fp32}
final=${OUT:-parity-out}; mkdir -p "$final"; P=${PARITY_DIR:-build/parity}; mkdir -p "$P"
S=${SAMRT:-build/gpu/tools/samrt}; DEV=${DEVICE:-cuda}
FRAMES_SRC=${FRAMES:-.carry/bedroom}; SET=${SETTINGS:-vos_inference}; PROMPT=${PROMPT:-click}
CLICK=210,350; BOX=130,250,330,470; CLICK2=600,250
F=${LATER_AT:-$([ "$n" -ge 60 ] && echo 30 || echo 1)}
case $PROMPT in
  click) ref1=(--click $CLICK); s1=(--point $CLICK) ;;
  box) ref1=(--prompt box --box $BOX); s1=(--box $BOX) ;;
  two) ref1=(--click $CLICK --add 2:click:$CLICK2); s1=(--point $CLICK --obj 2 --point $CLICK2) ;;
  later)
    [ "$model" = edgetam ] && { echo "PROMPT=later: the official EdgeTAM predictor cannot add an object after tracking started"; exit 2; }
    [ "$F" -ge 1 ] && [ "$F" -le "$n" ] || { echo "LATER_AT=$F must be in 1..$n"; exit 2; }
    # below 16 frames the pointer normaliser min(num_frames, 16) - 1 would differ from samrt's
    # (the whole video): then object 2's official run keeps the whole video and starts at F
    clip=(); [ $((n + 1 - F)) -lt 16 ] && clip=(--whole-video)
    ref1=(--click $CLICK); s1=(--point $CLICK --obj 2 --at "$F" --point $CLICK2) ;;
  *) echo "PROMPT must be click, box, two or later"; exit 2 ;;
esac
if [ -n "${MASK:-}" ]; then  # object 1's prompt becomes the mask
  ref1=(--prompt mask --mask-png "$MASK" "${ref1[@]:2}"); s1=(--mask "$MASK" "${s1[@]:2}"); fi
tag=$SET.$PROMPT${MASK:+.mask}; name=$model.video$n.$tag
frames=$(mktemp -d); trap 'rm -rf "$frames"' EXIT
ls "$FRAMES_SRC" | grep -iE '\.jpe?g$' | sort -n | head -$((n + 1)) | while read -r f; do
  ln -s "$(readlink -f "$FRAMES_SRC/$f")" "$frames/$f"; done
sub='frame.*.pred_masks,frame.*.obj_ptr,frame.*.object_score_logits,frame.*.maskmem_features,frame.*.video_res_masks,mem.pos_enc'
sub+=${TAPS_EXTRA:+,$TAPS_EXTRA}  # e.g. frame.*.memattn.out (4 MiB per frame and object in fp32)
summary="$final/video_parity_summary.txt"
ck=$P/$model.gate.pt
# official RUN PREC OUT ARGS...: one official run (RUN names the log line); the first fp32 run writes the checkpoint
official() {
  local run=$1 p=$2 out=$3; shift 3
  local w=(--ckpt "$ck"); [ "$p" = fp32 ] && [ "$run" = main ] && w=(--gate-open --ckpt-out "$ck")
  echo "+ official $run $p" >>"$final/video_dump.log"
  python3 tests/parity/dump_taps.py --device "$DEV" --model "$model" "${w[@]}" --precision "$p" --frames "$frames" \
    --settings "$SET" --taps-subset "$sub" --max-mb 100000 --out "$out" "$@" >>"$final/video_dump.log" 2>&1 \
    || { echo "official dump failed ($run $p)"; tail -5 "$final/video_dump.log"; exit 3; }
}
: >"$final/video_dump.log"
# per object: the reference file and the names compared (object 1: frame.*, others: obj<id>.frame.*)
objs=(obj1); refs=($P/$name.ref32.st); only=('frame.**,mem.**')
official main fp32 "${refs[0]}" --frames-to-track "$n" "${ref1[@]}"
case $PROMPT in
  two) objs+=(obj2); refs+=("${refs[0]}"); only+=('obj2.frame.**') ;;
  later)
    objs+=(obj2); refs+=($P/$name.obj2.ref32.st); only+=('obj2.frame.**')
    official obj2 fp32 "${refs[1]}" --frames-to-track $((n - F)) --start-frame "$F" "${clip[@]}" --tap-prefix obj2. --click $CLICK2 ;;
esac
bases=("" "")
if [ "$precs" != fp32 ]; then  # a low precision is judged against the official bf16 run's gap
  bases[0]=$P/$name.ref16.st
  official main bf16 "${bases[0]}" --frames-to-track "$n" "${ref1[@]}"
  case $PROMPT in
    two) bases[1]=${bases[0]} ;;
    later) bases[1]=$P/$name.obj2.ref16.st
      official obj2 bf16 "${bases[1]}" --frames-to-track $((n - F)) --start-frame "$F" "${clip[@]}" --tap-prefix obj2. --click $CLICK2 ;;
  esac
  # the official bf16 run's own error per tap and frame: the yardstick for samrt's curves
  for i in "${!objs[@]}"; do
    report="$final/video_parity_$model.$tag.official_bf16.${objs[$i]}.txt"
    python3 tests/parity/compare_taps.py "${refs[$i]}" "${bases[$i]}" --only "${only[$i]}" --preset lowp --no-threshold \
      >"$report" 2>&1
    python3 tests/parity/summarize_video.py "$report" >"${report%.txt}.curves" 2>&1
  done
fi
rc=0
for prec in ${precs//,/ }; do
  t0=$(date +%s%N)
  test=$P/$name.s$prec.st
  $S track --weights "$ck" --frames "$frames" "${s1[@]}" --settings "$SET" --precision "$prec" --out $P/track_$model \
    ${PLATFORM:+--platform $PLATFORM} --dump-taps "$test" ${TAPS_EXTRA:+--dump-memattn} >"$final/video_track.log" 2>&1 \
    || { echo "samrt track failed ($prec)"; tail -5 "$final/video_track.log"; exit 3; }
  echo "samrt track $prec: $(( ($(date +%s%N) - t0) / 1000000 )) ms for $((n + 1)) frames, prompt $PROMPT" | tee -a "$summary"
  for i in "${!objs[@]}"; do
    o=${objs[$i]} report="$final/video_parity_$model.$tag.$prec.${objs[$i]}.txt"
    args=(--only "${only[$i]}"); [ "$prec" != fp32 ] && args+=(--preset lowp --base "${bases[$i]}")
    python3 tests/parity/compare_taps.py "${refs[$i]}" "$test" "${args[@]}" >"$report" 2>&1
    r=$?; [ $r -gt $rc ] && rc=$r
    echo "$model.$tag.$prec.video$n $o rc=$r $(tail -1 "$report")" | tee -a "$summary"
    # the first frames where a tap misses (the table lists taps in name order)
    grep -E 'FAIL' "$report" | head -5 | tee -a "$summary"
    python3 tests/parity/summarize_video.py "$report" >"${report%.txt}.curves" 2>&1
  done
  # low precision: where the mask error comes from (logits or their upsampling), per frame
  [ "$prec" != fp32 ] && [ -n "${ANALYZE:-}" ] && [ "${#objs[@]}" = 1 ] && python3 tests/parity/lowp_mask_gap.py "${refs[0]}" "${bases[0]}" "$test" \
    >"$final/video_gap_$model.$tag.$prec.txt" 2>&1 && tail -12 "$final/video_gap_$model.$tag.$prec.txt" | tee -a "$summary"
  # and whether its logit error is a bias or noise (lowp_error_structure.py)
  [ "$prec" != fp32 ] && [ -n "${ANALYZE:-}" ] && [ "${#objs[@]}" = 1 ] && python3 tests/parity/lowp_error_structure.py \
    "${refs[0]}" "${bases[0]}" "$test" >"$final/video_errstruct_$model.$tag.$prec.txt" 2>&1 \
    && cat "$final/video_errstruct_$model.$tag.$prec.txt" | tee -a "$summary"
done
if [ "$SET" = notebook ] && [ "${precs%%,*}" = fp32 ]; then
  test=$P/$name.sfp32.st
  python3 tests/parity/check_fill_holes.py "${refs[0]}" "$test" >"$final/video_fill_$model.$tag.txt" 2>&1
  echo "$model.$tag.fp32.video$n fill check rc=$? $(tail -1 "$final/video_fill_$model.$tag.txt")" | tee -a "$summary"
fi
exit $rc

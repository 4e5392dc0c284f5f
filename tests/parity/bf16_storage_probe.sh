#!/usr/bin/env bash
# bf16_storage_probe.sh - which of samrt's bf16 storage choices moves the masks away from fp32.
# Under torch.autocast(bfloat16) the official model keeps several tensors in fp32 that a bf16
# samrt run stores in bf16 (docs/numerics.md): LayerNorm outputs, the FPN outputs, memory
# attention's residual stream, the mask decoder's token and key streams, the memory encoder's
# fuser stream, LayerNorm2d outputs, LayerNorm weights. This runs the official
# video predictor over the bedroom clip in fp32 (the reference), in plain bf16 autocast, and in
# bf16 autocast with each of those parts rounded to bf16 (dump_taps.py --bf16-storage), and
# prints for each variant the mask IoU against fp32 next to plain autocast's
# (lowp_mask_gap.py's mean line: lo_* low-res, vid_* video-res; *_s the variant, *_b autocast),
# and the err/max curves of its stored memories and object pointers against fp32.
#   tests/parity/bf16_storage_probe.sh sam2.1_tiny 200 "ln neck memattn decoder all"
#   tests/parity/bf16_storage_probe.sh edgetam 200 "memenc ln2d lnweights"   (parts: dump_taps.py --help)
set -uo pipefail
model=${1:-sam2.1_tiny}; n=${2:-200}; variants=${3:-ln neck memattn decoder all}
P=${PARITY_DIR:-build/parity}/probe; mkdir -p "$P"
final=${OUT:-parity-out}; mkdir -p "$final"; log="$final/probe_$model.log"; : >"$log"
frames=$(mktemp -d); trap 'rm -rf "$frames"' EXIT
ls "${FRAMES:-.carry/bedroom}" | grep -iE '\.jpe?g$' | sort -n | head -$((n + 1)) | while read -r f; do
  ln -s "$(readlink -f "${FRAMES:-.carry/bedroom}/$f")" "$frames/$f"; done
sub='frame.*.pred_masks,frame.*.video_res_masks,frame.*.maskmem_features,frame.*.obj_ptr'
dump() {  # PREC OUT ARGS...
  local p=$1 o=$2; shift 2
  python3 tests/parity/dump_taps.py --model "$model" --precision "$p" --frames "$frames" --frames-to-track "$n" \
    --settings vos_inference --taps-subset "$sub" --max-mb 100000 --out "$o" "$@" >>"$log" 2>&1 \
    || { echo "official dump failed ($p $*)"; tail -5 "$log"; exit 3; }
}
ck=$P/$model.gate.pt
dump fp32 "$P/$model.ref32.st" --gate-open --ckpt-out "$ck"
dump bf16 "$P/$model.ref16.st" --ckpt "$ck"
python3 tests/parity/compare_taps.py "$P/$model.ref32.st" "$P/$model.ref16.st" --only 'frame.**' --preset lowp \
  --no-threshold >"$P/$model.autocast.txt" 2>&1
python3 tests/parity/summarize_video.py "$P/$model.autocast.txt" | grep -E "maskmem|obj_ptr" | sed "s/^/$model autocast: /"
for v in $variants; do
  dump bf16 "$P/$model.$v.st" --ckpt "$ck" --bf16-storage "$v"
  python3 tests/parity/lowp_mask_gap.py "$P/$model.ref32.st" "$P/$model.ref16.st" "$P/$model.$v.st" --rows 0 \
    | sed "s/^/$model bf16-storage=$v: /"
  # the stored memories and pointers of the variant against fp32 (err/max curves)
  python3 tests/parity/compare_taps.py "$P/$model.ref32.st" "$P/$model.$v.st" --only 'frame.**' --preset lowp \
    --no-threshold >"$P/$model.$v.txt" 2>&1
  python3 tests/parity/summarize_video.py "$P/$model.$v.txt" | grep -E "maskmem|obj_ptr" | sed "s/^/$model bf16-storage=$v: /"
  rm -f "$P/$model.$v.st"
done

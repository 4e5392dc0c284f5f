#!/usr/bin/env bash
# run_efficienttam_video_parity.sh - EfficientTAM video tracking parity: run_sam2_video_parity.sh's
# flow (official video predictor vs `samrt track --dump-taps`, tap by tap, the same PROMPT,
# SETTINGS, precisions and summary) with the official side from yformer/EfficientTAM
# (tests/parity/dump_taps_efficienttam.py, the package carried as .carry/efftamref), the
# checkpoint saved under the variant's official file name (the Ti variants share one key layout,
# so samrt takes the variant from the name) and --imgsz 512 for the 512x512 variants.
#   tests/parity/run_efficienttam_video_parity.sh efficienttam_ti_2 200 fp32,bf16   (GPU machine)
#   PROMPT=two tests/parity/run_efficienttam_video_parity.sh efficienttam_ti_512x512 200 fp32
# PROMPT=later is refused (not yet checked against the official predictor).
set -uo pipefail
model=${1:?model: efficienttam_ti, _ti_1, _ti_2, _ti_512x512, _s, _s_1, _s_2, _s_512x512}
case $model in efficienttam_*) ;; *) echo "$model: not an EfficientTAM variant"; exit 2 ;; esac
[ "${PROMPT:-click}" = later ] && { echo "PROMPT=later: not supported for EfficientTAM yet"; exit 2; }
here=$(dirname "$0")
imgsz=1024; case $model in *_512x512) imgsz=512 ;; esac
flow=$(mktemp); trap 'rm -f "$flow"' EXIT
# the same script with the EfficientTAM dumper, the official file name and the model's input size
sed -e 's|tests/parity/dump_taps.py|tests/parity/dump_taps_efficienttam.py|g' \
    -e 's|^ck=\$P/\$model.gate.pt$|mkdir -p "$P/$model.gate"; ck=$P/$model.gate/$model.pt|' \
    -e "s|--precision \"\$prec\" --out|--precision \"\$prec\" --imgsz $imgsz --out|" \
    "$here/run_sam2_video_parity.sh" >"$flow"
grep -q 'dump_taps_efficienttam.py' "$flow" && grep -q "gate/\$model.pt" "$flow" && grep -q -- "--imgsz $imgsz" "$flow" \
  || { echo "run_sam2_video_parity.sh changed: update run_efficienttam_video_parity.sh"; exit 2; }
bash "$flow" "$@"

#!/usr/bin/env bash
# run_efficienttam_video_parity.sh - EfficientTAM video tracking parity: run_sam2_video_parity.sh's
# flow (official video predictor vs `samrt track --dump-taps`, tap by tap, the same PROMPT,
# SETTINGS, precisions and summary) with the official side from yformer/EfficientTAM
# (tests/parity/dump_taps_efficienttam.py, the package carried as .carry/efftamref: the variant's
# efficient_track_anything/configs/efficienttam/<variant>.yaml, whose image_size is 512 for the
# 512x512 variants), the checkpoint saved under the variant's official file name (the Ti variants
# share one key layout, so samrt takes the variant from the name) and --imgsz 512 for the 512x512
# variants.
#   tests/parity/run_efficienttam_video_parity.sh efficienttam_ti_2 200 fp32,bf16   (GPU machine)
#   PROMPT=two tests/parity/run_efficienttam_video_parity.sh efficienttam_ti_512x512 200 fp32
# The whole matrix in one call: `all N [PRECS]` runs every variant of VARIANTS (default Ti, Ti/2
# and S at 1024, Ti at 512x512) with every prompt of PROMPTS (default click box two), one official
# fp32 reference (and one bf16 run for the low-precision bars) per variant and prompt and samrt
# once per precision of PRECS (default fp32,fp16,bf16: fp32 against the per-tap bars, fp16 / bf16
# against the low-precision bars), and prints one line per case (variant, prompt, precision,
# object: rc and compare_taps.py's verdict) to $OUT/efficienttam_parity_summary.txt; each
# variant and prompt keeps its own logs and reports under $OUT/<variant>.<prompt>/.
#   tests/parity/run_efficienttam_video_parity.sh all 200                    (GPU machine)
#   VARIANTS=efficienttam_ti_2 PROMPTS=click tests/parity/run_efficienttam_video_parity.sh all 8 fp32
# DRY=1 prints each case's command instead of running it.
# PROMPT=later is refused (not yet checked against the official predictor).
set -uo pipefail
here=$(dirname "$0")
if [ "${1:-}" = all ]; then
  n=${2:-200}; precs=${3:-fp32,fp16,bf16}; final=${OUT:-parity-out}; mkdir -p "$final"
  sum="$final/efficienttam_parity_summary.txt"; : >"$sum"; rc=0
  for v in ${VARIANTS:-efficienttam_ti efficienttam_ti_2 efficienttam_s efficienttam_ti_512x512}; do
    for q in ${PROMPTS:-click box two}; do
      d="$final/$v.$q"
      if [ -n "${DRY:-}" ]; then
        echo "OUT=$d PROMPT=$q PARITY_DIR=${PARITY_DIR:-build/parity} $0 $v $n $precs" | tee -a "$sum"; continue; fi
      mkdir -p "$d"
      OUT="$d" PROMPT=$q "$0" "$v" "$n" "$precs" >"$d/run.log" 2>&1
      r=$?; [ $r -gt $rc ] && rc=$r
      # run_sam2_video_parity.sh's summary: "<model>.<settings>.<prompt>.<prec>.video<n> <obj> rc=<r> <verdict>"
      lines=$(grep -E "^$v\.[a-z_]+\.$q\.(fp32|fp16|bf16)\.video$n obj[0-9] rc=" "$d/video_parity_summary.txt" 2>/dev/null)
      if [ -z "$lines" ]; then
        echo "$v $q: no result (rc=$r): $(tail -2 "$d/run.log" | tr '\n' ' ')" | tee -a "$sum"; continue; fi
      while read -r name obj res rest; do
        p=${name%.video*}; p=${p##*.}
        printf '%-24s %-5s %-4s %-4s %-5s %s\n' "$v" "$q" "$p" "$obj" "$res" "$rest" | tee -a "$sum"
      done <<<"$lines"
    done
  done
  exit $rc
fi
model=${1:?model: efficienttam_ti, _ti_1, _ti_2, _ti_512x512, _s, _s_1, _s_2, _s_512x512, or all}
case $model in efficienttam_*) ;; *) echo "$model: not an EfficientTAM variant"; exit 2 ;; esac
[ "${PROMPT:-click}" = later ] && { echo "PROMPT=later: not supported for EfficientTAM yet"; exit 2; }
# the YAML dump_taps_efficienttam.py builds from (its default package, .carry/efftamref)
cfg="$here/../../.carry/efftamref/efficient_track_anything/configs/efficienttam/$model.yaml"
[ -f "$cfg" ] || { echo "$model: no official config $cfg"; exit 2; }
imgsz=1024; case $model in *_512x512) imgsz=512 ;; esac
grep -qE "^ *image_size: *$imgsz *$" "$cfg" || { echo "$cfg: image_size is not $imgsz"; exit 2; }
flow=$(mktemp); trap 'rm -f "$flow"' EXIT
# the same script with the EfficientTAM dumper, the official file name and the model's input size
sed -e 's|tests/parity/dump_taps.py|tests/parity/dump_taps_efficienttam.py|g' \
    -e 's|^ck=\$P/\$model.gate.pt$|mkdir -p "$P/$model.gate"; ck=$P/$model.gate/$model.pt|' \
    -e "s|--precision \"\$prec\" --out|--precision \"\$prec\" --imgsz $imgsz --out|" \
    "$here/run_sam2_video_parity.sh" >"$flow"
grep -q 'dump_taps_efficienttam.py' "$flow" && grep -q "gate/\$model.pt" "$flow" && grep -q -- "--imgsz $imgsz" "$flow" \
  || { echo "run_sam2_video_parity.sh changed: update run_efficienttam_video_parity.sh"; exit 2; }
bash "$flow" "$@"

#!/usr/bin/env bash
# run_sam2_parity.sh - SAM 2.1 single-frame parity on the GPU machine: the official video
# predictor (tests/parity/dump_taps.py, seeded realistic random weights) and `samrt segment
# --dump-taps` on the same checkpoint, frame and prompt, compared tap by tap with
# compare_taps.py. One line per comparison goes to $OUT/parity_summary.txt; full tables to
# $OUT/parity_<case>.txt.
#   tests/parity/run_sam2_parity.sh "sam2.1_tiny sam2.1_base_plus" full
#   tests/parity/run_sam2_parity.sh "sam2.1_small sam2.1_large" fp32
# Modes: full = fp32 click + box (+ gate as trained, notebook settings for tiny), bf16 and fp16
# click; fp32 = fp32 click + box only. Needs build/gpu (samrt) and .carry/ (official code, frames).
set -uo pipefail
models=${1:-sam2.1_tiny}; mode=${2:-full}
final=${OUT:-parity-out}; out=$(mktemp -d); mkdir -p "$final"; P=build/parity; mkdir -p $P
trap 'tar -C "$out" -czf "$final/parity_logs_$(echo $models | tr " " _).tgz" . ; cp "$out/parity_summary.txt" "$final/parity_summary_$(echo $models | tr " " _).txt" 2>/dev/null' EXIT
S=build/gpu/tools/samrt
FRAME=.carry/bedroom/00000.jpg
CLICK=210,350; BOX=100,200,400,530
summary="$out/parity_summary.txt"
dump() { python3 tests/parity/dump_taps.py --video-frames 2 "$@" >>"$out/dump.log" 2>&1 || { echo "dump failed: $*"; tail -5 "$out/dump.log"; }; }
cmp() {  # name ref test [compare args]
  local name=$1 ref=$2 test=$3; shift 3
  python3 tests/parity/compare_taps.py "$ref" "$test" "$@" >"$out/parity_$name.txt" 2>&1
  local rc=$?
  echo "$name rc=$rc $(tail -1 "$out/parity_$name.txt")" | tee -a "$summary"
  # the worst tap by err/max
  awk 'NR>4 && $5 ~ /^[0-9.e+-]+$/ {if ($5+0 > w) {w=$5+0; n=$1}} END {if (n) print "    worst err/max: " n " " w}' \
    "$out/parity_$name.txt" | tee -a "$summary"
}
seg() {  # ckpt precision taps prompt-args...
  local ck=$1 prec=$2 taps=$3; shift 3
  $S segment --weights "$ck" --image $FRAME "$@" --precision "$prec" --out $P/mask.png --dump-taps "$taps" \
    >>"$out/segment.log" 2>&1 || { echo "segment failed ($prec $*)"; tail -5 "$out/segment.log"; }
}
for m in $models; do
  ck=$P/$m.gate.pt
  dump --model $m --gate-open --precision fp32 --prompt click --click $CLICK --ckpt-out $ck --out $P/$m.ref32.click.st
  seg $ck fp32 $P/$m.s32.click.st --point $CLICK
  cmp "$m.fp32.click" $P/$m.ref32.click.st $P/$m.s32.click.st
  dump --model $m --ckpt $ck --precision fp32 --prompt box --box $BOX --out $P/$m.ref32.box.st
  seg $ck fp32 $P/$m.s32.box.st --box $BOX
  cmp "$m.fp32.box" $P/$m.ref32.box.st $P/$m.s32.box.st
  if [ "$mode" = full ]; then
    dump --model $m --ckpt $ck --precision fp32 --prompt click+box --click $CLICK --box $BOX --out $P/$m.ref32.cb.st
    seg $ck fp32 $P/$m.s32.cb.st --point $CLICK --box $BOX
    cmp "$m.fp32.click+box" $P/$m.ref32.cb.st $P/$m.s32.cb.st
    dump --model $m --ckpt $ck --precision bf16 --prompt click --click $CLICK --out $P/$m.ref16.click.st
    cmp "$m.official_bf16.click" $P/$m.ref32.click.st $P/$m.ref16.click.st --preset lowp --no-threshold
    for prec in bf16 fp16; do
      seg $ck $prec $P/$m.s$prec.click.st --point $CLICK
      cmp "$m.$prec.click" $P/$m.ref32.click.st $P/$m.s$prec.click.st --preset lowp --base $P/$m.ref16.click.st
    done
    if [ "$m" = sam2.1_tiny ]; then
      ckn=$P/$m.trained_gate.pt   # the gate left as the weights make it
      dump --model $m --precision fp32 --prompt click --click $CLICK --ckpt-out $ckn --out $P/$m.ref32.nogate.st
      seg $ckn fp32 $P/$m.s32.nogate.st --point $CLICK
      cmp "$m.fp32.click.gate_as_is" $P/$m.ref32.nogate.st $P/$m.s32.nogate.st
      dump --model $m --ckpt $ck --settings notebook --precision fp32 --prompt click --click $CLICK --out $P/$m.ref32.nb.st
      seg $ck fp32 $P/$m.s32.nb.st --point $CLICK --multimask-settings notebook
      cmp "$m.fp32.click.notebook" $P/$m.ref32.nb.st $P/$m.s32.nb.st
    fi
  fi
done

#!/usr/bin/env bash
# frame_tables.sh - the frame tables of docs/jetson.md and docs/performance.md: for every model
# x platform profile, one steady tracked frame as `samrt budget --json` plans it (launches,
# DRAM bytes with no cache, GFLOP, and the projected time from the profile's published peaks),
# printed as Markdown. Runs on any machine (the budget needs no GPU).
#   tools/frame_tables.sh [path/to/samrt] > tables.md
set -euo pipefail
S=${1:-build/cpu/tools/samrt}
MODELS=${MODELS:-"edgetam sam2.1_tiny sam2.1_small sam2.1_base_plus sam2.1_large"}
PROFILES=${PROFILES:-"orin-nano-8gb orin-nx-16gb agx-orin-64gb h100-80gb"}
PREC=${PREC:-fp16}
FRAME=${FRAME:-1280x720}
# the "frame" object's own fields (the keys also appear per stage, later in the line)
frame_field() { sed -E "s/.*\"frame\":\\{[^[]*\"$2\":([0-9.]+).*/\1/" <<<"$1"; }
echo "| model | profile | launches | MB per frame | GFLOP | projected ms | projected frames/s |"
echo "|---|---|---:|---:|---:|---:|---:|"
for m in $MODELS; do
  for p in $PROFILES; do
    sz=1024; case $m in *_512x512) sz=512 ;; esac  # the 512x512 variants at their own input size
    j=$("$S" budget --model "$m" --precision "$PREC" --platform "$p" --frame "$FRAME" --imgsz $sz --json 2>/dev/null || true)
    if [ -z "$j" ] || ! grep -q '"frame":{' <<<"$j"; then echo "| $m | $p | error | | | | |"; continue; fi
    l=$(frame_field "$j" launches); b=$(frame_field "$j" bytes); f=$(frame_field "$j" flops)
    t=$(frame_field "$j" projected_ms)
    awk -v m="$m" -v p="$p" -v l="$l" -v b="$b" -v f="$f" -v t="$t" \
      'BEGIN { printf "| %s | %s | %d | %.0f | %.1f | %.2f | %.1f |\n", m, p, l, b / 1e6, f / 1e9, t, 1000 / t }'
  done
done

#!/usr/bin/env bash
# budget_tables.sh - the budget tables of docs/memory.md: `samrt budget --json` for every model
# x precision x object count x platform profile, printed as Markdown (arena MiB, and whether
# the plan fits the profile's pool). Runs on any machine (the budget needs no GPU).
#   tools/budget_tables.sh [path/to/samrt] > tables.md
set -euo pipefail
S=${1:-build/cpu/tools/samrt}
MODELS=${MODELS:-"sam2.1_tiny sam2.1_small sam2.1_base_plus sam2.1_large edgetam efficienttam_ti efficienttam_ti_1
  efficienttam_ti_2 efficienttam_ti_512x512 efficienttam_s efficienttam_s_1 efficienttam_s_2 efficienttam_s_512x512"}
PROFILES=${PROFILES:-"orin-nano-8gb orin-nx-16gb agx-orin-64gb rtx3090 a100-80gb h100-80gb"}
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
field() { sed -E "s/.*\"$2\":([0-9a-z]+).*/\1/" <<<"$1"; }
region() { sed -E "s/.*\"$2\":([0-9]+).*/\1/" <<<"$1"; }
for prec in fp16 bf16; do
  echo; echo "#### $prec: arena MiB per profile (\`fits\` / **NO**), weights / state / scratch MiB at h100-80gb"; echo
  printf '| model | objects |'; for p in $PROFILES; do printf ' %s |' "$p"; done; echo ' weights | state | scratch |'
  printf '|---|---:|'; for p in $PROFILES; do printf -- '---:|'; done; printf -- '---:|---:|---:|\n'
  for m in $MODELS; do for k in 1 3; do
    sz=1024; case $m in *_512x512) sz=512 ;; esac  # the 512x512 variants at their own input size
    printf '| %s | %d |' "$m" "$k"
    for p in $PROFILES; do
      j=$("$S" budget --model "$m" --precision "$prec" --objects "$k" --platform "$p" --imgsz $sz --json 2>/dev/null || true)
      if [ -z "$j" ]; then printf ' error |'; continue; fi
      fit=$(field "$j" fits); [ "$fit" = true ] && v=fits || v="**NO**"
      printf ' %s %s |' "$(mib "$(field "$j" arena_bytes)")" "$v"
    done
    j=$("$S" budget --model "$m" --precision "$prec" --objects "$k" --platform h100-80gb --imgsz $sz --json 2>/dev/null)
    echo " $(mib "$(region "$j" weights)") | $(mib "$(region "$j" state)") | $(mib "$(region "$j" scratch)") |"
  done; done
done

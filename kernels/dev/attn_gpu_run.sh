#!/usr/bin/env bash
# attn_gpu_run.sh - the attention evidence run on a GPU machine, in steps named on the command
# line so one call fits a time limit: build test_attention_cuda (the bench) and the op table
# (sm_90a, Release), check the attention rows of the op table on the default kernel and on the
# portable one (SAMRT_ATTENTION_PORTABLE=1), BENCH lines for
# both, PyTorch SDPA on the same shapes, ncu summaries of the main kernels. With BASE=<source
# tree> the same test binary is also built from that tree and benched (the "before" column).
# Every GPU step runs under a timeout, so a hung kernel costs one step, not the run.
#   kernels/dev/attn_gpu_run.sh build test ptest bench sdpa ncu stalls hot summary
#   BASE=../base kernels/dev/attn_gpu_run.sh build bench
set -uo pipefail
out=${OUT:-attn-out}
mkdir -p "$out"
B=${B:-build/attn}
T=$B/tests/test_attention_cuda
OT=$B/tests/test_ops_table_cuda
base=${BASE:-}
BT=$base/build/attn/tests/test_attention_cuda
step() { echo "=== $1 ($(date +%T))"; }
build_tree() {  # $1 source dir, $2 log prefix
  cmake -S "$1" -B "$1/$B" -DCMAKE_CUDA_ARCHITECTURES=90a -DSAMRT_BUILD_TESTS=ON \
    -DCMAKE_BUILD_TYPE=Release >"$out/$2_configure.log" 2>&1 &&
    cmake --build "$1/$B" -j"${JOBS:-16}" --target test_attention_cuda test_ops_table_cuda >"$out/$2_build.log" 2>&1
}
for s in "$@"; do
  case $s in
  build)
    step build
    J=16
    if [ -n "$base" ]; then J=8; JOBS=8 build_tree "$base" base & fi
    JOBS=$J build_tree . new || { grep -E "error" -A3 "$out/new_build.log" | head -40; exit 1; }
    wait
    echo "build ok" ;;
  test)
    step test
    timeout -k 5 20 $OT attention/hiera_global >"$out/smoke.log" 2>&1
    rc=$?; echo "smoke rc=$rc"; [ $rc = 124 ] && { echo "default kernel HANGS"; touch "$out/hang"; }
    [ -e "$out/hang" ] || { timeout -k 5 150 $OT attention/ >"$out/test.log" 2>&1; echo "default kernel rc=$?"; }
    grep -E "FAIL|checks" "$out/test.log" | head -20 ;;
  ptest)
    step ptest
    SAMRT_ATTENTION_PORTABLE=1 timeout -k 5 150 $OT attention/ >"$out/test_portable.log" 2>&1; echo "portable kernel rc=$?"
    grep -E "FAIL|checks" "$out/test_portable.log" | head -20 ;;
  bench)
    step bench
    [ -e "$out/hang" ] ||
      timeout -k 5 60 $T --bench 2>&1 | grep -E "^BENCH|FAIL" | sed 's/^BENCH op=attention/BENCH op=new/' | tee "$out/bench_new.log"
    SAMRT_ATTENTION_PORTABLE=1 timeout -k 5 60 $T --bench 2>&1 | grep -E "^BENCH|FAIL" |
      sed 's/^BENCH op=attention/BENCH op=portable/' | tee "$out/bench_portable.log"
    if [ -n "$base" ] && [ -x "$BT" ]; then
      timeout -k 5 60 $BT --bench 2>&1 | grep -E "^BENCH|FAIL" | sed 's/^BENCH op=attention/BENCH op=base/' |
        tee "$out/bench_base.log"
    fi ;;
  sdpa)
    step sdpa
    timeout -k 5 90 python3 kernels/dev/sdpa_bench.py --dtype bf16 2>&1 | grep -E "^BENCH|^#|rror" | tee "$out/sdpa.log" ;;
  ncu)
    step ncu
    sec="--section SpeedOfLight --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis \
--section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats"
    for shape in ${NCU_SHAPES:-memattn_cross hiera_global_t}; do
      i=0
      for bin in ${NCU_BINS:-$T}; do
        i=$((i + 1)); tag=$shape.$i
        timeout -k 5 60 ncu $sec -k regex:attn_ -c 1 "$bin" --bench "$shape" >"$out/ncu_$tag.log" 2>&1
        echo "--- $tag: $(grep -m1 -E 'attn_[a-z0-9_]+kernel' "$out/ncu_$tag.log" | cut -c1-100)"
        grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Hit|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit Reg|Block Limit Shared|Issue Slots Busy|No Eligible|Executed Ipc A|Dynamic Shared" \
          "$out/ncu_$tag.log" | head -24
      done
    done ;;
  stalls)
    step stalls
    for shape in ${NCU_SHAPES:-hiera_global_t memattn_cross}; do
      timeout -k 5 60 ncu --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,regex:sm__pipe_tensor.*cycles_active\.avg\.pct_of_peak_sustained_active,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active,gpu__time_duration.sum" \
        -k regex:attn_wgmma -c 1 $T --bench "$shape" >"$out/stalls_$shape.log" 2>&1
      echo "--- $shape"
      grep -E "gpu__time|tensor|stalled|pipe_" "$out/stalls_$shape.log" | awk '$NF+0 > 0.05' | sed 's/  */ /g' | head -40
    done ;;
  hot)
    step hot
    timeout -k 5 90 ncu --section SourceCounters --section WarpStateStats --import-source no -k regex:attn_wgmma -c 1 \
      -f -o "$out/prof" $T --bench "${HOT_SHAPE:-hiera_global_t}" >/dev/null 2>&1
    ncu -i "$out/prof.ncu-rep" --page source --csv --print-source sass >"$out/src.csv" 2>&1
    python3 kernels/dev/ncu_hot.py "$out/src.csv" 70 >"$out/hot.txt" 2>&1
    rm -f "$out/prof.ncu-rep"; gzip -f "$out/src.csv"
    head -30 "$out/hot.txt" ;;
  table)
    step table
    python3 kernels/dev/attn_table.py "$out"/bench_base.log "$out"/bench_new.log "$out"/sdpa.log 2>/dev/null ;;
  summary)
    step summary
    for f in smoke test test_portable; do [ -e "$out/$f.log" ] && { echo "-- $f"; grep -E "FAIL|checks" "$out/$f.log" | head -12; }; done
    cat "$out"/bench_new.log 2>/dev/null | grep -v "rope=1" | sed 's/BENCH op=//; s/ TFLOPs=/ TF=/' ;;
  *) echo "unknown step $s"; exit 2 ;;
  esac
done

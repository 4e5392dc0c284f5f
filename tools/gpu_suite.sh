#!/usr/bin/env bash
# gpu_suite.sh - the GPU evidence run: build (preset gpu, sm_90a), GPU tests, kernel
# benchmarks next to the measured ceilings and PyTorch SDPA, compute-sanitizer, official-format
# checkpoints with `samrt info`. Each step is named on the command line, so one call can run
# a subset within its time limit; logs go to $OUT (or ./gpu-out).
#   tools/gpu_suite.sh build tests bench sanitize ckpt
set -uo pipefail
out=${OUT:-gpu-out}; mkdir -p "$out"
B=build/gpu
step() { echo; echo "=== $1 ($(date +%T))"; }
for s in "$@"; do
  case $s in
  build)
    step build
    nvidia-smi -L
    cmake --preset gpu >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
    cmake --build --preset gpu -j16 >"$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -60; exit 1; }
    echo "build ok"; $B/tools/samrt check ;;
  tests)
    step tests
    ctest --test-dir $B -L cuda --output-on-failure --timeout 300 >"$out/ctest_cuda.log" 2>&1
    grep -E "tests passed|Passed|Failed|\*\*\*|checks" "$out/ctest_cuda.log" | tail -40 ;;
  cputests)
    step cputests
    ctest --test-dir $B -L cpu --timeout 300 >"$out/ctest_cpu.log" 2>&1; grep -E "tests passed|\*\*\*" "$out/ctest_cpu.log" ;;
  bench)
    step bench
    $B/kernels/dev/samrt_ceilings | tee "$out/ceilings.log" | tail -3
    for t in attention gemm conv layernorm elementwise pool sine_pe fourier_pe resize_normalize mask_decode interp; do
      [ -x $B/tests/test_${t}_cuda ] && $B/tests/test_${t}_cuda --bench 2>&1 | grep -E "^BENCH|FAIL" ; done | tee "$out/bench.log"
    python3 kernels/dev/sdpa_bench.py 2>&1 | grep -E "^BENCH|rror" | tee "$out/sdpa.log" ;;
  sanitize)
    step sanitize
    for t in ${SAN_TESTS:-layernorm elementwise pool sine_pe fourier_pe}; do
      [ -x $B/tests/test_${t}_cuda ] || continue
      for tool in memcheck racecheck; do
        compute-sanitizer --tool $tool --error-exitcode 9 $B/tests/test_${t}_cuda ${SAN_ARGS:-} >"$out/san_${tool}_$t.log" 2>&1
        echo "$tool $t: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san_${tool}_$t.log" | tail -1)"
      done
    done ;;
  ckpt)
    step ckpt
    python3 tests/parity/make_checkpoints.py --ref .carry/official_reference.py --sam2-pkg .carry/sam2ref \
      --edgetam-pkg .carry/edgetamref --out build/ckpts --samrt $B/tools/samrt 2>&1 | tail -25
    for m in sam2.1_tiny edgetam; do $B/tools/samrt info --summary build/ckpts/$m.pt; done ;;
  *) echo "unknown step $s"; exit 2 ;;
  esac
done

#!/usr/bin/env bash
# gpu_suite.sh - the GPU evidence run: build (preset gpu, sm_90a), GPU tests, kernel
# benchmarks next to the measured ceilings and PyTorch SDPA, compute-sanitizer, official-format
# checkpoints with `samrt info`. Each step is named on the command line, so one call can run
# a subset within its time limit; logs go to $OUT (or ./gpu-out).
#   tools/gpu_suite.sh build tests bench sanitize ckpt
# Tracking evidence: `video` (parity over the bedroom clip, VIDEO_MODELS / VIDEO_PRECS / VIDEO_N /
# VIDEO_PROMPTS: click box two later, run_sam2_video_parity.sh's PROMPT; ANALYZE=1 adds
# tests/parity/lowp_mask_gap.py for the low precisions),
# `long` (10,000 frames, allocations and memory from outside the arena), `speed` (samrt track
# --timing next to the official predictor on the same frames and checkpoint, SPEED_MODELS),
# `prompt` (prompted-frame latency next to tracked frames, BASE_BUILD beside),
# `compile` (the official predictor under torch.compile, mode default), `e2e` (synth -> bench
# with SAM 2.1 tiny and EdgeTAM on seeded checkpoints -> eval -> merge -> report).
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
    echo "build ok"; rm -f "$out/configure.log" "$out/build.log"; $B/tools/samrt check ;;
  tests)
    step tests
    ctest --test-dir $B -L cuda --output-on-failure --timeout 300 >"$out/ctest_cuda.log" 2>&1
    grep -E "tests passed|Passed|Failed|\*\*\*|checks" "$out/ctest_cuda.log" | tail -40 ;;
  errors)
    step errors
    # one line per comparison: kernel, case, dtype, max abs error, max abs error / max |ref|
    for t in $B/tests/test_*_cuda; do SAMRT_TEST_ERRORS=1 timeout 200 $t 2>/dev/null | grep "^ERR" | sed "s|^|$(basename $t) |"; done \
      >"$out/errors.txt"; wc -l <"$out/errors.txt"
    $B/tests/test_engine_alloc_cuda gpu 2>&1 | grep -vE "^samrt: (info|error)" >"$out/engine_alloc.txt"; tail -4 "$out/engine_alloc.txt" ;;
  cputests)
    step cputests
    ctest --test-dir $B -L cpu --timeout 300 >"$out/ctest_cpu.log" 2>&1; grep -E "tests passed|\*\*\*" "$out/ctest_cpu.log" ;;
  bench)
    step bench
    $B/kernels/dev/samrt_ceilings | tee "$out/ceilings.log" | tail -3
    for t in ops_table attention gemm conv resize_normalize mask_decode; do
      [ -x $B/tests/test_${t}_cuda ] && $B/tests/test_${t}_cuda --bench 2>&1 | grep -E "^BENCH|FAIL" ; done | tee "$out/bench.log"
    python3 kernels/dev/sdpa_bench.py 2>&1 | grep -E "^BENCH|rror" | tee "$out/sdpa.log" ;;
  sanitize)
    step sanitize
    # test[:case filter]; the attention test takes a case-name substring, the op table an
    # "op/shape" substring. Window cases and table ops run one filter each: all of them in one
    # racecheck run take longer than the time limit.
    san_bad=
    for spec in ${SAN_TESTS:-ops_table:layernorm ops_table:unary ops_table:add_scaled ops_table:channel_affine \
        ops_table:pool ops_table:sine_pe ops_table:fourier_pe ops_table:copy ops_table:interp mask_decode \
        resize_normalize sam2_select attention:odd attention:hiera_win14_t attention:hiera_win_qpool attention:hiera_win14_bp \
        attention:hiera_win16_l attention:hiera_win7_odd attention:hiera_win8_t}; do
      t=${spec%%:*}; f=; [ "$spec" != "$t" ] && f=${spec#*:}
      [ -x $B/tests/test_${t}_cuda ] || continue
      for tool in memcheck racecheck; do
        log="$out/san_${tool}_$t${f:+_$f}.log"
        timeout "${SAN_TIMEOUT:-300}" compute-sanitizer --tool $tool --error-exitcode 9 $B/tests/test_${t}_cuda $f >"$log" 2>&1
        rc=$?
        echo "$tool $t${f:+ ($f)}: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
        [ $rc = 0 ] || san_bad="$san_bad $tool:$spec"  # 124 = ran past SAN_TIMEOUT: not evidence
      done
    done
    tar -C "$out" -czf "$out/sanitizer_logs.tgz" $(cd "$out" && ls san_*.log) && rm -f "$out"/san_*.log
    [ -z "$san_bad" ] || { echo "sanitize FAILED or timed out:$san_bad"; exit 1; } ;;
  ckpt)
    step ckpt
    python3 tests/parity/make_checkpoints.py --ref .carry/official_reference.py --sam2-pkg .carry/sam2ref \
      --edgetam-pkg .carry/edgetamref --out build/ckpts --samrt $B/tools/samrt 2>&1 | tail -25
    for m in sam2.1_tiny edgetam; do $B/tools/samrt info --summary build/ckpts/$m.pt; done ;;
  video)
    step video
    # one official reference per model and prompt, samrt once per precision against it
    precs=$(echo ${VIDEO_PRECS:-fp32 bf16} | tr ' ' ,)
    for m in ${VIDEO_MODELS:-sam2.1_tiny}; do for q in ${VIDEO_PROMPTS:-click box two later}; do
      if [ "$q" = later ] && [ "$m" = edgetam ]; then
        echo "$m.$q: skipped (the official EdgeTAM predictor refuses objects added after tracking started)"; continue; fi
      OUT="$out/video" PROMPT=$q tests/parity/run_sam2_video_parity.sh "$m" "${VIDEO_N:-200}" "$precs" | grep -vE '^note:'
    done; done
    cat "$out"/video/*.curves > "$out/video_curves_$(date +%H%M%S).txt" 2>/dev/null
    tar -C "$out" -czf "$out/video_parity_$(date +%H%M%S).tgz" video && rm -rf "$out/video" ;;
  long)
    step long
    timeout 500 $B/tests/test_sam2_track_alloc_cuda gpu "${LONG_N:-10000}" 1024 2>&1 | grep -vE "^samrt: info" | tail -6 ;;
  speed)
    step speed
    mkdir -p build/speed
    pts="210,350;600,250;800,420"
    # SPEED_MODELS: sam2.1_*, edgetam, efficienttam_<variant> (efficienttam_ti_512 = _ti_512x512);
    # SPEED_PRECISION: samrt's precision (default bf16, the official side's autocast)
    for m in ${SPEED_MODELS:-sam2.1_tiny sam2.1_base_plus}; do
      case $m in efficienttam_*_512) m=${m}x512 ;; esac
      pkg=.carry/sam2ref imgsz=()
      case $m in sam2.1_tiny) y=t ;; sam2.1_small) y=s ;; sam2.1_base_plus) y=b+ ;; sam2.1_large) y=l ;; *) y= ;; esac
      cfg=$pkg/sam2/configs/sam2.1/sam2.1_hiera_$y.yaml ck=build/speed/$m.pt
      off=.carry/official_reference.py
      # EdgeTAM's predictor batches the objects and its perceiver fails for a batch > 1 otherwise
      [ "$m" = edgetam ] && pkg=.carry/edgetamref && cfg=$pkg/sam2/configs/edgetam.yaml && off=tests/parity/official_speed.py
      # EfficientTAM: its package and YAML (official_speed.py builds it with efftam_reference.py); the
      # checkpoint keeps the official file name (samrt reads the variant from it), 512 at 512x512
      case $m in efficienttam_*)
        pkg=.carry/efftamref cfg=$pkg/efficient_track_anything/configs/efficienttam/$m.yaml off=tests/parity/official_speed.py
        [ -f "$cfg" ] || { echo "$m: no $cfg"; continue; }
        case $m in *_512x512) imgsz=(--imgsz 512) ;; esac ;;
      esac
      for k in 1 3; do
        p=$(echo "$pts" | cut -d';' -f1-$k)
        save=; [ -f "$ck" ] || save="--save-ckpt $ck"; load=; [ -f "$ck" ] && load="--ckpt $ck"
        python3 $off --pkg $pkg --cfg "$cfg" --frames .carry/bedroom \
          --label "$m.${k}obj" --settings vos_inference --gate-open --points "$p" --runs 3 --warmup 1 $save $load \
          --out "$out/official_speed.jsonl" 2>"$out/official_err.log" | python3 -c \
          'import json,sys; r=json.loads(sys.stdin.read()); print("official %s: ms/frame median %.3f p50 %.3f p95 %.3f p99 %.3f peak_alloc %.0f MiB reserved %.0f MiB" % (r["label"], r["ms_per_frame_median"], r["frame_ms_p50"], r["frame_ms_p95"], r["frame_ms_p99"], r["peak_alloc_MiB"], r["peak_reserved_MiB"]))' \
          || tail -3 "$out/official_err.log"
        args=(); i=1; IFS=';'; for c in $p; do args+=(--obj $i --point "$c"); i=$((i + 1)); done; unset IFS
        echo "samrt $m.${k}obj ${SPEED_PRECISION:-bf16}: $($B/tools/samrt track --weights "$ck" --frames .carry/bedroom "${args[@]}" \
          ${imgsz[@]+"${imgsz[@]}"} --precision ${SPEED_PRECISION:-bf16} --out build/speed/out_$m --timing --runs 4 2>&1 \
          | grep -E '^(timing|arena)|error' | tr '\n' ' ')"
      done
    done ;;
  prompt)
    step prompt
    # a tracked video's prompted frames next to its tracked ones (tests/bench_prompted_frame.c);
    # BASE_BUILD=DIR runs another build's bench beside it in the same call (before / after)
    for m in ${PROMPT_MODELS:-edgetam sam2.1_tiny}; do
      for b in ${BASE_BUILD:+$BASE_BUILD} $B; do
        echo "-- $b"; $b/tests/bench_prompted_frame $m 1280 720 ${PROMPT_ROUNDS:-80} 2>&1 | grep -v "^samrt: info"
      done
    done | tee "$out/prompt.log" ;;
  compile)
    step compile
    timeout 500 python3 .carry/official_reference.py --pkg .carry/sam2ref --vos --compile-mode default \
      --cfg .carry/sam2ref/sam2/configs/sam2.1/sam2.1_hiera_t.yaml --frames .carry/bedroom --label tiny.compile \
      --settings vos_inference --gate-open --ckpt build/speed/sam2.1_tiny.pt --runs 3 --warmup 1 \
      --out "$out/official_speed.jsonl" 2>"$out/compile_err.log" | cut -c1-600 || tail -3 "$out/compile_err.log" ;;
  e2e)
    step e2e
    E=build/e2e; rm -rf $E; mkdir -p $E/ckpt
    for m in sam2.1_tiny:sam2.1_hiera_tiny.pt edgetam:edgetam.pt; do
      [ -f "${E2E_CKPT:-none}/${m#*:}" ] && { cp "$E2E_CKPT/${m#*:}" $E/ckpt/; continue; }
      python3 tests/parity/dump_taps.py --model ${m%%:*} --gate-open --build-only --ckpt-out $E/ckpt/${m#*:} \
        >>"$out/e2e_ckpt.log" 2>&1 || { echo "checkpoint ${m%%:*} failed"; tail -3 "$out/e2e_ckpt.log"; }
    done
    $B/tools/samrt synth --out $E/sav_synth --videos 2 --frames 48 --objects 3 --width 960 --height 540 | tail -1
    $B/tools/samrt bench --split_dir $E/sav_synth --models ${E2E_MODELS:-sam2.1_tiny_points,sam2.1_tiny_bbox,edgetam_points,edgetam_bbox} \
      --weights_dir $E/ckpt --out_dir $E/run_h100 --warmup 1 --runs 2 --precision bf16 2>&1 | grep -vE "^samrt: info" | tail -8
    $B/tools/samrt eval --gt $E/sav_synth/Annotations_6fps --pred $E/run_h100/sam2.1_tiny_points --out $E/eval_tiny_points.csv | tail -2
    $B/tools/samrt merge $E/run_h100 -o $E/merged.csv && $B/tools/samrt report $E/merged.csv -o "$out/report.html"
    cp $E/run_h100/profile_summary.csv $E/run_h100/profile_stats.json "$out/"
    head -c 1500 "$out/profile_summary.csv"; echo; echo "rows: $(($(wc -l <"$out/profile_summary.csv") - 1))" ;;
  *) echo "unknown step $s"; exit 2 ;;
  esac
done

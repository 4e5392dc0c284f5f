#!/usr/bin/env bash
# gpu_suite.sh - the GPU evidence run: build (preset gpu, sm_90a), GPU tests, kernel
# benchmarks next to the measured ceilings and PyTorch SDPA, compute-sanitizer, official-format
# checkpoints with `samrt info`. Each step is named on the command line, so one call can run
# a subset within its time limit; logs go to $OUT (or ./gpu-out).
#   tools/gpu_suite.sh build tests bench sanitize ckpt
# `tests`: ctest -L cuda -j4 (TESTS_SHORT=1 leaves out the slow ones); `sanitize`: memcheck and
# racecheck over every cuda test, one shard a call (SAN_SHARD=i/n, SAN_ONLY, SAN_TIMEOUT,
# SAN_BUDGET, SAN_JOBS units at a time; docs/testing.md).
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

# compute-sanitizer over every test labelled cuda (docs/testing.md, "compute-sanitizer"). A unit
# is one (test, filter): the test's ctest command, or a slice of it where one run under racecheck
# would last too long: the op table one op (or one row) per run, the tracking tests one
# configuration per run or fewer frames. san_units prints the units of shard SAN_SHARD=i/n (by a
# hash of "test filter": a unit keeps its shard when others come or go), or those matching
# SAN_ONLY=REGEX; one a line: test, filter, working folder, environment, command (the last two
# joined by \x1f), "1" where the test runs alone (RUN_SERIAL or RESOURCE_LOCK: it reads the
# device's free memory), separated by \x1e (not a blank: read keeps the empty fields).
san_units() {
  python3 - "$B" <<'PY'
import json, os, re, subprocess, sys, zlib
b = sys.argv[1]
i, n = (int(x) for x in os.environ.get("SAN_SHARD", "1/1").split("/"))
only = os.environ.get("SAN_ONLY")
if not 1 <= i <= n:
    sys.exit("SAN_SHARD=%d/%d: want i/n with 1 <= i <= n" % (i, n))
tests = json.loads(subprocess.run(["ctest", "--test-dir", b, "-N", "-L", "cuda", "--show-only=json-v1"],
                                  capture_output=True, text=True, check=True).stdout)["tests"]
rows = os.environ.get("SAN_OT_ROWS", "attention/hiera attention/memattn").split()  # one row a run
group = os.environ.get("SAN_OT_GROUP", "attention conv gemm").split()  # one shape prefix a run
split = {  # the test's own arguments: fewer frames, or one configuration a run
    "test_sam2_track_alloc_cuda": [("120 frames side 128", ["gpu", "120", "128"])],
    "test_frame_cost_cuda": [(m + " " + d, [m, d]) for m in ("sam2.1_tiny", "edgetam") for d in ("fp16", "bf16")],
    "test_sam2_track_graph_cuda": [(f, [f]) for f in ("tiny bf16", "tiny f32", "samurai", "edgetam")],
    "test_sam2_track_decode_cuda": [(f, [f]) for f in ("f32 side 256", "bf16 side 512")],
}


def ot_filters(exe, sub):
    """The op table's filters ("op/", "op/prefix" or "op/shape", substrings) over the rows sub selects."""
    out = subprocess.run([exe, "--list"] + ([sub] if sub else []), capture_output=True, text=True).stdout
    seen = []
    for line in out.splitlines():
        kv = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
        op, shape = kv.get("op"), kv.get("shape", "")
        if not op:
            continue
        name = op + "/" + shape
        f = name if any(name.startswith(r) for r in rows) else op + "/" + shape.split("_")[0] if op in group \
            else op + "/"
        if f not in seen:
            seen.append(f)
    return seen


for t in tests:
    name, cmd = t["name"], t.get("command") or []
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    env, cwd = props.get("ENVIRONMENT", []), props.get("WORKING_DIRECTORY", b)
    if not cmd:  # not built
        runs = [("", [])]
    elif name in split:
        runs = [(f, cmd[:1] + a) for f, a in split[name]]
    elif os.path.basename(cmd[0]) == "test_ops_table_cuda" and not any(a.startswith("-") for a in cmd[1:]):
        runs = [(f, cmd[:1] + [f]) for f in ot_filters(cmd[0], cmd[1] if len(cmd) > 1 else "")] or [("", cmd)]
    else:
        runs = [(" ".join(os.path.basename(a) if os.path.isabs(a) else a for a in cmd[1:]), cmd)]
    for f, argv in runs:
        uid = name + " " + f
        if (re.search(only, uid) is None) if only else zlib.crc32(uid.encode()) % n != i - 1:
            continue
        alone = "1" if props.get("RUN_SERIAL") or props.get("RESOURCE_LOCK") else ""
        print("\x1e".join([name, f, cwd, "\x1f".join(env), "\x1f".join(argv), alone]))
PY
}

# the table cell of one run: rc, log, the run's time limit. With --error-exitcode 9 and
# --check-exit-code no the rc is 9 when the tool found errors, else the test's own (77: skipped);
# an error of the tool itself (it could not start or attach) is named as such.
san_cell() {
  local s e
  s=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$2" | tail -1 | sed -E 's/^=+ *//; s/^[A-Z]+ SUMMARY: //')
  e=$(grep -m1 -E '^=+ Error: (Target|Unable|couldn|Failed|Internal)' "$2" | sed -E 's/^=+ Error: //' | cut -c1-90)
  case $1 in
  0) echo "pass${s:+: $s}" ;;
  124|137) echo "timed out after $3 s" ;;
  9) echo "ERRORS: $s" ;;
  77) echo "skipped: $(grep -m1 -o 'SKIPPED.*' "$2" | cut -c10-90)" ;;
  *) if [ -n "$e" ]; then echo "tool error (rc $1): $e"; else echo "test failed (rc $1)${s:+, $s}"; fi ;;
  esac
}

# library kernels (cuDNN, cuBLAS/cuBLASLt, nvJPEG) left out of racecheck: their shared-memory
# pipelines raise hazards inside the library that racecheck does not model (docs/testing.md)
SAN_LIB_KERNELS='nvjet|xmma|cutlass_[0-9]|cutlass3x|cutlass__5x|cudnn|cublas|gemv|gemmSN|gemmk1|splitKreduce|op_generic_tensor|implicit_convolve|convolve_common|conv2d_precomputed|fft|nvjpeg'
# one unit under memcheck and racecheck: its log lines on stdout, its table row and its counts of
# unclean and unrun runs under $1/san/rows (numbered $2, so the table keeps the units' order)
san_unit() {
  local out=$1 k=$2 test=$3 f=$4 cwd=$5 envs=$6 cmd=$7 tool rc left lim sec log argv ev extra bad=0 unrun=0
  local cells=() secs=()
  for tool in memcheck racecheck; do
    left=$((budget - (SECONDS - t0))); lim=$((left < lim0 ? left : lim0))
    if [[ " ${SAN_TOOLS:-memcheck racecheck} " != *" $tool "* ]]; then cells+=("not run"); secs+=(0); continue; fi
    if [ -z "$cmd" ]; then cells+=("not built"); secs+=(0); bad=$((bad + 1)); continue; fi
    if [ $left -lt 30 ]; then cells+=("not run (SAN_BUDGET spent)"); secs+=(0); unrun=$((unrun + 1)); continue; fi
    log="$out/san/${tool}_$(printf '%s' "$test $f" | tr -c 'A-Za-z0-9._-' _).log"
    IFS=$'\x1f' read -r -a argv <<<"$cmd"; ev=(); [ -n "$envs" ] && IFS=$'\x1f' read -r -a ev <<<"$envs"
    extra=(); [ $tool = racecheck ] && extra=(${race[@]+"${race[@]}"})
    sec=$SECONDS
    (cd "$cwd" && env ${ev[@]+"${ev[@]}"} timeout -k 20 "$lim" "$cs" --tool $tool "${common[@]}" \
      ${extra[@]+"${extra[@]}"} "${argv[@]}") </dev/null >"$log" 2>&1
    rc=$? sec=$((SECONDS - sec))
    cells+=("$(san_cell $rc "$log" $lim)$([ $lim -lt "$lim0" ] && { [ $rc = 124 ] || [ $rc = 137 ]; } && echo ' (budget)')") secs+=($sec)
    echo "$tool $test${f:+ [$f]}: rc=$rc ${sec}s: ${cells[-1]}"
    case $rc in
    0|77) ;;
    *) bad=$((bad + 1))
       grep -E '^=+ +(Invalid|Race|Error|Warning|Program hit|Saved host|  +at )|CHECK failed' "$log" | head -6 | cut -c1-200 ;;
    esac
  done
  echo "| $test | ${f:-(all)} | ${cells[0]} | ${cells[1]} | ${secs[0]} + ${secs[1]} |" >"$out/san/rows/$k.row"
  echo $bad >"$out/san/rows/$k.bad"; echo $unrun >"$out/san/rows/$k.unrun"
}
san_step() {
  local out=$1 cs=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)}
  [ -n "$cs" ] || { echo "sanitize: no compute-sanitizer (on PATH, under /usr/local/cuda*/bin, or COMPUTE_SANITIZER=PATH)"; return 1; }
  local help common=(--error-exitcode 9 --print-limit 20) race=() excl=${SAN_RACE_EXCLUDE-$SAN_LIB_KERNELS}
  help=$("$cs" --help 2>&1)
  grep -q -- --check-exit-code <<<"$help" && common+=(--check-exit-code no)  # the test's rc is its own
  grep -q -- --racecheck-report <<<"$help" && race+=(--racecheck-report "${SAN_RACE_REPORT:-analysis}")
  if [ -n "$excl" ] && ! grep -q -- --kernel-name-exclude <<<"$help"; then
    echo "note: this compute-sanitizer has no --kernel-name-exclude: racecheck checks the libraries' kernels too"; excl=
  fi
  [ -n "$excl" ] && race+=(--kernel-name-exclude "regex=$excl")
  local units; units=$(san_units) || { echo "sanitize: cannot list the cuda tests of $B"; return 1; }
  local n lim0=${SAN_TIMEOUT:-300} budget=${SAN_BUDGET:-520} jobs=${SAN_JOBS:-1} table=$out/sanitizer_table.md t0=$SECONDS
  n=$(grep -c . <<<"$units")
  rm -rf "$out/san"; mkdir -p "$out/san/rows"
  { echo "<!-- $("$cs" --version 2>&1 | grep -i version | tail -1); shard ${SAN_SHARD:-1/1}${SAN_ONLY:+, SAN_ONLY=$SAN_ONLY};" \
      "SAN_TIMEOUT $lim0 s; SAN_JOBS $jobs; racecheck leaves out kernels matching: ${excl:-nothing} -->"
    echo "| test | filter | memcheck | racecheck | seconds |"; echo "|---|---|---|---|---|"; } >"$table"
  echo "sanitize: $n units (test, filter) in shard ${SAN_SHARD:-1/1}${SAN_ONLY:+ (SAN_ONLY=$SAN_ONLY)}," \
    "$lim0 s a run, $budget s in all, $jobs at a time (units that read the device's free memory alone, last)"
  # SAN_JOBS units at a time (the GPU has room for several sanitized tests), then one at a time
  # the units whose test runs alone; each unit writes its table row and tallies under san/rows
  local k=0 test f cwd envs cmd alone
  for pass in shared alone; do
    while IFS=$'\x1e' read -r -u 3 test f cwd envs cmd alone; do
      [ -n "$test" ] || continue
      k=$((k + 1))
      if [ $pass = shared ] && [ -z "$alone" ]; then
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
        san_unit "$out" $k "$test" "$f" "$cwd" "$envs" "$cmd" &
      elif [ $pass = alone ] && [ -n "$alone" ]; then
        wait; san_unit "$out" $k "$test" "$f" "$cwd" "$envs" "$cmd"
      fi
    done 3<<<"$units"
    wait; k=0
  done
  local bad unrun
  ls "$out"/san/rows/*.row 2>/dev/null | sort -V | xargs -r cat >>"$table"
  bad=$(cat "$out"/san/rows/*.bad 2>/dev/null | awk '{s += $1} END {print s + 0}')
  unrun=$(cat "$out"/san/rows/*.unrun 2>/dev/null | awk '{s += $1} END {print s + 0}')
  rm -rf "$out/san/rows"
  tar -C "$out" -czf "$out/sanitizer_logs_$(echo "${SAN_SHARD:-1/1}" | tr / -).tgz" san && rm -rf "$out/san"
  echo "sanitize: $n units; $bad runs not clean (errors, test failures, timeouts, not built), $unrun not run" \
    "(SAN_BUDGET spent: run them again with SAN_ONLY or more shards); $table:"
  cat "$table"
  [ $bad = 0 ] && [ $unrun = 0 ]
}
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
    # every cuda test, four at a time (the measuring ones hold RESOURCE_LOCK gpu_memory or run
    # alone, tests/*.cmake); TESTS_SHORT=1, or sanitize in the same call, leaves out those labelled slow
    le=(); { [ "${TESTS_SHORT:-0}" = 1 ] || [[ " $* " == *" sanitize "* ]]; } && le=(-LE slow)
    ctest --test-dir $B -L cuda ${le[@]+"${le[@]}"} -j4 --output-on-failure --timeout 300 >"$out/ctest_cuda.log" 2>&1
    grep -E "tests passed|tests failed|Total Test time|\*\*\*|Not Run|checks" "$out/ctest_cuda.log" | tail -40
    echo "longest (the candidates for the slow label):"
    awk '/ Test +#[0-9]+: /{printf "  %8s s  %s\n", $(NF-1), $4}' "$out/ctest_cuda.log" | sort -rn | head -8 ;;
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
    san_step "$out" || exit 1 ;;
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
    # SPEED_PRECISION: samrt's precision (default bf16, the official side's autocast);
    # SPEED_OBJECTS: the object counts (default "1 3", at most 3 clicks)
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
      for k in ${SPEED_OBJECTS:-1 3}; do
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

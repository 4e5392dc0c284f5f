#!/bin/sh
# test_nsys_wrapper.sh - tools/nsys_profile.sh against a stub nsys (NSYS_CMD) that records
# its arguments, writes the files the real one would, and runs the wrapped command. Checks:
# the profile command line, --nsight_report appended for `samrt bench` only (a stub samrt
# records what it got), the report/sqlite/stats files, the wrapped command's exit status
# passed through, and nsys missing -> exit 4, or an unprofiled run with --allow-missing.
# Run: ctest -R test_nsys_wrapper   (or: sh tests/test_nsys_wrapper.sh tools/nsys_profile.sh)
set -u
wrapper=${1:?usage: test_nsys_wrapper.sh path/to/nsys_profile.sh}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_nsys.XXXXXX") || exit 1
fails=0
pass=0
check() {  # check "what" command...
    what=$1
    shift
    if "$@"; then pass=$((pass + 1)); else echo "FAIL: $what" >&2; fails=$((fails + 1)); fi
}
contains() { grep -q -F -- "$2" "$1" 2>/dev/null; }

mkdir -p "$tmp/bin"
cat > "$tmp/nsys" <<'EOF'
#!/bin/sh
printf '%s\n' "$*" >> "$STUB_LOG"
case "$1" in
    --version) echo "NVIDIA Nsight Systems version 0000.0 (stub)" ;;
    profile)
        shift
        out=""
        while [ $# -gt 0 ]; do
            case "$1" in
                --output) out=$2; shift 2 ;;
                --output=*) out=${1#--output=}; shift ;;
                -*) shift ;;
                *) break ;;
            esac
        done
        : > "$out.nsys-rep"
        "$@"
        exit $? ;;
    export)
        for a in "$@"; do case "$a" in --output=*) : > "${a#--output=}" ;; esac; done ;;
    stats)
        prev=""
        for a in "$@"; do [ "$prev" = --output ] && : > "${a}_cuda_gpu_kern_sum.csv"; prev=$a; done ;;
esac
exit 0
EOF
cat > "$tmp/bin/samrt" <<'EOF'
#!/bin/sh
printf '%s\n' "$*" > "$SAMRT_STUB_ARGS"
exit "${SAMRT_STUB_RC:-0}"
EOF
chmod +x "$tmp/nsys" "$tmp/bin/samrt"
export STUB_LOG="$tmp/nsys.log" SAMRT_STUB_ARGS="$tmp/samrt.args"

# 1. samrt bench under the stub: report path from the bench's --out, passed back to it
NSYS_CMD="$tmp/nsys" sh "$wrapper" --name run0 -- "$tmp/bin/samrt" bench --out "$tmp/out" --runs 3 \
    > "$tmp/1.txt" 2>&1
rc=$?
rep="$tmp/out/nsight_reports/run0"
check "bench run exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "profile command line" contains "$STUB_LOG" \
    "profile --trace=cuda,nvtx,osrt --force-overwrite=true --output $rep $tmp/bin/samrt bench --out $tmp/out --runs 3 --nsight_report $rep.nsys-rep"
check "bench got --nsight_report" contains "$SAMRT_STUB_ARGS" "bench --out $tmp/out --runs 3 --nsight_report $rep.nsys-rep"
check "report written" [ -f "$rep.nsys-rep" ]
check "sqlite export" [ -f "$rep.sqlite" ]
check "stats csv" [ -f "${rep}_cuda_gpu_kern_sum.csv" ]
check "export invoked" contains "$STUB_LOG" "export --type=sqlite --force-overwrite=true --output=$rep.sqlite $rep.nsys-rep"

# 2. a command that is not samrt bench gets no extra option; --out-dir is used
: > "$STUB_LOG"
NSYS_CMD="$tmp/nsys" sh "$wrapper" --out-dir "$tmp/o2" --name plain true > "$tmp/2.txt" 2>&1
rc=$?
check "plain command exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "plain command line" contains "$STUB_LOG" "--output $tmp/o2/nsight_reports/plain true"
check "no --nsight_report for other commands" sh -c "! grep -q -e '--nsight_report' '$STUB_LOG'"

# 3. the wrapped command's failure comes through
SAMRT_STUB_RC=3 NSYS_CMD="$tmp/nsys" sh "$wrapper" --out-dir "$tmp/o3" -- "$tmp/bin/samrt" bench \
    > "$tmp/3.txt" 2>&1
rc=$?
check "exit status passed through (got $rc)" [ "$rc" -eq 3 ]

# 4. no nsys: NSYS_CMD unset and a PATH holding only the tools the script needs
mkdir -p "$tmp/path"
for t in basename hostname mkdir head sed sh cat true; do
    p=$(command -v "$t" 2>/dev/null) && ln -s "$p" "$tmp/path/$t"
done
rm -f "$SAMRT_STUB_ARGS"
env -u NSYS_CMD PATH="$tmp/path" sh "$wrapper" -- "$tmp/bin/samrt" bench --out "$tmp/o4" > "$tmp/4.txt" 2>&1
rc=$?
check "missing nsys exits 4 (got $rc)" [ "$rc" -eq 4 ]
check "missing nsys is said plainly" contains "$tmp/4.txt" "nsys) not found"
check "command not run without --allow-missing" [ ! -f "$SAMRT_STUB_ARGS" ]
NSYS_CMD="$tmp/does-not-exist" sh "$wrapper" true > "$tmp/5.txt" 2>&1
rc=$?
check "bad NSYS_CMD exits 4 (got $rc)" [ "$rc" -eq 4 ]
check "bad NSYS_CMD named" contains "$tmp/5.txt" "is not an executable file"

# 5. --allow-missing runs the command unprofiled, without --nsight_report
env -u NSYS_CMD PATH="$tmp/path" sh "$wrapper" --allow-missing -- "$tmp/bin/samrt" bench --out "$tmp/o5" \
    > "$tmp/6.txt" 2>&1
rc=$?
check "--allow-missing exits with the command's status (got $rc)" [ "$rc" -eq 0 ]
check "--allow-missing ran the command" contains "$SAMRT_STUB_ARGS" "bench --out $tmp/o5"
check "--allow-missing adds no --nsight_report" sh -c "! grep -q -e '--nsight_report' '$SAMRT_STUB_ARGS'"

# 6. usage errors
sh "$wrapper" > /dev/null 2>&1
check "no command exits 2" [ $? -eq 2 ]
sh "$wrapper" --bogus true > /dev/null 2>&1
check "unknown option exits 2" [ $? -eq 2 ]

if [ "$fails" -ne 0 ]; then
    echo "test_nsys_wrapper: $fails of $((pass + fails)) checks FAILED (files kept in $tmp)" >&2
    for f in "$tmp"/*.txt; do echo "--- $f" >&2; cat "$f" >&2; done
    exit 1
fi
rm -rf "$tmp"
echo "test_nsys_wrapper: all $pass checks passed"

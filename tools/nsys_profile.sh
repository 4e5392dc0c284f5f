#!/bin/sh
# nsys_profile.sh - runs a command (normally `samrt bench ...`) under Nsight Systems and
# writes the report, its sqlite export and `nsys stats` CSV summaries beside the bench CSV:
#   <out-dir>/nsight_reports/<name>.nsys-rep, .sqlite, <name>_<report>.csv
# When the wrapped command is `samrt bench`, `--nsight_report <path>.nsys-rep` is appended
# so the nsight_report column of profile_summary.csv names the file.
#
# nsys is $NSYS_CMD when set (Jetson: /opt/nvidia/nsight-systems/<ver>/bin/nsys), else
# `nsys` on PATH. Without it the script says so and exits 4 (the samrt "not available"
# code), unless --allow-missing is given: then the command runs unprofiled and its exit
# status is returned. A failing stats/export step only warns: the .nsys-rep is what counts.
#
# Usage: tools/nsys_profile.sh [--out-dir DIR] [--name NAME] [--allow-missing] [--]
#            samrt bench --out DIR ...
# --out-dir defaults to the bench's --out / --out_dir value, else ./nsight_profiles.
# --name defaults to samrt_<pid>_<host>. Exit: the wrapped command's status, 2 on bad
# usage, 4 when nsys is missing (without --allow-missing).
set -u

help_text() { sed -n '2,/^set -u/s/^# \{0,1\}//p' "$0"; }
usage() {
    help_text >&2
    exit 2
}

out_dir=""
name=""
allow_missing=0
while [ $# -gt 0 ]; do
    case "$1" in
        --out-dir) [ $# -ge 2 ] || usage; out_dir=$2; shift 2 ;;
        --out-dir=*) out_dir=${1#--out-dir=}; shift ;;
        --name) [ $# -ge 2 ] || usage; name=$2; shift 2 ;;
        --name=*) name=${1#--name=}; shift ;;
        --allow-missing) allow_missing=1; shift ;;
        -h|--help) help_text; exit 0 ;;
        --) shift; break ;;
        -*) echo "nsys_profile.sh: unknown option $1" >&2; usage ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || { echo "nsys_profile.sh: no command to run" >&2; usage; }

# Is this `samrt bench`? Then find its output folder and let it record the report path.
is_bench=0
case "$(basename -- "$1")" in
    samrt*) [ $# -ge 2 ] && [ "$2" = bench ] && is_bench=1 ;;
esac
if [ -z "$out_dir" ] && [ "$is_bench" = 1 ]; then
    prev=""
    for a in "$@"; do
        case "$prev" in --out|--out_dir|--out-dir) out_dir=$a ;; esac
        case "$a" in --out=*|--out_dir=*|--out-dir=*) out_dir=${a#*=} ;; esac
        prev=$a
    done
fi
[ -n "$out_dir" ] || out_dir=./nsight_profiles
[ -n "$name" ] || name="samrt_$$_$(hostname 2>/dev/null || echo host)"

nsys=${NSYS_CMD:-}
if [ -n "$nsys" ]; then
    if [ ! -x "$nsys" ]; then
        echo "nsys_profile.sh: NSYS_CMD=$nsys is not an executable file" >&2
        nsys=""
    fi
else
    nsys=$(command -v nsys 2>/dev/null || true)
fi
if [ -z "$nsys" ]; then
    echo "nsys_profile.sh: Nsight Systems (nsys) not found: not on PATH and NSYS_CMD unset or wrong." >&2
    echo "  Install Nsight Systems, or set NSYS_CMD (Jetson: /opt/nvidia/nsight-systems/<ver>/bin/nsys)." >&2
    if [ "$allow_missing" = 1 ]; then
        echo "nsys_profile.sh: --allow-missing: running without profiling" >&2
        "$@"
        exit $?
    fi
    exit 4
fi

rep_dir="$out_dir/nsight_reports"
mkdir -p "$rep_dir" || { echo "nsys_profile.sh: cannot create $rep_dir" >&2; exit 2; }
base="$rep_dir/$name"
echo "nsys_profile.sh: $("$nsys" --version 2>/dev/null | head -n 1) -> $base.nsys-rep" >&2

if [ "$is_bench" = 1 ]; then
    "$nsys" profile --trace=cuda,nvtx,osrt --force-overwrite=true --output "$base" \
        "$@" --nsight_report "$base.nsys-rep"
else
    "$nsys" profile --trace=cuda,nvtx,osrt --force-overwrite=true --output "$base" "$@"
fi
status=$?
if [ ! -f "$base.nsys-rep" ]; then
    echo "nsys_profile.sh: no report was written ($base.nsys-rep); exit status $status" >&2
    exit "$status"
fi

# sqlite for ad-hoc queries; the CSV summaries for a quick look. Report names changed in
# nsys 2023.x (cudaapisum -> cuda_api_sum, ...): try the new ones, then nsys's default set.
if ! "$nsys" export --type=sqlite --force-overwrite=true --output="$base.sqlite" "$base.nsys-rep" >/dev/null 2>&1; then
    echo "nsys_profile.sh: warning: sqlite export failed; the .nsys-rep is complete" >&2
fi
if ! "$nsys" stats --report cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_mem_time_sum,nvtx_sum,osrt_sum \
        --format csv --output "$base" "$base.nsys-rep" >/dev/null 2>&1 &&
   ! "$nsys" stats --format csv --output "$base" "$base.nsys-rep" >/dev/null 2>&1; then
    echo "nsys_profile.sh: warning: nsys stats failed; open the report with nsys-ui instead" >&2
fi
echo "nsys_profile.sh: reports in $rep_dir (command exit status $status)" >&2
exit "$status"

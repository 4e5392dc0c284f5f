#!/usr/bin/env bash
# check_api_level.sh - fail when CUDA/cuBLASLt/cuDNN names newer than the Jetson target
# (CUDA 12.6, cuDNN 9.3), or whose signature changed after 12.6, are used outside an #if on a
# version macro. The names come from toolchains/api_denylist.txt.
#
# A grep, not a compiler: it reads tokens with comments and string literals removed, and it
# counts a use as guarded when any enclosing #if/#elif mentions CUDART_VERSION, CUDA_VERSION,
# CUDNN_VERSION, CUDNN_MAJOR/MINOR, CUBLAS_VERSION/CUBLAS_VER_* or __CUDACC_VER_*. The real
# check is compiling against the 12.6 / 9.3 headers (docs/build.md); this one runs anywhere.
#
#   tools/check_api_level.sh                      # scans kernels platform core models
#   tools/check_api_level.sh [--denylist FILE] DIR_OR_FILE...
# Exit 0: clean; 1: findings (file:line: name ... on stderr); 2: usage error.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
denylist="$root/toolchains/api_denylist.txt"
if [ "${1:-}" = "--denylist" ]; then
  [ $# -ge 2 ] || { echo "check_api_level: --denylist needs a file" >&2; exit 2; }
  denylist="$2"; shift 2
fi
[ -r "$denylist" ] || { echo "check_api_level: cannot read $denylist" >&2; exit 2; }
if [ $# -eq 0 ]; then
  set -- "$root/kernels" "$root/platform" "$root/core" "$root/models"
fi

files=()
for p in "$@"; do
  if [ -f "$p" ]; then files+=("$p")
  elif [ -d "$p" ]; then
    while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$p" -type f \
      \( -name '*.cu' -o -name '*.cuh' -o -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.hpp' \) -print0 | sort -z)
  else
    echo "check_api_level: no such file or directory: $p" >&2; exit 2
  fi
done
if [ ${#files[@]} -eq 0 ]; then
  echo "check_api_level: 0 files scanned, 0 findings"
  exit 0
fi

# POSIX awk (mawk on Debian): no gawk extensions.
awk -v denyfile="$denylist" -v nfiles="${#files[@]}" '
BEGIN {
  while ((getline l < denyfile) > 0) {
    if (l ~ /^[ \t]*(#|$)/) continue
    n = split(l, f, /[ \t]+/)
    if (f[1] == "") { name = f[2]; ver = f[3] } else { name = f[1]; ver = f[2] }
    deny[name] = ver
  }
  close(denyfile)
  vermacro = "(CUDART_VERSION|CUDA_VERSION|CUDNN_VERSION|CUDNN_MAJOR|CUDNN_MINOR|CUBLAS_VERSION|CUBLAS_VER_|__CUDACC_VER_)"
  findings = 0
}
FNR == 1 { depth = 0; incomment = 0 }
{
  line = $0
  # drop comments (block comments may span lines) and string/char literals
  out = ""
  while (line != "") {
    if (incomment) {
      e = index(line, "*/")
      if (e == 0) { line = ""; break }
      line = substr(line, e + 2); incomment = 0; continue
    }
    b = index(line, "/*"); s = index(line, "//"); q = index(line, "\"")
    first = 0
    if (b && (!first || b < first)) first = b
    if (s && (!first || s < first)) first = s
    if (q && (!first || q < first)) first = q
    if (!first) { out = out line; break }
    out = out substr(line, 1, first - 1)
    if (first == s) { line = ""; break }
    if (first == b) { line = substr(line, b + 2); incomment = 1; continue }
    rest = substr(line, q + 1)           # string literal: skip to the closing quote
    while (rest != "" && substr(rest, 1, 1) != "\"") {
      rest = substr(rest, (substr(rest, 1, 1) == "\\") ? 3 : 2)
    }
    line = substr(rest, 2); out = out " "
  }
  code = out

  if (code ~ /^[ \t]*#[ \t]*(if|ifdef|ifndef)([^A-Za-z0-9_]|$)/) {
    stack[++depth] = (code ~ vermacro) ? 1 : 0
  } else if (code ~ /^[ \t]*#[ \t]*elif/) {
    if (depth > 0 && code ~ vermacro) stack[depth] = 1
  } else if (code ~ /^[ \t]*#[ \t]*endif/) {
    if (depth > 0) depth--
  }
  guarded = 0
  for (i = 1; i <= depth; i++) if (stack[i]) guarded = 1
  if (guarded) next

  n = split(code, tok, /[^A-Za-z0-9_.]+/)
  for (i = 1; i <= n; i++) {
    t = tok[i]
    if (t == "") continue
    if (t ~ /\.(h|hpp|cuh)$/) { check(t); continue }
    m = split(t, part, ".")
    for (j = 1; j <= m; j++) check(part[j])
  }
}
function check(name) {
  if (name in deny) {
    printf "%s:%d: %s (%s) used outside a version guard: Jetson has CUDA 12.6 / cuDNN 9.3\n", \
      FILENAME, FNR, name, deny[name] > "/dev/stderr"
    findings++
  }
}
END {
  printf "check_api_level: %d files scanned, %d findings\n", nfiles, findings
  exit findings ? 1 : 0
}
' "${files[@]}"

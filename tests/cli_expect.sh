# cli_expect.sh - the one check of the CLI test scripts (video_cli.sh, sm_limit_cli.sh), sourced
# by them: `expect CODE PATTERN CMD...` runs CMD, passes when it exits CODE and its output
# matches PATTERN, else prints the command and its last lines and counts a failure in $fails.
# The caller sets W (its work folder, for the output file) and fails=0.
expect() {
  want=$1 pat=$2; shift 2
  "$@" >"$W/out.txt" 2>&1; rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -q -- "$pat" "$W/out.txt"; then
    echo "FAIL (exit $rc, want $want, pattern '$pat'): $*"; tail -5 "$W/out.txt"; fails=$((fails + 1))
  else
    echo "ok (exit $rc): $*"
  fi
}

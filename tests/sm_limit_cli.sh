#!/bin/sh
# sm_limit_cli.sh - `samrt track --sm-limit` and `samrt bench --sm-limit` in a build without
# CUDA: the flag is refused before any weights are read, with the reason (green contexts need
# a CUDA build) and exit 4; a malformed count is a usage error (exit 2).
#   sm_limit_cli.sh SAMRT SOURCE_DIR WORK_DIR
set -u
S=$1 SRC=$2 W=$3
fails=0
rm -rf "$W" && mkdir -p "$W/frames" "$W/weights"
cp "$SRC/tests/data/images/ok/q90_420.jpg" "$W/frames/00000.jpg"
: >"$W/weights/edgetam.pt"  # never read: the refusal comes first

. "$SRC/tests/cli_expect.sh"  # expect CODE PATTERN CMD...

NO_CUDA="sm_limit 8: this build has no CUDA (SAMRT_CUDA=OFF): green contexts need a CUDA build"
expect 4 "$NO_CUDA" "$S" track --weights "$W/weights/edgetam.pt" --frames "$W/frames" --point 4,4 --timing --sm-limit 8
expect 4 "$NO_CUDA" "$S" bench --video "$W/frames" --point 4,4 --models edgetam --weights_dir "$W/weights" \
  --out_dir "$W/bench" --sm-limit 8
expect 2 "sm-limit" "$S" track --weights "$W/weights/edgetam.pt" --frames "$W/frames" --point 4,4 --timing \
  --sm-limit eight
expect 2 "sm-limit" "$S" bench --video "$W/frames" --point 4,4 --models edgetam --weights_dir "$W/weights" \
  --out_dir "$W/bench" --sm-limit -1
expect 0 "sm-limit N" "$S" track --help
[ "$fails" -eq 0 ] || { echo "sm_limit_cli: $fails failed"; exit 1; }
echo "sm_limit_cli: all passed"

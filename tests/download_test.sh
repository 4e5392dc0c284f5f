#!/bin/sh
# download_test.sh - tools/download_checkpoints.sh end to end against ckpt_server.py on
# 127.0.0.1 (no other network), with a manifest of its own: a full download checked by size,
# sha256 and git blob id, then `samrt info --model edgetam` on a random-weight EdgeTAM
# checkpoint (test_samrt_demo writes it); a resume of a partial .part file (the server must see
# a Range request) and of one complete already; a size and a checksum mismatch refused with
# the file kept as .part; a 404 refused; a transfer cut off, then resumed; samrt info refusing
# a file; neither curl nor wget installed.
# Runs with curl and with wget, each when installed.
#   download_test.sh SOURCE_DIR WORK_DIR SAMRT CHECKPOINT PYTHON3
set -u
SRC=$1 W=$2 S=$3 CK=$4 PY=$5
DLS=$SRC/tools/download_checkpoints.sh
fails=0
rm -rf "$W" && mkdir -p "$W/srv" "$W/bin"
. "$SRC/tests/cli_expect.sh"  # expect CODE PATTERN CMD...
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

[ -f "$CK" ] || { echo "download_test: SKIPPED: no checkpoint $CK (test_samrt_demo writes it)"; exit 77; }
TINY=$SRC/tests/data/ckpt/good/tiny_state.pt
cp "$TINY" "$W/srv/tiny.pt" && cp "$TINY" "$W/srv/cut.pt" && cp "$CK" "$W/srv/edgetam.pt"
head -c 1000 "$TINY" >"$W/srv/short.pt"
"$PY" "$SRC/tests/ckpt_server.py" "$W/srv" "$W/port" "$W/requests.log" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null' EXIT
i=0
while [ ! -s "$W/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$W/port" ] || { echo "FAIL: the test server did not start"; exit 1; }
U=http://127.0.0.1:$(cat "$W/port")

hash() { "$PY" -c "import hashlib,sys; d=open(sys.argv[2],'rb').read(); h=hashlib.new(sys.argv[1]); \
h.update(b'blob %d\\0' % len(d) if sys.argv[1] == 'sha1' else b''); h.update(d); print(h.hexdigest())" "$@"; }
TSIZE=$(wc -c <"$TINY" | tr -d ' ') ESIZE=$(wc -c <"$CK" | tr -d ' ')
M=$W/manifest.txt
cat >"$M" <<EOF
# the test's own manifest: FILE MODEL URL SIZE CHECKSUM
tiny.pt     -            $U/tiny.pt      $TSIZE  sha256:$(hash sha256 "$TINY")
edgetam.pt  edgetam      $U/edgetam.pt   $ESIZE  gitsha1:$(hash sha1 "$CK")
short.pt    -            $U/short.pt     $TSIZE  -
badsum.pt   -            $U/tiny.pt      -       sha256:$(printf '%064d' 0)
missing.pt  -            $U/missing.pt   -       -
cut.pt      -            $U/cut/cut.pt   -       sha256:$(hash sha256 "$TINY")
wrong.pt    sam2.1_tiny  $U/tiny.pt      $TSIZE  -
whole.pt    -            $U/tiny.pt      -       sha256:$(hash sha256 "$TINY")
EOF

for DL in curl wget; do
  command -v $DL >/dev/null 2>&1 || { echo "download_test: $DL not installed, not tested"; continue; }
  D=$W/$DL
  run() { "$DLS" --manifest "$M" --downloader $DL --samrt "$S" "$@"; }
  expect 0 "model       edgetam (all 982 keys" run --dir "$D/full" tiny.pt edgetam
  cmp -s "$D/full/edgetam.pt" "$CK" && cmp -s "$D/full/tiny.pt" "$TINY" || fail "$DL: full download differs"
  ls "$D/full"/*.part >/dev/null 2>&1 && fail "$DL: a .part file is left after a full download"
  expect 0 "already there, checked" run --dir "$D/full" tiny.pt

  mkdir -p "$D/resume" && head -c 1000 "$TINY" >"$D/resume/tiny.pt.part" && : >"$W/requests.log"
  expect 0 "resuming after 1000 bytes" run --dir "$D/resume" tiny.pt
  cmp -s "$D/resume/tiny.pt" "$TINY" || fail "$DL: resumed file differs"
  grep -q "^/tiny.pt range=bytes=1000-" "$W/requests.log" || fail "$DL: no Range request for the resume"

  cp "$TINY" "$D/resume/whole.pt.part"  # complete already, with no size in the manifest
  expect 0 "whole.pt: $TSIZE bytes" run --dir "$D/resume" whole.pt
  cmp -s "$D/resume/whole.pt" "$TINY" || fail "$DL: whole.pt differs"

  expect 4 "has 1000 bytes, the manifest says $TSIZE" run --dir "$D/bad" short.pt
  expect 4 "sha256 .*, the manifest says 0000" run --dir "$D/bad" badsum.pt
  for f in short badsum; do
    [ -f "$D/bad/$f.pt.part" ] && [ ! -e "$D/bad/$f.pt" ] || fail "$DL: $f.pt not kept as .part only"
  done
  expect 3 "cannot download $U/missing.pt: the server refused it" run --dir "$D/bad" missing.pt
  [ -e "$D/bad/missing.pt" ] && fail "$DL: missing.pt exists after a 404"
  if [ $DL = curl ]; then  # wget retries a cut transfer by itself, resuming: it gets there
    expect 3 "cut off" run --dir "$D/cut" cut.pt
    [ -e "$D/cut/cut.pt" ] && fail "$DL: a cut transfer has its final name"
    expect 0 "resuming after" run --dir "$D/cut" --base-url "$U" cut.pt
    cmp -s "$D/cut/cut.pt" "$TINY" || fail "$DL: cut.pt differs after its resume"
  fi
  expect 5 "samrt info refuses" run --dir "$D/info" wrong.pt
  expect 2 "'nosuch' is not in" run --dir "$D/info" --no-info nosuch
done

ln -s "$(command -v dirname)" "$W/bin/dirname"
expect 6 "neither curl nor wget" env PATH="$W/bin" "$(command -v sh)" "$DLS" --manifest "$M" --dir "$W/none"
echo "download_test: $fails failure(s)"
[ "$fails" -eq 0 ]

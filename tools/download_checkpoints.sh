#!/bin/sh
# download_checkpoints.sh - fetches the official SAM 2.1 and EdgeTAM checkpoints listed in
# tools/checkpoints.txt into ./checkpoints (or --dir) with curl or wget, then runs
# `samrt info --model` on each, so that a user with a network gets real weights in one step.
# A file is written as FILE.part and renamed to FILE only once its size and checksum (where the
# manifest pins them) are right; an interrupted download resumes from its .part. A file that
# fails the check stays FILE.part.
#   tools/download_checkpoints.sh [--dir DIR] [--samrt PATH] [NAME ...]
# docs/checkpoints.md is the manual.
set -u

usage() {
    cat <<EOF
usage: tools/download_checkpoints.sh [options] [NAME ...]

Downloads the checkpoints of tools/checkpoints.txt (all, or the NAMEs given: a file name such as
edgetam.pt or a model name such as sam2.1_tiny) into DIR, resuming partial downloads, checks
each file's size and checksum where the manifest pins them, then runs \`samrt info\` on it.

  --dir DIR          where the files go (default ./checkpoints)
  --samrt PATH       the samrt program (default: build/*/tools/samrt of this tree, else PATH)
  --no-info          do not run samrt info
  --manifest FILE    the list of files (default tools/checkpoints.txt; env SAMRT_CKPT_MANIFEST)
  --base-url URL     fetch every file from URL/FILE instead (a mirror; env SAMRT_CKPT_BASE_URL)
  --downloader TOOL  curl or wget (default: curl when found, else wget; env SAMRT_DOWNLOADER)

exit: 0 all present and checked, 2 bad usage or manifest, 3 a download refused or failed,
4 a size or checksum mismatch (the file is kept as FILE.part), 5 samrt info refused a file,
6 no curl / wget / checksum tool.
EOF
}

say() { echo "download_checkpoints: $*"; }
err() { echo "download_checkpoints: error: $*" >&2; }

SRC=$(cd "$(dirname "$0")/.." && pwd)
DIR=./checkpoints
MANIFEST=${SAMRT_CKPT_MANIFEST:-$SRC/tools/checkpoints.txt}
BASE=${SAMRT_CKPT_BASE_URL:-}
DL=${SAMRT_DOWNLOADER:-}
SAMRT_BIN=
INFO=1
NAMES=
while [ $# -gt 0 ]; do
    case $1 in
    --dir|--samrt|--manifest|--base-url|--downloader)
        [ $# -ge 2 ] || { err "$1 needs a value"; exit 2; }
        case $1 in
        --dir) DIR=$2 ;; --samrt) SAMRT_BIN=$2 ;; --manifest) MANIFEST=$2 ;;
        --base-url) BASE=$2 ;; --downloader) DL=$2 ;;
        esac
        shift 2 ;;
    --no-info) INFO=0; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) err "unknown option $1"; usage >&2; exit 2 ;;
    *) NAMES="$NAMES $1"; shift ;;
    esac
done
[ -r "$MANIFEST" ] || { err "cannot read the manifest $MANIFEST"; exit 2; }

# The downloader: the one asked for, else curl, else wget.
if [ -z "$DL" ]; then
    if command -v curl >/dev/null 2>&1; then DL=curl; elif command -v wget >/dev/null 2>&1; then DL=wget; fi
fi
case $DL in
"") err "neither curl nor wget is installed: install one (apt install curl)"; exit 6 ;;
curl|wget) command -v "$DL" >/dev/null 2>&1 || { err "$DL is not installed"; exit 6; } ;;
*) err "--downloader takes curl or wget, not '$DL'"; exit 2 ;;
esac

sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
    elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
    else return 1; fi
}
# git's blob id: SHA-1 of "blob <size>\0" followed by the bytes
gitsha1_of() {
    command -v sha1sum >/dev/null 2>&1 || return 1
    { printf 'blob %s\000' "$(size_of "$1")"; cat "$1"; } | sha1sum | cut -d' ' -f1
}
size_of() { wc -c <"$1" | tr -d ' '; }

# verify FILE SIZE CHECKSUM: 0 when FILE has the size and checksum (each "-": not checked)
verify() {
    have=$(size_of "$1")
    if [ "$2" != - ] && [ "$have" != "$2" ]; then
        err "$1 has $have bytes, the manifest says $2"
        return 4
    fi
    [ "$3" = - ] && return 0
    kind=${3%%:*} want=${3#*:}
    case $kind in
    sha256) got=$(sha256_of "$1") || { err "no sha256sum or shasum to check $1"; return 6; } ;;
    gitsha1) got=$(gitsha1_of "$1") || { err "no sha1sum to check $1"; return 6; } ;;
    *) err "checksum '$3' in $MANIFEST: use sha256:<hex> or gitsha1:<hex>"; return 2 ;;
    esac
    if [ "$got" != "$want" ]; then
        err "$1: $kind $got, the manifest says $want"
        return 4
    fi
    return 0
}

# fetch URL PART: downloads into PART, continuing what PART holds; 0 or 3 with the reason
fetch() {
    if [ "$DL" = curl ]; then
        code=$(curl -fL --retry 2 --connect-timeout 20 -C - -w '%{http_code}' -o "$2" "$1"); rc=$?
        # 416 to a resume: the server has no bytes past the .part, which is then complete
        [ $rc -eq 22 ] && [ "$code" = 416 ] && [ -s "$2" ] && { say "$2: nothing left to fetch"; return 0; }
        case $rc in
        0) return 0 ;;
        22) why="the server refused it (HTTP error above)" ;;
        6) why="cannot resolve the host (no network or no DNS?)" ;;
        7) why="cannot connect to the host (no network, or the server is down)" ;;
        18) why="the transfer was cut off; run again to resume from $2" ;;
        28) why="timed out; run again to resume from $2" ;;
        33) why="the server does not resume downloads; remove $2 and run again" ;;
        *) why="curl exit $rc" ;;
        esac
    else
        wget -nv --tries=3 --connect-timeout=20 -c -O "$2" "$1"; rc=$?
        case $rc in
        0) return 0 ;;
        8) why="the server refused it (HTTP error above)" ;;
        4) why="network failure (no network, or the server is down); run again to resume" ;;
        *) why="wget exit $rc" ;;
        esac
    fi
    err "cannot download $1: $why"
    return 3
}

# get FILE URL SIZE CHECKSUM: DIR/FILE present and checked afterwards, or the exit code
get() {
    dst=$DIR/$1 part=$DIR/$1.part
    if [ -f "$dst" ]; then
        verify "$dst" "$3" "$4" || { r=$?; err "$dst is not the expected file; move it away to download it again"; return $r; }
        say "$dst: already there, checked"
        return 0
    fi
    if [ "$3" != - ] && [ -f "$part" ] && [ "$(size_of "$part")" -ge "$3" ]; then
        say "$part: already complete, checking"
    else
        [ -s "$part" ] && say "$part: resuming after $(size_of "$part") bytes"
        say "fetching $2"
        fetch "$2" "$part" </dev/null || return 3
    fi
    verify "$part" "$3" "$4" || { r=$?; err "kept as $part (not renamed to $1); remove it to download again"; return $r; }
    mv -f "$part" "$dst" || return 3
    sum=$(sha256_of "$dst") || sum="(no sha256sum)"
    say "$dst: $(size_of "$dst") bytes, sha256 $sum"
}

# samrt: --samrt, else a build of this tree, else PATH
find_samrt() {
    [ -n "$SAMRT_BIN" ] && { echo "$SAMRT_BIN"; return; }
    for s in "$SRC"/build/*/tools/samrt; do
        [ -x "$s" ] && { echo "$s"; return; }
    done
    command -v samrt 2>/dev/null
}

mkdir -p "$DIR" || { err "cannot create $DIR"; exit 2; }
status=0 done_files='' done_models='' matched='' n_done=0
while read -r file model url size sum rest; do
    case $file in ''|'#'*) continue ;; esac
    if [ -z "$sum" ] || [ -n "$rest" ]; then err "$MANIFEST: bad line for '$file' (want FILE MODEL URL SIZE CHECKSUM)"; exit 2; fi
    if [ -n "$NAMES" ]; then
        case " $NAMES " in *" $file "*|*" $model "*) ;; *) continue ;; esac
    fi
    matched="$matched $file $model"
    [ -n "$BASE" ] && url=${BASE%/}/$file
    if get "$file" "$url" "$size" "$sum"; then
        done_files="$done_files $file" done_models="$done_models $model" n_done=$((n_done + 1))
    else
        r=$?
        [ "$status" -eq 0 ] && status=$r
    fi
done <"$MANIFEST"
for n in $NAMES; do
    case " $matched " in *" $n "*) ;; *) err "'$n' is not in $MANIFEST"; [ "$status" -eq 0 ] && status=2 ;; esac
done

if [ "$INFO" -eq 1 ] && [ -n "$done_files" ]; then
    S=$(find_samrt)
    if [ -z "$S" ] || [ ! -x "$S" ]; then
        say "samrt not found (build it, or pass --samrt PATH): not checked with samrt info"
    else
        set -- $done_models  # names without spaces: split on purpose
        for f in $done_files; do
            m=$1; shift
            if [ "$m" = - ]; then ok=0; "$S" info --summary "$DIR/$f" || ok=1
            else ok=0; "$S" info --summary --model "$m" "$DIR/$f" || ok=1; fi
            if [ $ok -ne 0 ]; then
                err "samrt info refuses $DIR/$f"
                [ "$status" -eq 0 ] && status=5
            fi
        done
    fi
fi
[ "$status" -eq 0 ] && say "done: $n_done file(s) in $DIR"
exit "$status"

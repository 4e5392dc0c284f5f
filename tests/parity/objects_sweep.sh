#!/usr/bin/env bash
# objects_sweep.sh - the objects sweep of `samrt bench --objects` next to the official predictor,
# in one call, on the same frames, checkpoint and clicks, so that `samrt report` charts both.
#
# The official side runs the official video predictor (official_speed.py: official_reference.py
# with the EdgeTAM batch patch) once per object count with the clicks samrt's sweep gives: the
# first object at --point, the others on the sweep's grid (docs/profiling.md, "Objects sweep":
# extra object j at x = floor((2 (j mod C) + 1) W / (2 C)), y = floor((2 floor(j / C) + 1) H / (2 R)),
# C = ceil(sqrt(E)), R = ceil(E / C)). It saves the seeded checkpoint on its first run; samrt reads
# that file. The official rows are appended to samrt's profile_summary.csv as model
# `official_<model>` with the sweep columns they have (config, objects, ms_per_frame_p50/95/99,
# object_frames_per_s, aggregate_object_frames_per_s, frames, fps, streams 1); the rest stay empty.
#
#   tests/parity/objects_sweep.sh MODEL [COUNTS] [PRECISION]
#   e.g. OUT=gpu-out/sweep tests/parity/objects_sweep.sh edgetam 1,2,4,8,16 fp16
# Environment: SAMRT (default build/gpu/tools/samrt), FRAMES (default .carry/bedroom), N (frames
# per pass, default 90), RUNS (default 2), OUT (default sweep-out), PKG / CFG (the official
# package and config; defaults as tools/gpu_suite.sh's speed step). Needs a GPU, torch and the
# official package. Prints one line per count: official and samrt p50 / p95 and their ratio.
set -euo pipefail
model=${1:?usage: objects_sweep.sh MODEL [COUNTS] [PRECISION]}
counts=${2:-1,2,4,8,16}
prec=${3:-fp16}
root=$(cd "$(dirname "$0")/../.." && pwd)
SAMRT=${SAMRT:-$root/build/gpu/tools/samrt}
FRAMES=${FRAMES:-$root/.carry/bedroom}
N=${N:-90}
RUNS=${RUNS:-2}
out=${OUT:-sweep-out}
point=${POINT:-210,350}
mkdir -p "$out/frames" "$out/weights"
case $model in
  sam2.1_tiny) y=t ;; sam2.1_small) y=s ;; sam2.1_base_plus) y=b+ ;; sam2.1_large) y=l ;; edgetam) y= ;;
  *) echo "objects_sweep.sh: unknown model '$model'" >&2; exit 2 ;;
esac
if [ "$model" = edgetam ]; then
  PKG=${PKG:-$root/.carry/edgetamref}; CFG=${CFG:-$PKG/sam2/configs/edgetam.yaml}; ck=$out/weights/edgetam.pt
else
  PKG=${PKG:-$root/.carry/sam2ref}; CFG=${CFG:-$PKG/sam2/configs/sam2.1/sam2.1_hiera_$y.yaml}
  ck=$out/weights/$(echo "$model" | sed 's/^sam2\.1_/sam2.1_hiera_/').pt
fi
# the same N frames for both sides
rm -f "$out"/frames/*
for f in $(ls "$FRAMES" | grep -iE '\.jpe?g$' | sort | head -n "$N"); do ln -s "$(cd "$FRAMES" && pwd)/$f" "$out/frames/$f"; done
first=$(ls "$out/frames" | head -n1)
read -r W H < <(python3 -c "import struct,sys
d=open(sys.argv[1],'rb').read(); i=2
while i < len(d):
    m=d[i+1]; n=struct.unpack('>H',d[i+2:i+4])[0]
    if m in (0xC0,0xC1,0xC2): h,w=struct.unpack('>HH',d[i+5:i+9]); print(w,h); break
    i+=2+n" "$out/frames/$first")
# the clicks of a count: --point, then the grid of the E = count - 1 extra objects
clicks() {
  python3 -c "import math,sys
k,W,H,p=int(sys.argv[1]),int(sys.argv[2]),int(sys.argv[3]),sys.argv[4]
E=k-1; pts=[p]
if E>0:
    C=math.ceil(math.sqrt(E)); R=math.ceil(E/C)
    pts+=['%d,%d'%((2*(j%C)+1)*W//(2*C),(2*(j//C)+1)*H//(2*R)) for j in range(E)]
print(';'.join(pts))" "$1" "$W" "$H" "$point"
}
: >"$out/official.jsonl"
for k in ${counts//,/ }; do
  save=; load=; [ -f "$ck" ] && load="--ckpt $ck" || save="--save-ckpt $ck"
  python3 "$root/tests/parity/official_speed.py" --pkg "$PKG" --cfg "$CFG" --frames "$out/frames" \
    --label "$model.$k" --settings vos_inference --gate-open --points "$(clicks "$k")" --runs "$RUNS" --warmup 1 \
    $save $load --out "$out/official.jsonl" >/dev/null 2>"$out/official_$k.err" ||
    { echo "official $model, $k objects: failed (tail of $out/official_$k.err):"; tail -3 "$out/official_$k.err"; }
done
"$SAMRT" bench --video "$out/frames" --point "$point" --models "${model}_points" --weights_dir "$out/weights" \
  --out_dir "$out/samrt" --objects "$counts" --warmup 1 --runs "$RUNS" --precision "$prec" --save_masks none \
  >"$out/samrt_bench.log" 2>&1 || { tail -5 "$out/samrt_bench.log"; exit 1; }
python3 - "$out/samrt/profile_summary.csv" "$out/official.jsonl" "$model" "$out/profile_summary.csv" <<'EOF'
import csv, json, sys
src, off, model, dst = sys.argv[1:5]
rows = list(csv.DictReader(open(src)))
cols = list(rows[0].keys()) if rows else []
official = [json.loads(l) for l in open(off) if l.strip()]
with open(dst, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=cols)
    w.writeheader()
    for r in rows:
        w.writerow(r)
    for o in official:
        k = int(o["label"].rsplit(".", 1)[1])
        fps = 1000.0 / o["ms_per_frame_median"]
        r = {c: "" for c in cols}
        r.update(model="official_" + model, config="objects=%d" % k, objects=k, streams=1,
                 frames=o["frames"] * len(o["run_s"]), fps="%.3f" % fps,
                 ms_per_frame_p50="%.3f" % o["frame_ms_p50"], ms_per_frame_p95="%.3f" % o["frame_ms_p95"],
                 ms_per_frame_p99="%.3f" % o["frame_ms_p99"], object_frames_per_s="%.3f" % (k * fps),
                 aggregate_fps="%.3f" % fps, aggregate_object_frames_per_s="%.3f" % (k * fps))
        if "video" in r and rows:
            r["video"] = rows[0].get("video", "")
        w.writerow({c: r[c] for c in cols})
mine = {int(r["objects"]): r for r in rows if r.get("objects")}
for o in official:
    k = int(o["label"].rsplit(".", 1)[1])
    s = mine.get(k)
    if s:
        print("%s %2d objects: official p50 %.2f p95 %.2f ms, samrt p50 %s p95 %s ms, official / samrt %.1fx"
              % (model, k, o["frame_ms_p50"], o["frame_ms_p95"], s["ms_per_frame_p50"], s["ms_per_frame_p95"],
                 o["frame_ms_p50"] / float(s["ms_per_frame_p50"])))
EOF
"$SAMRT" report "$out/profile_summary.csv" -o "$out/report.html" >/dev/null 2>&1 && echo "chart: $out/report.html"

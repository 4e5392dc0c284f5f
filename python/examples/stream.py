#!/usr/bin/env python3
"""stream.py - streaming tracking with a capture thread: one thread reads frames (here, the
JPEGs of a folder, decoded by libsamrt's reader) into a small queue while the main thread
pushes them through a samrt TrackSession. Both run at once because every samrt call releases
the GIL. Prints the arena budget first, then per frame the objects' areas and scores, and the
stage times of the last frame.

    python3 stream.py --weights sam2.1_hiera_tiny.pt --frames video_dir/ --box 100,80,300,260
"""
import argparse
import os
import queue
import threading
import time

import samrt


def capture(paths, q):
    for p in paths:
        q.put(samrt.read_image(p))  # decoding runs without the GIL, beside the model
    q.put(None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--weights", required=True)
    ap.add_argument("--frames", required=True, help="a folder of JPEG frames")
    ap.add_argument("--box", required=True, help="x0,y0,x1,y1 of the object on the first frame")
    ap.add_argument("--platform", help="a platform profile (samrt.platform_profiles()); default: detected")
    args = ap.parse_args()

    paths = sorted(os.path.join(args.frames, n) for n in os.listdir(args.frames) if n.lower().endswith((".jpg", ".jpeg")))
    first = samrt.read_image(paths[0])
    h, w = first.shape[:2]
    with samrt.Model(args.weights, platform=args.platform, max_objects=1, max_frame=(w, h)) as model:
        for region, nbytes in model.budget().items():
            print(f"{region:14s} {nbytes / 2**20:10.2f} MiB" if isinstance(nbytes, int) else f"{region:14s} {nbytes}")
        session = model.track(w, h)
        session.prompt(1, box=[float(v) for v in args.box.split(",")])
        q = queue.Queue(maxsize=4)
        threading.Thread(target=capture, args=(paths, q), daemon=True).start()
        t0, n = time.perf_counter(), 0
        while (frame := q.get()) is not None:
            for r in session.push(frame):
                print(f"frame {session.frame_index - 1}: object {r.obj_id} area {r.area} score {r.score:+.2f} box {r.box}")
            n += 1
        dt = time.perf_counter() - t0
        print(f"{n} frames, {n / dt:.1f} frames/s; last frame's stages (ms): {session.stage_times()}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""video_predictor.py - the official SAM 2 video predictor's forward propagation, on samrt:
the script a user of build_sam2_video_predictor writes, with samrt.VideoPredictor in its
place. It tracks one object from a click (or a box) on a frame of a JPEG folder and writes
each frame's mask as an .npy file (or prints areas only).

    python3 video_predictor.py --weights sam2.1_hiera_tiny.pt --frames video_dir/ \\
        --frame 0 --point 210,350 [--box x0,y0,x1,y1] [--out masks/] [--precision bf16]
"""
import argparse
import os
import time

import numpy as np

import samrt


def pair(s):
    return [float(v) for v in s.split(",")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--weights", required=True, help="sam2.1_hiera_*.pt, edgetam.pt or a safetensors file")
    ap.add_argument("--frames", required=True, help="a folder of JPEG frames (00000.jpg, ...) or a video file")
    ap.add_argument("--frame", type=int, default=0, help="the frame the prompt is on")
    ap.add_argument("--point", type=pair, action="append", help="x,y of a click on the object (repeatable)")
    ap.add_argument("--box", type=pair, help="x0,y0,x1,y1 around the object")
    ap.add_argument("--precision", help="fp32, bf16 or fp16 (default: the platform profile's)")
    ap.add_argument("--out", help="write frame_XXXXX.npy masks here")
    args = ap.parse_args()
    if not args.point and not args.box:
        ap.error("give --point and/or --box")

    predictor = samrt.VideoPredictor(args.weights, precision=args.precision, max_frame=(3840, 2160))
    print(predictor.model.info())
    state = predictor.init_state(args.frames)
    predictor.add_new_points_or_box(state, frame_idx=args.frame, obj_id=1, points=args.point,
                                    labels=[1] * len(args.point or []), box=args.box)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    t0, n = time.perf_counter(), 0
    for frame_idx, obj_ids, masks in predictor.propagate_in_video(state):
        mask = masks[0, 0] > 0.0  # as with the official logits
        n += 1
        print(f"frame {frame_idx}: object {obj_ids[0]} area {int(mask.sum())}")
        if args.out:
            np.save(os.path.join(args.out, f"frame_{frame_idx:05d}.npy"), mask)
    dt = time.perf_counter() - t0
    print(f"{n} frames in {dt:.2f} s ({n / dt:.1f} frames/s, decoding included)")
    predictor.model.close()


if __name__ == "__main__":
    main()

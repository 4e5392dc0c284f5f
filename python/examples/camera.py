#!/usr/bin/env python3
"""camera.py - live tracking in the shape of the community SAM2CameraPredictor: frames from a
camera (/dev/videoN) or a video file, read by libsamrt's own FFmpeg reader (samrt.VideoReader:
no OpenCV, no ffmpeg program), the object prompted on the first frame with a box or a click,
then predictor.track(frame) per frame. Prints per frame the objects' pixel counts (from the
logits-like masks, > 0 = object) and the frame time; --masks DIR writes each mask as a PGM.

    python3 camera.py --weights sam2.1_hiera_tiny.pt --input /dev/video0 --box 100,80,300,260
    python3 camera.py --weights edgetam.pt --input clip.mp4 --point 210,350 --frames 100
"""
import argparse
import os
import time

import numpy as np

import samrt


def numbers(text, n):
    vals = [float(v) for v in text.split(",")]
    if len(vals) != n:
        raise argparse.ArgumentTypeError(f"{text!r}: {n} comma-separated numbers")
    return vals


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--weights", required=True)
    ap.add_argument("--input", required=True, help="a camera (/dev/video0) or a video file")
    ap.add_argument("--box", type=lambda t: numbers(t, 4), help="x0,y0,x1,y1 of the object on the first frame")
    ap.add_argument("--point", type=lambda t: numbers(t, 2), help="x,y of a click on the object (default: the centre)")
    ap.add_argument("--frames", type=int, default=0, help="stop after this many frames (0: the end of the input)")
    ap.add_argument("--platform", help="a platform profile (samrt.platform_profiles()); default: detected")
    ap.add_argument("--imgsz", type=int, default=1024, help="the model's input side (smaller: quicker, coarser)")
    ap.add_argument("--masks", help="a folder to write mask_NNNNN.pgm into")
    args = ap.parse_args()

    reader = samrt.VideoReader(args.input)
    print(reader)
    predictor = samrt.CameraPredictor(args.weights, platform=args.platform, imgsz=args.imgsz,
                                      max_frame=(reader.width, reader.height))
    if args.masks:
        os.makedirs(args.masks, exist_ok=True)
    with reader:
        for i, frame in enumerate(reader):
            t0 = time.perf_counter()
            if i == 0:
                predictor.load_first_frame(frame)
                point = args.point or [reader.width / 2, reader.height / 2]
                prompt = dict(bbox=args.box) if args.box else dict(points=[point], labels=[1])
                _, obj_ids, logits = predictor.add_new_prompt(frame_idx=0, obj_id=1, **prompt)
            else:
                obj_ids, logits = predictor.track(frame)
            ms = 1000 * (time.perf_counter() - t0)
            masks = np.asarray(logits) > 0.0  # (N, 1, H, W)
            areas = ", ".join(f"obj {o}: {int(m.sum())} px" for o, m in zip(obj_ids, masks))
            print(f"frame {i:5d}  {ms:7.1f} ms  {areas}")
            if args.masks:
                with open(os.path.join(args.masks, f"mask_{i:05d}.pgm"), "wb") as f:
                    f.write(b"P5 %d %d 255\n" % (reader.width, reader.height))
                    f.write((masks[0, 0] * 255).astype(np.uint8).tobytes())
            if args.frames and i + 1 >= args.frames:
                break


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""sdpa_bench.py - times torch.nn.functional.scaled_dot_product_attention on the attention
shapes of SAM 2.1 / EdgeTAM that `test_attention_cuda --bench` times, and prints the same
BENCH line format (op=sdpa; op=sdpa_cudnn for the cuDNN backend where it runs), so both can
be compared line by line. Inputs are contiguous (B, H, L, D); windowed Hiera blocks run as
B = windows, the way the official code calls SDPA after window_partition.

Timing: CUDA events around each call, L2 flushed (a 256 MB memset) before each repeat,
3 warm-up calls, median of 20.

    python3 kernels/dev/sdpa_bench.py                 # bf16 and f16
    python3 kernels/dev/sdpa_bench.py --dtype bf16
"""
import argparse
import statistics

import torch
import torch.nn.functional as F

WARMUP = 3
REPS = 20

# name, B, H, Lq, Lk, D: must match the bench cases of tests/test_attention_cuda.c
# (P = B * H problems; the shape string is name:P{P}xLq{Lq}xLk{Lk}xD{D}).
CASES = [
    ("memattn_cross", 1, 1, 4096, 28736, 256),
    ("memattn_self", 1, 1, 4096, 4096, 256),
    ("edgetam_cross", 1, 1, 4096, 3648, 256),
    ("hiera_global_t", 1, 4, 4096, 4096, 96),
    ("hiera_global_bp", 1, 8, 4096, 4096, 56),
    ("hiera_global_l", 1, 8, 4096, 4096, 72),
    ("hiera_win14_t", 25, 4, 196, 196, 96),
    ("hiera_win_qpool_t", 25, 8, 49, 196, 96),
    ("hiera_win8_t", 1024, 1, 64, 64, 96),
    ("dec_t2i", 1, 8, 8, 4096, 16),
    ("dec_i2t", 1, 8, 4096, 8, 16),
    ("perc_cross", 1, 1, 256, 4096, 64),
]


def time_call(fn, flush):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    times = []
    for i in range(WARMUP + REPS):
        flush.fill_(i & 0xFF)
        start.record()
        fn()
        end.record()
        end.synchronize()
        if i >= WARMUP:
            times.append(start.elapsed_time(end))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtype", choices=["bf16", "f16", "both"], default="both")
    args = ap.parse_args()
    dtypes = {"bf16": [torch.bfloat16], "f16": [torch.float16],
              "both": [torch.bfloat16, torch.float16]}[args.dtype]
    names = {torch.bfloat16: "bf16", torch.float16: "f16"}
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name()}")
    for name, b, h, lq, lk, d in CASES:
        flops = 4.0 * b * h * lq * lk * d
        shape = f"{name}:P{b * h}xLq{lq}xLk{lk}xD{d}"
        for dt in dtypes:
            g = torch.Generator(device="cuda").manual_seed(0)
            q = torch.rand(b, h, lq, d, device="cuda", dtype=dt, generator=g) * 2 - 1
            k = torch.rand(b, h, lk, d, device="cuda", dtype=dt, generator=g) * 2 - 1
            v = torch.rand(b, h, lk, d, device="cuda", dtype=dt, generator=g) * 2 - 1
            ms = time_call(lambda: F.scaled_dot_product_attention(q, k, v), flush)
            print(f"BENCH op=sdpa shape={shape} dtype={names[dt]} ms={ms:.4f} "
                  f"TFLOPs={flops / (ms * 1e9):.1f}")
            try:
                from torch.nn.attention import SDPBackend, sdpa_kernel
                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                    ms = time_call(lambda: F.scaled_dot_product_attention(q, k, v), flush)
                print(f"BENCH op=sdpa_cudnn shape={shape} dtype={names[dt]} ms={ms:.4f} "
                      f"TFLOPs={flops / (ms * 1e9):.1f}")
            except Exception as e:  # cuDNN attention refuses some shapes / builds
                print(f"# sdpa_cudnn {shape} {names[dt]}: not run ({type(e).__name__})")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""cnn_torch.py - Lab 04 part 2's second view of cuDNN: the lab's 14 layers as a PyTorch user runs
them (torch.nn.functional.conv2d, channels-last, cudnn.benchmark on), in BF16, FP16 and TF32, each
call captured in a CUDA graph of many calls and replayed, timed with CUDA events (warm-up, median /
min / max of repetitions; torch_timing.py) the way the lab times its tiny kernels. It answers: is the lab's
cudnn_*_nhwc peer (the legacy cuDNN API, the image's cuDNN) as fast as cuDNN through PyTorch (its
own bundled cuDNN), on the same GPU, in the same session?

usage: cnn_torch.py OUT.csv [LAYER,...]        (default: every layer)

Each result is checked against an FP64 convolution of the same x and w on the GPU (relative error
within the type's tolerance) before it is timed. Exit codes: 0 ok, 1 wrong result, 2 usage, 77 no
GPU or PyTorch.
"""
import sys

try:
    import torch
    import torch.nn.functional as F
    from torch_timing import graph_ms
except ImportError as e:
    print(f"cnn_torch: {e}; skipping")
    sys.exit(77)

# The lab's layers (cnn_run.c CONFIGS): name, N, H (= W), R (= S), M, C, pad (R - 1) / 2.
LAYERS = [("T3A", 1, 7, 1, 256, 832), ("T3B", 1, 14, 1, 1024, 256), ("T3C", 1, 27, 1, 256, 64),
          ("T4A", 1, 4, 3, 384, 192), ("T4B", 1, 13, 3, 384, 384), ("T5A", 1, 7, 5, 128, 48),
          ("T5A_C348", 1, 7, 5, 128, 348), ("E1", 1, 32, 3, 64, 64), ("E2", 1, 32, 3, 128, 128),
          ("E3", 1, 64, 3, 128, 128), ("E4", 1, 64, 3, 256, 256), ("E3_N8", 8, 64, 3, 128, 128),
          ("E3_N32", 32, 64, 3, 128, 128), ("L56", 1, 56, 3, 256, 256)]
TYPES = [("bf16", torch.bfloat16, 2e-2), ("fp16", torch.float16, 4e-3), ("tf32", torch.float32, 4e-3)]
GRAPH_CALLS = 20


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    want = set(sys.argv[2].split(",")) if len(sys.argv) == 3 else None
    if not torch.cuda.is_available():
        print("cnn_torch: no GPU; skipping")
        return 77
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    gen = torch.Generator(device="cuda").manual_seed(20261121)
    rows = []
    print(f"cnn_torch: PyTorch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
          f"{torch.cuda.get_device_name()}")
    for name, n, h, r, m, c in LAYERS:
        if want and name not in want:
            continue
        x64 = torch.rand((n, c, h, h), generator=gen, device="cuda", dtype=torch.float64) * 2 - 1
        w64 = torch.rand((m, c, r, r), generator=gen, device="cuda", dtype=torch.float64) * 2 - 1
        for tname, dtype, tol in TYPES:
            x = x64.to(dtype).contiguous(memory_format=torch.channels_last)
            w = w64.to(dtype).contiguous(memory_format=torch.channels_last)
            ref = F.conv2d(x.double(), w.double(), padding=r // 2)
            y = F.conv2d(x, w, padding=r // 2)
            scale = F.conv2d(x.double().abs(), w.double().abs(), padding=r // 2).max().item()
            err = (y.double() - ref).abs().max().item() / scale
            if not err <= tol:
                print(f"cnn_torch: {name} {tname}: max error {err:.3g} x max sum|x w| > {tol}", file=sys.stderr)
                return 1
            med, lo, hi = graph_ms(lambda: F.conv2d(x, w, padding=r // 2), calls=GRAPH_CALLS)
            rows.append((name, tname, med, lo, hi))
            print(f"{name:9s} {tname}: {med * 1e3:9.2f} us (min {lo * 1e3:.2f}, max {hi * 1e3:.2f}), "
                  f"layout {'NHWC' if y.is_contiguous(memory_format=torch.channels_last) else 'NCHW'}")
    with open(sys.argv[1], "w") as f:
        f.write(f"# cnn_torch.py: PyTorch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
                f"{torch.cuda.get_device_name()}, channels-last, benchmark, CUDA graph of {GRAPH_CALLS} calls\n")
        f.write("layer,type,median_ms,min_ms,max_ms\n")
        for row in rows:
            f.write("%s,%s,%.6g,%.6g,%.6g\n" % row)
    return 0


if __name__ == "__main__":
    sys.exit(main())

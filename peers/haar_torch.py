#!/usr/bin/env python3
"""haar_torch.py - Lab 05's peer: the 2D Haar transform as a PyTorch user writes it (slicing and
arithmetic per level, eager and torch.compile), timed the way the lab times its kernels (CUDA
events, warm-up, median / min / max of repetitions), on the GPU the lab ran on.

usage: haar_torch.py OUT.csv [SIDE] [LEVELS]      (default 16384 and 4)

The result is checked first against a float64 NumPy version of the same definition (rows, then
columns, per level; the seed's average convention) on a 256 x 256 image: a peer is only compared
once it computes the same thing. Exit codes: 0 ok, 1 wrong result, 2 usage, 77 no GPU/PyTorch.
"""
import sys

try:
    import numpy as np
    import torch
    from torch_timing import events_ms
except ImportError as e:  # the lab's suite runs without PyTorch: skipped
    print(f"haar_torch: {e}; skipping")
    sys.exit(77)

S = 0.5  # the seed's average convention: (a + b) / 2, (a - b) / 2 per pass


def level(x):
    """One level on a (h, w) view: LL | HL over LH | HH (rows first, then columns)."""
    a, b, c, d = x[0::2, 0::2], x[0::2, 1::2], x[1::2, 0::2], x[1::2, 1::2]
    l0, h0, l1, h1 = (a + b) * S, (a - b) * S, (c + d) * S, (c - d) * S
    top = torch.cat([(l0 + l1) * S, (h0 + h1) * S], dim=1)
    bottom = torch.cat([(l0 - l1) * S, (h0 - h1) * S], dim=1)
    return torch.cat([top, bottom], dim=0)


def forward(x, levels: int):
    out = x.clone()
    h, w = x.shape
    for k in range(levels):
        out[: h >> k, : w >> k] = level(out[: h >> k, : w >> k])
    return out


def reference(x, levels):
    """float64 NumPy: a row pass then a column pass per level, as labs/05_haar/reference.c."""
    y = x.astype(np.float64).copy()
    h, w = y.shape
    for k in range(levels):
        r = y[: h >> k, : w >> k]
        r[:] = np.concatenate([(r[:, 0::2] + r[:, 1::2]) * S, (r[:, 0::2] - r[:, 1::2]) * S], axis=1)
        r[:] = np.concatenate([(r[0::2, :] + r[1::2, :]) * S, (r[0::2, :] - r[1::2, :]) * S], axis=0)
    return y


def main():
    if len(sys.argv) < 2 or len(sys.argv) > 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    side = int(sys.argv[2]) if len(sys.argv) > 2 else 16384
    levels = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    if side % (1 << levels):
        print(f"haar_torch: side {side} is not a multiple of 2^{levels}", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("haar_torch: no CUDA GPU; skipping")
        return 77
    gen = torch.Generator().manual_seed(20261121)
    small = torch.rand(256, 256, generator=gen) * 256 - 128
    want = reference(small.numpy(), levels)
    compiled = torch.compile(forward, dynamic=False)
    rows = []
    for name, fn in (("torch_eager", forward), ("torch_compile", compiled)):
        got = fn(small.cuda(), levels).cpu().numpy()
        err = np.max(np.abs(got - want)) / np.max(np.abs(want))
        if not err < 1e-6:
            print(f"haar_torch: {name} differs from the float64 reference: max relative error {err:.3g}")
            return 1
        x = (torch.rand(side, side, generator=gen) * 256 - 128).cuda()
        med, lo, hi = events_ms(lambda: fn(x, levels))
        floor_gbs = 8.0 * side * side / (med * 1e6)
        rows.append((name, side, levels, med, lo, hi, floor_gbs, err))
        print(f"{name:14s} {side}^2 L{levels}: {med:.4f} ms (min {lo:.4f}, max {hi:.4f}), "
              f"{floor_gbs:.0f} GB/s on the 8-byte-per-pixel floor; max rel. error {err:.2g}")
        del x
    with open(sys.argv[1], "w") as f:
        f.write(f"# gpu={torch.cuda.get_device_name()}\n# torch={torch.__version__}\n")
        f.write("variant,side,levels,median_ms,min_ms,max_ms,floor_gbs,max_rel_error\n")
        for r in rows:
            f.write("%s,%d,%d,%.5f,%.5f,%.5f,%.1f,%.3g\n" % r)
    return 0


if __name__ == "__main__":
    sys.exit(main())

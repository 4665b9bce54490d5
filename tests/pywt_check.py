#!/usr/bin/env python3
"""pywt_check.py TOOL: compare Lab 05's C Haar reference with PyWavelets.

For several sizes (square and not) and levels, TOOL (tests/haar_ref_tool) writes a random image
and its orthonormal forward transform; this script runs pywt.wavedec2(x, 'haar',
mode='periodization', level=L), lays the coefficients out the Mallat way (LL top left; per level
cV top right, cH bottom left, cD bottom right) and requires agreement to 1e-5 relative to the
largest coefficient. The average convention is the same transform scaled by 2^(-k/2) per level
and direction, checked too. Exit 77 only when no Python with PyWavelets is found: the interpreter
running this script, then /usr/bin/python3 (Debian's python3-pywt). A test installs nothing: .ci/run
installs python3-pywt.
"""
import os
import subprocess
import sys
import tempfile

CASES = [(8, 8, 1), (8, 8, 3), (64, 32, 4), (32, 128, 5), (256, 256, 8), (96, 64, 5)]


def main(tool):
    try:
        import numpy as np
        import pywt
    except ImportError:
        # Another interpreter may have it: Debian's (python3-pywt).
        if "--retried" not in sys.argv and sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(__file__), tool, "--retried"])
        print("PyWavelets not found (Debian: apt-get install python3-pywt; or pip install PyWavelets): skipped")
        return 77
    bad = 0
    for w, h, levels in CASES:
        for conv in ("orthonormal", "average"):
            with tempfile.TemporaryDirectory() as d:
                subprocess.run([tool, str(w), str(h), str(levels), conv, d], check=True)
                x = np.fromfile(os.path.join(d, "in.f32"), dtype=np.float32).reshape(h, w).astype(np.float64)
                y = np.fromfile(os.path.join(d, "out.f32"), dtype=np.float32).reshape(h, w).astype(np.float64)
            coeffs = pywt.wavedec2(x, "haar", mode="periodization", level=levels)
            want = np.zeros((h, w))
            ah, aw = h >> levels, w >> levels
            scale = (0.5 ** levels) if conv == "average" else 1.0  # average: (a+b)/2 = orthonormal / sqrt(2)
            want[:ah, :aw] = coeffs[0] * scale
            for k, (cH, cV, cD) in enumerate(coeffs[1:]):
                lev = levels - k  # coeffs[1] is the coarsest level
                s = (0.5 ** lev) if conv == "average" else 1.0
                hh, ww = cH.shape
                want[:hh, ww:2 * ww] = cV * s
                want[hh:2 * hh, :ww] = cH * s
                want[hh:2 * hh, ww:2 * ww] = cD * s
            err = np.max(np.abs(y - want)) / np.max(np.abs(want))
            ok = err < 1e-5
            bad += not ok
            print(f"{w:4d} x {h:4d}, {levels} level(s), {conv:11s}: max relative difference {err:.2e} {'ok' if ok else 'FAIL'}")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))

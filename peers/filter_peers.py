#!/usr/bin/env python3
"""filter_peers.py - Lab 04 part 1's peers: the 3x3 smooth filter as an OpenCV user writes it
(cv2.filter2D on the CPU, all threads) and as a CuPy user writes it (cupyx.scipy.ndimage.correlate
on the GPU), on the pictures and sizes of the lab's `sizes` experiment, timed as the lab times
(warm-up, then median / min / max of repetitions; on the GPU between CUDA events).

usage: filter_peers.py --out OUT.csv --tool CONV_PICTURES [--lab-csv LAB.csv] [--quick] [--seed S]
                       [--reps N] [--warmup N] [--peers opencv_cpu,cupy]

  --tool     the build's peers/conv_pictures (writes the lab's generated picture of each size)
  --lab-csv  the lab's CSV of the same session: its seed, --quick, memcpy (copy_gbs: pct_of_copy
             of the GPU peer) and NPP's times (ratio = time / NPP's time, as the lab's sizes rows)
  --quick    the lab's --quick sizes (1024^2 and 1029 x 525; default: those of --lab-csv)

Every result is checked first, bit for bit on the interior, against reference() below: the lab's
definition (ladder/reference.c: weights 1 2 1 / 2 4 2 / 1 2 1, integer sum, arithmetic >> 4 (a
floor), clamp 0..255; the one-pixel frame is not part of the output). OpenCV rounds to nearest:
delta = -15/32 makes its result the floor, exactly (every sum / 16 is a multiple of 1/16, exact in
float; the nearest integer of q + r/16 - 15/32 is q for r = 0..15). CuPy's cast to uint8 truncates,
which is the floor for these non-negative sums. The CSV has the lab's columns (experiment sizes,
variants opencv_cpu and cupy), for plots/04_sizes.gp beside the lab's rows. A peer whose module
is missing is skipped with a note. Exit codes: 0 ok, 1 a peer differs from the reference (or the
picture tool failed), 2 usage, 77 no peer could run (numpy, OpenCV and CuPy all missing).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError as e:
    print(f"filter_peers: {e}; skipping")
    sys.exit(77)

SMOOTH = ((1, 2, 1), (2, 4, 2), (1, 2, 1))
SHIFT = 4
DEFAULT_SEED = 20261121  # the labs' default --seed (common/gl_cli.h)
# The lab's sizes experiment (main.c run_sizes): picture s has seed + 2 + s.
SIZES = ((1024, 1024), (3072, 3072), (8192, 8192), (16384, 16384), (4093, 2047))
QUICK_SIZES = ((1024, 1024), (4 * 257 + 1, 4 * 131 + 1))
FIELDS = ("lab,experiment,variant,size,param,bytes,working_set_bytes,l2,reps,batch,median_ms,min_ms,max_ms,gbs,"
          "pct_of_copy,ratio,requests,sectors_per_request,expected_sectors_per_request,segments_per_request,"
          "expected_segments_per_request,warp_exec_efficiency,achieved_occupancy,theoretical_occupancy,"
          "sm_efficiency,expected_warp_exec_efficiency,divergent_branch_fraction,threads_per_block,blocks,"
          "registers_per_thread,smem_per_block,blocks_per_sm,api_blocks_per_sm,smsp_efficiency,gflops,"
          "max_abs_error,max_error_over_bound,checked,sms,intensity,pct_of_peak").split(",")


def reference(img, weights=SMOOTH, shift=SHIFT):
    """The lab's filter (ladder/reference.c) on the interior: (h - 2) x (w - 2) uint8."""
    h, w = img.shape
    s = np.zeros((h - 2, w - 2), dtype=np.int32)
    for dy in range(3):
        for dx in range(3):
            if weights[dy][dx]:
                s += weights[dy][dx] * img[dy:h - 2 + dy, dx:w - 2 + dx].astype(np.int32)
    return np.clip(s >> shift, 0, 255).astype(np.uint8)  # >> of int32 is arithmetic: the floor


def with_frame(img, interior):
    """The picture conv_pictures writes: the interior, the frame copied from the input."""
    out = img.copy()
    out[1:-1, 1:-1] = interior
    return out


def generate(tool, w, h, seed, tmp):
    """The lab's picture of this size and seed, from the build's conv_pictures."""
    run = subprocess.run([tool, str(w), str(h), str(seed), tmp], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{tool} {w} {h} {seed}: exit {run.returncode}: {run.stdout.strip()}")
    return np.fromfile(os.path.join(tmp, "in.u8"), dtype=np.uint8).reshape(h, w)


def summary(samples):
    return statistics.median(samples), min(samples), max(samples)


# ---- the peers: each is (name, setup(img) -> (call, result)) where call() runs the filter once
# (its output buffer made in setup, outside the timing) and result() returns the output (numpy) ----

def opencv_peer():
    try:
        import cv2
    except ImportError as e:
        return None, f"OpenCV-Python not importable ({e}): opencv_cpu rows skipped"
    cv2.setNumThreads(os.cpu_count() or 1)
    kernel = np.array(SMOOTH, dtype=np.float32) / (1 << SHIFT)

    def setup(img):
        dst = np.empty_like(img)
        def call():
            cv2.filter2D(img, -1, kernel, dst=dst, delta=-15.0 / 32, borderType=cv2.BORDER_REPLICATE)
        return call, lambda: dst

    def time_ms(call, reps, warmup):
        for _ in range(warmup):
            call()
        samples = []
        for _ in range(reps):
            t0 = time.perf_counter()
            call()
            samples.append((time.perf_counter() - t0) * 1e3)
        return summary(samples)

    note = f"opencv={cv2.__version__} threads={cv2.getNumThreads()} (cv2.setNumThreads({os.cpu_count()}))"
    return ("opencv_cpu", setup, time_ms, note), None


def cupy_peer():
    try:
        import cupy as cp
        from cupyx.scipy import ndimage
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # no CuPy, or no GPU for it
        return None, f"CuPy not usable ({type(e).__name__}: {e}): cupy rows skipped"
    weights = cp.asarray(np.array(SMOOTH, dtype=np.float64) / (1 << SHIFT))

    def setup(img):
        x = cp.asarray(img)
        y = cp.empty_like(x)
        def call():
            ndimage.correlate(x, weights, output=y, mode="constant", cval=0.0)
        return call, lambda: cp.asnumpy(y)

    def time_ms(call, reps, warmup):
        for _ in range(warmup):
            call()
        cp.cuda.Device().synchronize()
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        samples = []
        for _ in range(reps):
            start.record()
            call()
            stop.record()
            stop.synchronize()
            samples.append(cp.cuda.get_elapsed_time(start, stop))
        return summary(samples)

    name = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"].decode()
    return ("cupy", setup, time_ms, f"cupy={cp.__version__} gpu={name}"), None


# ---- the lab's CSV: seed, quick, memcpy, NPP's times ----

def read_lab(path):
    meta, npp = {}, {}
    with open(path) as f:
        lines = f.read().splitlines()
    header = None
    for line in lines:
        if line.startswith("#"):
            key, _, value = line[1:].strip().partition("=")
            meta[key] = value
        elif header is None:
            header = line.split(",")
        else:
            row = dict(zip(header, line.split(",")))
            if row.get("experiment") == "sizes" and row.get("variant") == "NPP":
                npp[int(row["size"])] = float(row["median_ms"])
    return meta, npp


def csv_row(variant, w, h, reps, times, copy_gbs, npp_ms):
    pixels = w * h
    med, lo, hi = times
    gbs = 2.0 * pixels / (med * 1e6)
    row = dict.fromkeys(FIELDS, "")
    row.update(lab="04_convolution", experiment="sizes", variant=variant, size=pixels, param=w, bytes=2 * pixels,
               working_set_bytes=2 * pixels, l2="warm", reps=reps, batch=1, median_ms=f"{med:.6g}",
               min_ms=f"{lo:.6g}", max_ms=f"{hi:.6g}", gbs=f"{gbs:.6g}", checked=(w - 2) * (h - 2))
    if copy_gbs and variant != "opencv_cpu":  # % of the GPU's memcpy: GPU peers only
        row["pct_of_copy"] = f"{100.0 * gbs / copy_gbs:.6g}"
    if npp_ms:
        row["ratio"] = f"{med / npp_ms:.6g}"
    return row


def write_csv(path, comments, rows):
    with open(path, "w") as f:
        for c in comments:
            f.write(f"# {c}\n")
        f.write(",".join(FIELDS) + "\n")
        for r in rows:
            f.write(",".join(str(r[k]) for k in FIELDS) + "\n")


def parse(argv):
    p = argparse.ArgumentParser(prog="filter_peers.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--tool", required=True)
    p.add_argument("--lab-csv")
    p.add_argument("--quick", action="store_true", default=None)
    p.add_argument("--seed", type=int)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--peers", default="opencv_cpu,cupy")
    a = p.parse_args(argv)  # exits 2 on a usage error, naming the flag
    bad = set(a.peers.split(",")) - {"opencv_cpu", "cupy"}
    if bad or a.reps < 1 or a.warmup < 0:
        p.error(f"--peers takes opencv_cpu and cupy (got {a.peers}); --reps >= 1, --warmup >= 0")
    if not os.access(a.tool, os.X_OK):
        p.error(f"--tool '{a.tool}' is not an executable (the build's peers/conv_pictures)")
    if a.lab_csv and not os.path.isfile(a.lab_csv):
        p.error(f"--lab-csv '{a.lab_csv}': no such file")
    out_dir = os.path.dirname(os.path.abspath(a.out))
    if not os.path.isdir(out_dir):
        p.error(f"--out '{a.out}': directory '{out_dir}' does not exist")
    return a


def main(argv):
    a = parse(argv)
    meta, npp = read_lab(a.lab_csv) if a.lab_csv else ({}, {})
    seed = a.seed if a.seed is not None else int(meta.get("seed", DEFAULT_SEED))
    quick = a.quick if a.quick is not None else meta.get("quick") == "1"
    copy_gbs = float(meta["copy_gbs"]) if "copy_gbs" in meta else None
    peers, notes = [], []
    for name, make in (("opencv_cpu", opencv_peer), ("cupy", cupy_peer)):
        if name in a.peers.split(","):
            peer, why = make()
            if peer:
                peers.append(peer)
            else:
                print(f"filter_peers: note: {why}")
    if not peers:
        print("filter_peers: no peer could run; no CSV written")
        return 77
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for s, (w, h) in enumerate(QUICK_SIZES if quick else SIZES):
            try:
                img = generate(a.tool, w, h, seed + 2 + s, tmp)
            except RuntimeError as e:
                print(f"filter_peers: {e}")
                return 1
            want = reference(img)
            for name, setup, time_ms, _ in peers:
                call, result = setup(img)
                call()
                got = result()[1:-1, 1:-1]
                bad = int(np.count_nonzero(got != want))
                if bad:
                    y, x = (int(v) for v in np.argwhere(got != want)[0])
                    print(f"filter_peers: {name} {w}x{h}: {bad} interior pixels differ from the lab's reference; "
                          f"first at ({x + 1}, {y + 1}): got {got[y, x]}, expected {want[y, x]}")
                    return 1
                times = time_ms(call, a.reps, a.warmup)
                row = csv_row(name, w, h, a.reps, times, copy_gbs, npp.get(w * h))
                rows.append(row)
                print(f"{name:10s} {w:5d} x {h:5d}: {times[0]:.4f} ms (min {times[1]:.4f}, max {times[2]:.4f}), "
                      f"{float(row['gbs']):7.1f} GB/s on 2 bytes per pixel"
                      + (f", {float(row['pct_of_copy']):.1f}% of memcpy" if row["pct_of_copy"] else "")
                      + (f", {float(row['ratio']):.2f}x NPP's time" if row["ratio"] else "")
                      + f"; interior {(w - 2) * (h - 2)} pixels exact")
                del call, result
    comments = ["lab=04_convolution", "source=peers/filter_peers.py (the lab's peers; sizes rows only)",
                f"seed={seed}", f"quick={int(quick)}"] + [p[3] for p in peers]
    if copy_gbs:
        comments.append(f"copy_gbs={copy_gbs}")
    comments.append(f"cpu={cpu_name()} cores={os.cpu_count()}")
    comments.append(f"timing=median of {a.reps} reps after {a.warmup} warm-ups (min, max); opencv_cpu: wall clock "
                    "(time.perf_counter), cupy: CUDA events; checked = interior pixels compared (bit-exact)")
    write_csv(a.out, comments, rows)
    print(f"wrote {a.out} ({len(rows)} rows)")
    return 0


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""filter_peers_test.py CONV_PICTURES: peers/filter_peers.py without a GPU.
1. Its NumPy reference() equals the lab's C reference (ladder/reference.c, through the build's
   conv_pictures) bit for bit, frame included, for the three filters on odd and tiny pictures.
2. Where OpenCV-Python is installed, cv2.filter2D as the script calls it (delta = -15/32) equals
   the reference on the interior of the lab's pictures (the floor, not OpenCV's rounding).
3. The CSV it writes has the lab's columns (the committed H100 CSV's header), sizes rows with
   GB/s on 2 bytes per pixel, the ratio to NPP's time of the lab CSV, no % of memcpy for the CPU.
4. Usage errors exit 2 naming the flag. Exit 0 pass, 1 fail, 77 without NumPy."""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("numpy not installed: skipped")
    sys.exit(77)

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "peers"))
import filter_peers as fp  # noqa: E402

FILTERS = {"smooth": (fp.SMOOTH, 4), "sharpen": (((0, -1, 0), (-1, 5, -1), (0, -1, 0)), 0),
           "edge": (((-1, -1, -1), (-1, 8, -1), (-1, -1, -1)), 0)}
failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += not ok


def c_pictures(tool, w, h, seed, tmp, name):
    subprocess.run([tool, str(w), str(h), str(seed), tmp, name], check=True)
    img = np.fromfile(os.path.join(tmp, "in.u8"), dtype=np.uint8).reshape(h, w)
    return img, np.fromfile(os.path.join(tmp, name + ".u8"), dtype=np.uint8).reshape(h, w)


def reference_matches_c(tool, tmp):
    for w, h, seed in ((3, 3, 1), (5, 4, 2), (37, 23, 3), (257, 131, 20261124), (1029, 525, 20261125)):
        for name, (weights, shift) in FILTERS.items():
            img, want = c_pictures(tool, w, h, seed, tmp, name)
            got = fp.with_frame(img, fp.reference(img, weights, shift))
            check(np.array_equal(got, want), f"reference {name} {w}x{h} seed {seed}: NumPy == ladder/reference.c "
                                             f"({np.count_nonzero(got != want)} differ)")
    # a picture whose sums span the clamps: every byte value next to 0 and 255
    img = np.random.default_rng(7).choice(np.array([0, 1, 254, 255], dtype=np.uint8), size=(64, 65))
    for name, (weights, shift) in FILTERS.items():
        got = fp.reference(img, weights, shift)
        want = np.zeros_like(got)
        for y in range(1, 63):
            for x in range(1, 64):
                s = sum(weights[dy][dx] * int(img[y - 1 + dy, x - 1 + dx]) for dy in range(3) for dx in range(3))
                want[y - 1, x - 1] = min(255, max(0, s >> shift))  # Python's >> floors too
        check(np.array_equal(got, want), f"reference {name} on 0/1/254/255 noise: clamps and floors as the C")


def opencv_matches(tool, tmp):
    peer, why = fp.opencv_peer()
    if peer is None:
        print(f"skip: {why}")
        return
    _, setup, time_ms, note = peer
    for w, h, seed in ((1029, 525, 20261121 + 3), (1024, 1024, 20261121 + 2), (4093, 2047, 20261125)):
        img, want = c_pictures(tool, w, h, seed, tmp, "smooth")
        call, result = setup(img)
        call()
        got = result()
        d = got[1:-1, 1:-1] != want[1:-1, 1:-1]
        check(not d.any(), f"opencv_cpu {w}x{h}: interior equals the lab's reference ({np.count_nonzero(d)} differ; "
                           f"{note})")
    med, lo, hi = time_ms(call, 2, 1)
    check(0 < lo <= med <= hi, "opencv_cpu timing: min <= median <= max, positive")


def csv_written(tool, tmp):
    lab = os.path.join(tmp, "lab.csv")
    with open(lab, "w") as f:
        f.write("# lab=04_convolution\n# seed=20261121\n# copy_gbs=3000.0\n# quick=1\n")
        f.write(",".join(fp.FIELDS) + "\n")
        for size, ms in ((1048576, 0.02), (1029 * 525, 0.01)):
            row = dict.fromkeys(fp.FIELDS, "")
            row.update(lab="04_convolution", experiment="sizes", variant="NPP", size=size, median_ms=ms)
            f.write(",".join(str(row[k]) for k in fp.FIELDS) + "\n")
    with open(os.path.join(root, "plots/data/h100/04_convolution.csv")) as f:
        header = next(line for line in f if not line.startswith("#")).strip().split(",")
    check(header == fp.FIELDS, "the peers' CSV columns are the lab's (plots/data/h100/04_convolution.csv)")
    row = fp.csv_row("cupy", 1024, 1024, 20, (0.002, 0.001, 0.003), 3000.0, 0.02)
    check(row["gbs"] == "1048.58" and row["pct_of_copy"] == "34.9525" and row["ratio"] == "0.1"
          and row["checked"] == 1022 * 1022, "csv_row: 2 MiB in 2 us = 1048.58 GB/s, 34.95% of 3000, 0.1x NPP")
    cpu = fp.csv_row("opencv_cpu", 1024, 1024, 20, (0.2, 0.1, 0.3), 3000.0, None)
    check(cpu["pct_of_copy"] == "" and cpu["ratio"] == "", "csv_row: no % of the GPU's memcpy for the CPU peer")
    out = os.path.join(tmp, "peers.csv")
    run = subprocess.run([sys.executable, os.path.join(root, "peers/filter_peers.py"), "--out", out, "--tool", tool,
                          "--lab-csv", lab, "--reps", "2", "--warmup", "0"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    print(run.stdout.rstrip())
    if run.returncode == 77:
        print("skip: no peer here (OpenCV and CuPy missing): end-to-end CSV not written")
        return
    check(run.returncode == 0, f"filter_peers.py --lab-csv (quick): exit {run.returncode}")
    meta, rows = fp.read_lab(out), None
    with open(out) as f:
        lines = [line.strip() for line in f if not line.startswith("#")]
    rows = [dict(zip(lines[0].split(","), line.split(","))) for line in lines[1:]]
    check(lines[0].split(",") == fp.FIELDS and len(rows) >= 2, f"{len(rows)} rows in the lab's columns")
    check(all(r["experiment"] == "sizes" and r["variant"] in ("opencv_cpu", "cupy") for r in rows),
          "every row: experiment sizes, variant opencv_cpu or cupy")
    check([r["param"] for r in rows if r["variant"] == "opencv_cpu"] in ([], ["1024", "1029"]),
          "the lab's --quick sizes (1024^2, 1029 x 525), from the lab CSV's quick=1")
    check(all(r["ratio"] and float(r["ratio"]) > 0 for r in rows), "ratio = time / NPP's time of the lab CSV")
    check(meta[0].get("seed") == "20261121", "the seed comes from the lab CSV")


def usage(tool, tmp):
    script = os.path.join(root, "peers/filter_peers.py")
    for args, word in ((["--out", os.path.join(tmp, "x.csv")], "--tool"),
                       (["--out", "/no/such/dir/x.csv", "--tool", tool], "--out"),
                       (["--out", os.path.join(tmp, "x.csv"), "--tool", tool, "--peers", "npp"], "--peers"),
                       (["--out", os.path.join(tmp, "x.csv"), "--tool", "/nonexistent"], "--tool")):
        run = subprocess.run([sys.executable, script] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
        check(run.returncode == 2 and word in run.stdout, f"usage error {args[-2:]}: exit 2 naming {word}")


def main():
    if len(sys.argv) != 2:
        print("usage: filter_peers_test.py CONV_PICTURES")
        return 2
    tool = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        reference_matches_c(tool, tmp)
        opencv_matches(tool, tmp)
        csv_written(tool, tmp)
        usage(tool, tmp)
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Cross-check Lab 01's in-program memory metrics with Nsight Compute, where ncu may run.

usage: plots/ncu_check.py LAB_EXE OUT_CSV [--ncu PATH] [--tolerance PCT] [LAB ARGS...]

Runs `LAB_EXE --quick --once` (plus LAB ARGS) under ncu, which reads, for every timed kernel
(the count_ twins and the RNG initialisation are filtered out):
    l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum   warp-level global load requests
    l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum    32-byte sectors those requests touched
With --once the lab launches each timed kernel exactly once, in the order of its CSV rows, so ncu's
kernels and the lab's rows pair up one to one (the memcpy ceiling row has no kernel).
Writes OUT_CSV in the lab's schema with requests and sectors_per_request taken from ncu, prints
lab vs ncu per row, and exits 1 if any row differs by more than the tolerance (default 1%).
Needs profiler permission (ERR_NVGPUCTRPERM otherwise); the lab itself does not.
"""
import csv
import os
import subprocess
import sys
import tempfile

METRICS = ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
TIMED_KERNELS = "regex:^(coalesced|semi_coalesced|non_coalesced|stream_[a-z0-9_]+)$"


def number(text):
    return float(text.replace(",", ""))


def read_lab_csv(path):
    with open(path) as f:
        lines = f.read().splitlines()
    meta = [line for line in lines if line.startswith("#")]
    rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    return meta, rows


def read_ncu_csv(path):
    with open(path) as f:
        lines = [line for line in f.read().splitlines() if line.startswith('"')]
    kernels = []
    for row in csv.DictReader(lines):
        if not row.get("ID", "").isdigit():
            continue  # the units row
        kernels.append((int(row["ID"]), row["Kernel Name"], number(row[METRICS[0]]), number(row[METRICS[1]])))
    return [k[1:] for k in sorted(kernels)]


def parse_args(argv):
    """LAB_EXE OUT_CSV [--ncu PATH] [--tolerance PCT] [LAB ARGS...] -> (positional args, ncu, tolerance)."""
    args, ncu, tolerance = [], "ncu", 1.0
    it = iter(argv[1:])
    for a in it:
        if a == "--ncu":
            ncu = next(it)
        elif a == "--tolerance":
            tolerance = float(next(it))
        else:
            args.append(a)
    return args, ncu, tolerance


def main(argv):
    args, ncu, tolerance = parse_args(argv)
    if len(args) < 2:
        print(__doc__)
        return 2
    lab, out, extra = args[0], args[1], args[2:]
    with tempfile.TemporaryDirectory() as tmp:
        lab_csv, ncu_csv = os.path.join(tmp, "lab.csv"), os.path.join(tmp, "ncu.csv")
        cmd = [ncu, "--metrics", ",".join(METRICS), "--csv", "--page", "raw",
               "--kernel-name-base", "function", "--kernel-name", TIMED_KERNELS,
               "--log-file", ncu_csv, lab, "--quick", "--once", "--csv", lab_csv] + extra
        print("running:", " ".join(cmd), flush=True)
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if run.returncode != 0 or not os.path.exists(ncu_csv):
            print(run.stdout[-4000:])
            print(f"ncu run failed (exit {run.returncode})")
            return 1
        meta, rows = read_lab_csv(lab_csv)
        kernels = read_ncu_csv(ncu_csv)
    rows = [r for r in rows if r["experiment"] != "ceiling"]
    if len(rows) != len(kernels):
        print(f"cannot pair rows: the lab wrote {len(rows)} kernel rows, ncu profiled {len(kernels)} kernels")
        return 1
    worst, bad = 0.0, 0
    print(f"{'experiment':10} {'variant':13} {'size':>9} {'param':>6} {'kernel':20} "
          f"{'lab req':>10} {'ncu req':>10} {'lab sect/rq':>11} {'ncu sect/rq':>11} {'diff %':>7}")
    for row, (name, requests, sectors) in zip(rows, kernels):
        lab_spr, ncu_spr = float(row["sectors_per_request"]), sectors / requests
        diff = 100.0 * abs(lab_spr - ncu_spr) / ncu_spr
        worst = max(worst, diff)
        flag = "" if diff <= tolerance else "  <-- differs"
        bad += diff > tolerance
        print(f"{row['experiment']:10} {row['variant']:13} {row['size']:>9} {row['param']:>6} {name:20} "
              f"{float(row['requests']):10.0f} {requests:10.0f} {lab_spr:11.3f} {ncu_spr:11.3f} {diff:7.3f}{flag}")
        for key in row:
            if key not in ("lab", "experiment", "variant", "size", "param", "bytes", "working_set_bytes", "checked"):
                row[key] = ""
        row["requests"], row["sectors_per_request"] = f"{requests:.0f}", f"{ncu_spr:.6g}"
    with open(out, "w", newline="") as f:
        for line in meta:
            f.write(line + "\n")
        f.write("# source=ncu " + " ".join(METRICS) + " (timings not measured)\n")
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} kernels: largest difference lab vs ncu {worst:.3f}% (tolerance {tolerance}%)")
    print(f"wrote {out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

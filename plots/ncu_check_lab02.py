#!/usr/bin/env python3
"""Cross-check Lab 02's in-program warp execution efficiency with Nsight Compute.

usage: plots/ncu_check_lab02.py LAB_EXE OUT_CSV [--ncu PATH] [LAB ARGS...]

Runs `LAB_EXE --quick --once` (plus LAB ARGS) under ncu, which reads, for every timed kernel (the
count_ twins and CUB's sort kernels are filtered out):
    smsp__thread_inst_executed_per_inst_executed.ratio   threads per executed instruction (0..32)
    smsp__sass_average_branch_targets_threads_uniform.pct branches whose threads all went one way
With --once each timed kernel runs once, in the order of the lab's CSV rows (the ceiling and the
radix_sort rows have no kernel of their own here), so kernels and rows pair up one to one.
Prints, per row, the lab's efficiency (lanes active per marked unit of work), its expected value,
ncu's ratio / 32 in percent, and the difference in points; writes OUT_CSV with one row per kernel.
ncu counts every instruction (loop, address and compare instructions, which run with all lanes,
included); the lab counts only the marked units, so the two differ where those are a large share
of a kernel: the handout lists and explains the differences. Exit 1 only when the run fails or
rows cannot be paired. Needs profiler permission (ERR_NVGPUCTRPERM otherwise).
"""
import csv
import os
import subprocess
import sys
import tempfile

METRICS = ("smsp__thread_inst_executed_per_inst_executed.ratio",
           "smsp__sass_average_branch_targets_threads_uniform.pct")
TIMED_KERNELS = ("regex:^(warp_no_divergence|warp_divergence|paths_by_lanes|paths_by_warps|"
                 "data_branch|pred_uniform|pred_divergent|branch_uniform|branch_divergent)$")


def number(text):
    return float(text.replace(",", ""))


def main(argv):
    args, ncu = [], "ncu"
    it = iter(argv[1:])
    for a in it:
        if a == "--ncu":
            ncu = next(it)
        else:
            args.append(a)
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
        with open(lab_csv) as f:
            rows = [r for r in csv.DictReader(l for l in f if not l.startswith("#"))
                    if r["experiment"] != "ceiling" and r["variant"] != "radix_sort"]
        with open(ncu_csv) as f:
            lines = [l for l in f.read().splitlines() if l.startswith('"')]
        kernels = sorted((int(r["ID"]), r["Kernel Name"], number(r[METRICS[0]]), r[METRICS[1]])
                         for r in csv.DictReader(lines) if r.get("ID", "").isdigit())
    if len(rows) != len(kernels):
        print(f"cannot pair rows: the lab wrote {len(rows)} kernel rows, ncu profiled {len(kernels)} kernels")
        return 1
    fields = ["experiment", "variant", "size", "param", "kernel", "lab_efficiency", "expected_efficiency",
              "ncu_efficiency", "difference_points", "ncu_branch_uniform_pct", "lab_divergent_branch_fraction"]
    out_rows, worst = [], 0.0
    print(f"{'experiment':12} {'variant':18} {'size':>8} {'param':>5} {'lab %':>7} {'expect %':>8} "
          f"{'ncu %':>7} {'diff':>6} {'ncu uniform br %':>16}")
    for row, (_, name, ratio, uniform) in zip(rows, kernels):
        lab_eff, ncu_eff = float(row["warp_exec_efficiency"]), 100.0 * ratio / 32.0
        diff = lab_eff - ncu_eff
        worst = max(worst, abs(diff))
        print(f"{row['experiment']:12} {row['variant']:18} {row['size']:>8} {row['param']:>5} {lab_eff:7.2f} "
              f"{float(row['expected_warp_exec_efficiency']):8.2f} {ncu_eff:7.2f} {diff:6.2f} {uniform:>16}")
        out_rows.append(dict(zip(fields, [row["experiment"], row["variant"], row["size"], row["param"], name,
                                          f"{lab_eff:.4f}", row["expected_warp_exec_efficiency"], f"{ncu_eff:.4f}",
                                          f"{diff:.4f}", uniform.replace(",", ""),
                                          row["divergent_branch_fraction"]])))
    with open(out, "w", newline="") as f:
        f.write("# source=ncu " + " ".join(METRICS) + " on " + os.path.basename(lab) + " --quick --once\n")
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(out_rows)
    print(f"{len(out_rows)} kernels: largest difference lab vs ncu {worst:.2f} points")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Cross-check Lab 05's in-program load counts (requests, sectors per request) with Nsight Compute.

usage: plots/ncu_check_lab05.py HAAR_EXE OUT_CSV [--ncu PATH] [--tolerance PCT] [HAAR ARGS...]

Runs `HAAR_EXE --quick --once --only paper,sizes` (or the HAAR ARGS given) under ncu, profiling
only the counting twins (kernels named count_*): they issue exactly the global loads of the timed
kernels (the counting adds warp votes and atomics, no loads), and each measured row of the lab
launches its twins once, in the order of the CSV rows. A row of a Haar rung is several launches
(a pass per direction per level, or a launch per level), so consecutive twins are grouped until
their requests add up to the row's in-program count; ncu's sectors of the group then give its
sectors per request. Exits 1 if a row cannot be matched or differs by more than the tolerance
(default 1%). Needs profiler permission (ERR_NVGPUCTRPERM otherwise); the lab itself does not.
"""
import csv
import os
import subprocess
import sys
import tempfile

from ncu_check import METRICS, number, parse_args  # Lab 01's check: the same metrics and options


def main(argv):
    args, ncu, tolerance = parse_args(argv)
    if len(args) < 2:
        print(__doc__)
        return 2
    lab, out, extra = args[0], args[1], args[2:] or ["--only", "paper,sizes"]
    with tempfile.TemporaryDirectory() as tmp:
        lab_csv, ncu_csv = os.path.join(tmp, "lab.csv"), os.path.join(tmp, "ncu.csv")
        cmd = [ncu, "--metrics", ",".join(METRICS), "--csv", "--page", "raw", "--kernel-name-base", "function",
               "--kernel-name", "regex:^count_", "--log-file", ncu_csv, lab, "--quick", "--once", "--csv", lab_csv] + extra
        print("running:", " ".join(cmd), flush=True)
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if run.returncode != 0 or not os.path.exists(ncu_csv):
            print(run.stdout[-4000:])
            print(f"ncu run failed (exit {run.returncode})")
            return 1
        with open(lab_csv) as f:
            lines = f.read().splitlines()
        rows = [r for r in csv.DictReader(l for l in lines if not l.startswith("#")) if r["requests"]]
        with open(ncu_csv) as f:
            ncu_lines = [l for l in f.read().splitlines() if l.startswith('"')]
        kernels = sorted((int(r["ID"]), r["Kernel Name"], number(r[METRICS[0]]), number(r[METRICS[1]]))
                         for r in csv.DictReader(ncu_lines) if r.get("ID", "").isdigit())
    k, worst, bad, out_rows = 0, 0.0, 0, []
    print(f"{'experiment':22} {'variant':16} {'size':>9} {'L':>3} {'launches':>8} {'requests':>10} "
          f"{'lab sect/rq':>11} {'ncu sect/rq':>11} {'diff %':>7}")
    for row in rows:
        want, got_req, got_sec, n = float(row["requests"]), 0.0, 0.0, 0
        while k < len(kernels) and got_req < want:
            got_req += kernels[k][2]
            got_sec += kernels[k][3]
            k, n = k + 1, n + 1
        if got_req != want:
            print(f"cannot match row {row['experiment']}/{row['variant']}: lab {want:.0f} requests, "
                  f"ncu {got_req:.0f} over {n} launches")
            return 1
        lab_spr, ncu_spr = float(row["sectors_per_request"]), got_sec / got_req
        diff = 100.0 * abs(lab_spr - ncu_spr) / ncu_spr
        worst = max(worst, diff)
        bad += diff > tolerance
        print(f"{row['experiment']:22} {row['variant']:16} {row['size']:>9} {row['param']:>3} {n:8d} {want:10.0f} "
              f"{lab_spr:11.3f} {ncu_spr:11.3f} {diff:7.3f}{'  <-- differs' if diff > tolerance else ''}")
        out_rows.append({"experiment": row["experiment"], "variant": row["variant"], "size": row["size"],
                         "levels": row["param"], "launches": n, "requests": f"{want:.0f}",
                         "lab_sectors_per_request": row["sectors_per_request"],
                         "ncu_sectors_per_request": f"{ncu_spr:.6g}", "diff_pct": f"{diff:.4f}"})
    if k != len(kernels):
        print(f"ncu profiled {len(kernels) - k} twin launches that no row accounts for")
        return 1
    with open(out, "w", newline="") as f:
        f.write("# source=ncu " + " ".join(METRICS) + " on the count_ twins; lab = in-program counter\n")
        w = csv.DictWriter(f, fieldnames=list(out_rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(out_rows)
    print(f"{len(out_rows)} rows ({k} launches): requests equal; largest sectors/request difference "
          f"{worst:.3f}% (tolerance {tolerance}%)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

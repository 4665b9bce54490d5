#!/usr/bin/env python3
"""Cross-check Lab 03's in-program occupancy and SM efficiency with Nsight Compute.

usage: plots/ncu_check_lab03.py LAB_EXE OUT_CSV [--ncu PATH] [LAB ARGS...]

Runs `LAB_EXE --once` (the full sizes; LAB ARGS may add --quick or --only seed) under ncu. With --once every
row of the lab launches its kernel twice, in row order: first the launch that writes residency
records (the lab's achieved occupancy and SM efficiency come from it), then the timed launch.
ncu profiles both; the first of each pair is compared with the row:
    sm__maximum_warps_per_active_cycle_pct               theoretical occupancy
    sm__warps_active.avg.pct_of_peak_sustained_active    achieved occupancy
    sm__cycles_active.avg.pct_of_peak_sustained_elapsed  SM efficiency (an SM with >= 1 warp)
    smsp__cycles_active.avg.pct_of_peak_sustained_elapsed the same per sub-partition
Prints each row with the lab's value, ncu's and the difference in points, and writes OUT_CSV.
Exit 1 only when the run fails or rows cannot be paired. Needs profiler permission
(ERR_NVGPUCTRPERM otherwise).
"""
import csv
import os
import subprocess
import sys
import tempfile

METRICS = ("sm__maximum_warps_per_active_cycle_pct",
           "sm__warps_active.avg.pct_of_peak_sustained_active",
           "sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
           "smsp__cycles_active.avg.pct_of_peak_sustained_elapsed")
KERNELS = ("regex:^(seed_vector_add|stream|stream_ilp4|stream_vec4|stream_vec4_ilp4|fma|fma_ilp4|"
           "tail_chunks|regs_[0-9]+)$")
PAIRS = (("theoretical_occupancy", 0), ("achieved_occupancy", 1), ("sm_efficiency", 2), ("smsp_efficiency", 3))


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
               "--kernel-name-base", "function", "--kernel-name", KERNELS,
               "--log-file", ncu_csv, lab, "--once", "--csv", lab_csv] + extra
        print("running:", " ".join(cmd), flush=True)
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if run.returncode != 0 or not os.path.exists(ncu_csv):
            print(run.stdout[-4000:])
            print(f"ncu run failed (exit {run.returncode})")
            return 1
        with open(lab_csv) as f:
            rows = [r for r in csv.DictReader(l for l in f if not l.startswith("#")) if r["experiment"] != "ceiling"]
        with open(ncu_csv) as f:
            lines = [l for l in f.read().splitlines() if l.startswith('"')]
        kernels = sorted((int(r["ID"]), r["Kernel Name"], [number(r[m]) for m in METRICS])
                         for r in csv.DictReader(lines) if r.get("ID", "").isdigit())
    if 2 * len(rows) != len(kernels):
        print(f"cannot pair rows: the lab wrote {len(rows)} rows (2 launches each), ncu profiled {len(kernels)} kernels")
        return 1
    fields = ["experiment", "variant", "size", "param", "kernel"]
    for name, _ in PAIRS:
        fields += [f"lab_{name}", f"ncu_{name}", f"diff_{name}"]
    out_rows, worst = [], {name: (0.0, "") for name, _ in PAIRS}
    print(f"{'experiment':10} {'variant':17} {'size':>8} {'param':>6}  " +
          "  ".join(f"{name[:14]:>14} lab/ncu" for name, _ in PAIRS))
    for k, row in enumerate(rows):
        _, kname, values = kernels[2 * k]
        rec = dict(experiment=row["experiment"], variant=row["variant"], size=row["size"], param=row["param"],
                   kernel=kname)
        cells = []
        for name, m in PAIRS:
            lab_v, ncu_v = float(row[name]), values[m]
            rec[f"lab_{name}"], rec[f"ncu_{name}"], rec[f"diff_{name}"] = f"{lab_v:.3f}", f"{ncu_v:.3f}", f"{lab_v - ncu_v:.3f}"
            label = f"{row['experiment']}/{row['variant']} {row['size']} {row['param']}"
            if abs(lab_v - ncu_v) > abs(worst[name][0]):
                worst[name] = (lab_v - ncu_v, label)
            cells.append(f"{lab_v:10.1f} /{ncu_v:6.1f}")
        print(f"{row['experiment']:10} {row['variant']:17} {row['size']:>8} {row['param']:>6}  " + "  ".join(cells))
        out_rows.append(rec)
    with open(out, "w", newline="") as f:
        f.write("# source=ncu " + " ".join(METRICS) + " on " + os.path.basename(lab) + " --once " +
                " ".join(extra) + "\n")
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(out_rows)
    print(f"{len(out_rows)} rows compared; largest differences (lab - ncu, points):")
    for name, _ in PAIRS:
        print(f"  {name:22} {worst[name][0]:+7.2f}  at {worst[name][1]}")
    for name in ("achieved_occupancy", "sm_efficiency"):
        seed = [r for r in out_rows if r["experiment"] == "seed"]
        over = [r for r in seed if abs(float(r[f"diff_{name}"])) > 5.0]
        print(f"  seed rows with |{name} difference| > 5 points: {len(over)} of {len(seed)}" +
              "".join(f"\n    {r['variant']} {r['size']}: {float(r[f'diff_{name}']):+.2f}" for r in over))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

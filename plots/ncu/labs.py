"""The table: for each lab, what Nsight Compute measures, how the lab runs under it, which kernels
it profiles, which of the lab's rows have a kernel, how rows and kernels pair, and how the two are
compared and reported. One entry per lab (LABS, at the end); the comparisons above it."""
import os
import re

from .budget import BUDGET_METRICS, compare_budget
from .common import (LOAD_METRICS, PairingError, Result, number, pair_by_name, pair_first_of, pair_grouped,
                     pair_in_order, pct_diff)


class Lab:
    def __init__(self, name, exe, metrics, kernels, flags, default_args, keep_row, compare, doc, budget_args=(),
                 budget_keep=None, row_kernel=None):
        self.name = name                  # 01_coalescing: the folder in labs/ and in ncu_<name>.csv
        self.exe = exe                    # the executable's name (the lab is detected from it)
        self.metrics = metrics            # ncu --metrics
        self.kernels = kernels            # ncu --kernel-name (with --kernel-name-base function)
        self.flags = flags                # the lab's flags under ncu, before --csv
        self.default_args = default_args  # the lab's arguments when none are given
        self.keep_row = keep_row          # the lab's CSV rows that have kernels
        self.compare = compare            # (lab, meta, rows, kernels, opts) -> Result
        self.doc = doc                    # one line for --help
        self.budget_args = budget_args    # the lab's arguments under --budget when none are given
        self.budget_keep = budget_keep or _counted  # the rows --budget pairs (default: counted ones)
        self.row_kernel = row_kernel      # --budget: the kernel a row names (budget.pair_repeated), or None

    def budget(self):
        """This lab under --budget: the timed kernels (no count_ twins, no common/ kernels), --once."""
        return Lab(self.name, self.exe, BUDGET_METRICS, "regex:^(?!count_|gl_)", ["--once"], list(self.budget_args),
                   self.budget_keep, compare_budget, "instructions per pixel by pipe against the memory floor's budget",
                   row_kernel=self.row_kernel)


def _no_ceiling(row):
    return row["experiment"] != "ceiling"


def _lab04_launches(row):
    """Lab 04's rows that launch kernels under --budget: every row but the memcpy ceiling and the
    sequential fusion mode's kernel sum (a row added up from the stage rows: no launch of its own).
    The e2e rows launch their kernels between copies: they pair, and the budget leaves them out."""
    return _no_ceiling(row) and not (row["experiment"] == "fusion" and row["variant"].endswith("/sequential/kernels"))


def _counted(row):
    return row["requests"] != ""


# ---- Lab 01: requests and sectors per request of every timed kernel ----

def compare_lab01(lab, meta, rows, kernels, opts):
    """With --once the lab launches each timed kernel once, in the order of its CSV rows (the memcpy
    ceiling row has no kernel; the count_ twins are not profiled). Writes the lab's own schema with
    requests and sectors/request taken from ncu; fails where sectors/request differ."""
    worst, bad, tol = 0.0, 0, opts.tolerance
    pairs = pair_in_order(rows, kernels)
    print(f"{'experiment':10} {'variant':13} {'size':>9} {'param':>6} {'kernel':20} "
          f"{'lab req':>10} {'ncu req':>10} {'lab sect/rq':>11} {'ncu sect/rq':>11} {'diff %':>7}")
    for row, name, values, _ in pairs:
        requests, sectors = number(values[LOAD_METRICS[0]]), number(values[LOAD_METRICS[1]])
        lab_spr, ncu_spr = float(row["sectors_per_request"]), sectors / requests
        diff = pct_diff(lab_spr, ncu_spr)
        worst = max(worst, diff)
        flag = "" if diff <= tol else "  <-- differs"
        bad += diff > tol
        print(f"{row['experiment']:10} {row['variant']:13} {row['size']:>9} {row['param']:>6} {name:20} "
              f"{float(row['requests']):10.0f} {requests:10.0f} {lab_spr:11.3f} {ncu_spr:11.3f} {diff:7.3f}{flag}")
        for key in row:
            if key not in ("lab", "experiment", "variant", "size", "param", "bytes", "working_set_bytes", "checked"):
                row[key] = ""
        row["requests"], row["sectors_per_request"] = f"{requests:.0f}", f"{ncu_spr:.6g}"
    comments = meta + ["# source=ncu " + " ".join(lab.metrics) + " (timings not measured)"]
    summary = [f"{len(rows)} kernels: largest difference lab vs ncu {worst:.3f}% (tolerance {tol}%)"]
    return Result(comments, list(rows[0].keys()), rows, summary, bad > 0)


# ---- Lab 02: warp execution efficiency (reported, never a failure: the handout explains the gaps) ----

LAB02_FIELDS = ["experiment", "variant", "size", "param", "kernel", "lab_efficiency", "expected_efficiency",
                "ncu_efficiency", "difference_points", "ncu_branch_uniform_pct", "lab_divergent_branch_fraction"]


def compare_lab02(lab, meta, rows, kernels, opts):
    """ncu's threads per executed instruction / 32 against the lab's lanes active per marked unit
    of work. ncu counts every instruction (loop, address and compare instructions, which run with
    all lanes, included), the lab only the marked units, so the two differ where those are a large
    share of a kernel: the handout lists and explains the differences. Never a failure."""
    out_rows, worst, pairs = [], 0.0, pair_in_order(rows, kernels)
    print(f"{'experiment':12} {'variant':18} {'size':>8} {'param':>5} {'lab %':>7} {'expect %':>8} "
          f"{'ncu %':>7} {'diff':>6} {'ncu uniform br %':>16}")
    for row, name, values, _ in pairs:
        ratio, uniform = number(values[lab.metrics[0]]), values[lab.metrics[1]]
        lab_eff, ncu_eff = float(row["warp_exec_efficiency"]), 100.0 * ratio / 32.0
        diff = lab_eff - ncu_eff
        worst = max(worst, abs(diff))
        print(f"{row['experiment']:12} {row['variant']:18} {row['size']:>8} {row['param']:>5} {lab_eff:7.2f} "
              f"{float(row['expected_warp_exec_efficiency']):8.2f} {ncu_eff:7.2f} {diff:6.2f} {uniform:>16}")
        out_rows.append(dict(zip(LAB02_FIELDS, [row["experiment"], row["variant"], row["size"], row["param"], name,
                                                f"{lab_eff:.4f}", row["expected_warp_exec_efficiency"],
                                                f"{ncu_eff:.4f}", f"{diff:.4f}", uniform.replace(",", ""),
                                                row["divergent_branch_fraction"]])))
    comments = ["# source=ncu " + " ".join(lab.metrics) + " on " + opts.exe_name + " --quick --once"]
    summary = [f"{len(out_rows)} kernels: largest difference lab vs ncu {worst:.2f} points"]
    return Result(comments, LAB02_FIELDS, out_rows, summary)


# ---- Lab 03: occupancy and SM efficiency of the recording launch of each row ----

LAB03_PAIRS = (("theoretical_occupancy", 0), ("achieved_occupancy", 1), ("sm_efficiency", 2), ("smsp_efficiency", 3))


def compare_lab03(lab, meta, rows, kernels, opts):
    """With --once each row launches twice: the recording launch (the lab's figures) first."""
    fields = ["experiment", "variant", "size", "param", "kernel"]
    for name, _ in LAB03_PAIRS:
        fields += [f"lab_{name}", f"ncu_{name}", f"diff_{name}"]
    out_rows, worst = [], {name: (0.0, "") for name, _ in LAB03_PAIRS}
    pairs = pair_first_of(rows, kernels, 2)
    print(f"{'experiment':10} {'variant':17} {'size':>8} {'param':>6}  " +
          "  ".join(f"{name[:14]:>14} lab/ncu" for name, _ in LAB03_PAIRS))
    for row, kname, values, _ in pairs:
        values = [number(values[m]) for m in lab.metrics]
        rec = dict(experiment=row["experiment"], variant=row["variant"], size=row["size"], param=row["param"],
                   kernel=kname)
        cells = []
        for name, m in LAB03_PAIRS:
            lab_v, ncu_v = float(row[name]), values[m]
            rec[f"lab_{name}"], rec[f"ncu_{name}"], rec[f"diff_{name}"] = f"{lab_v:.3f}", f"{ncu_v:.3f}", f"{lab_v - ncu_v:.3f}"
            label = f"{row['experiment']}/{row['variant']} {row['size']} {row['param']}"
            if abs(lab_v - ncu_v) > abs(worst[name][0]):
                worst[name] = (lab_v - ncu_v, label)
            cells.append(f"{lab_v:10.1f} /{ncu_v:6.1f}")
        print(f"{row['experiment']:10} {row['variant']:17} {row['size']:>8} {row['param']:>6}  " + "  ".join(cells))
        out_rows.append(rec)
    comments = ["# source=ncu " + " ".join(lab.metrics) + " on " + opts.exe_name + " --once " + " ".join(opts.extra)]
    summary = [f"{len(out_rows)} rows compared; largest differences (lab - ncu, points):"]
    for name, _ in LAB03_PAIRS:
        summary.append(f"  {name:22} {worst[name][0]:+7.2f}  at {worst[name][1]}")
    seed = [r for r in out_rows if r["experiment"] == "seed"]
    for name in ("achieved_occupancy", "sm_efficiency"):
        over = [r for r in seed if abs(float(r[f"diff_{name}"])) > 5.0]
        summary.append(f"  seed rows with |{name} difference| > 5 points: {len(over)} of {len(seed)}" +
                       "".join(f"\n    {r['variant']} {r['size']}: {float(r[f'diff_{name}']):+.2f}" for r in over))
    return Result(comments, fields, out_rows, summary)


# ---- Lab 04: requests and sectors per request of every ladder rung, one twin per row ----

LAB04_FIELDS = ["experiment", "variant", "size", "param", "kernel", "lab_requests", "ncu_requests",
                "diff_requests_pct", "lab_sectors_per_request", "ncu_sectors_per_request", "diff_pct"]


def lab04_row_key(row):
    """The rung's kernel as the lab names it: 'smooth/CM_CF12_Vec' -> 'cm_cf12_vec'; the seed's
    one-pixel rungs GM, CM, SM are the kernels *_cf1."""
    key = row["variant"].split("/")[-1].lower()
    return key + "_cf1" if re.fullmatch(r"[gcs]m", key) else key


def compare_lab04(lab, meta, rows, kernels, opts):
    """Each rung's count_ twin runs once per row (--once); only the executable's CSV and ncu's
    kernel names are read, no source. Requests and sectors/request must both agree."""
    pairs, note = pair_by_name(rows, kernels, lab04_row_key)
    worst_req, worst_spr, bad, tol, out_rows = (0.0, ""), (0.0, ""), 0, opts.tolerance, []
    print(f"{'experiment':10} {'variant':18} {'size':>9} {'param':>6} {'kernel':24} {'lab req':>10} {'ncu req':>10} "
          f"{'req %':>7} {'lab sect/rq':>11} {'ncu sect/rq':>11} {'diff %':>7}")
    for row, name, values, _ in pairs:
        requests, sectors = number(values[LOAD_METRICS[0]]), number(values[LOAD_METRICS[1]])
        lab_req, lab_spr, ncu_spr = float(row["requests"]), float(row["sectors_per_request"]), sectors / requests
        d_req, d_spr = pct_diff(lab_req, requests), pct_diff(lab_spr, ncu_spr)
        label = f"{row['experiment']}/{row['variant']}"
        worst_req, worst_spr = max(worst_req, (d_req, label)), max(worst_spr, (d_spr, label))
        bad += max(d_req, d_spr) > tol
        print(f"{row['experiment']:10} {row['variant']:18} {row['size']:>9} {row['param']:>6} {name[:24]:24} "
              f"{lab_req:10.0f} {requests:10.0f} {d_req:7.3f} {lab_spr:11.3f} {ncu_spr:11.3f} {d_spr:7.3f}"
              f"{'  <-- differs' if max(d_req, d_spr) > tol else ''}")
        out_rows.append(dict(zip(LAB04_FIELDS, [row["experiment"], row["variant"], row["size"], row["param"], name,
                                                f"{lab_req:.0f}", f"{requests:.0f}", f"{d_req:.4f}",
                                                row["sectors_per_request"], f"{ncu_spr:.6g}", f"{d_spr:.4f}"])))
    comments = ["# source=ncu " + " ".join(lab.metrics) + " on " + opts.exe_name + " " +
                " ".join(lab.flags + opts.extra) + f"; kernels {opts.kernels}; lab = in-program counter"]
    summary = [f"{len(out_rows)} kernels ({note}): largest difference lab vs ncu {worst_req[0]:.3f}% in requests "
               f"({worst_req[1]}), {worst_spr[0]:.3f}% in sectors/request ({worst_spr[1]}) (tolerance {tol}%)",
               f"{bad} of {len(out_rows)} kernels differ by more than the tolerance"]
    return Result(comments, LAB04_FIELDS, out_rows, summary, bad > 0)


# ---- Lab 05: requests and sectors per request, the count_ twins grouped per row ----

def compare_lab05(lab, meta, rows, kernels, opts):
    """The count_ twins issue exactly the global loads of the timed kernels (the counting adds warp
    votes and atomics, no loads). A row of a Haar rung is several launches (a pass per direction
    per level, or a launch per level): its twins are grouped until their requests add up to the
    row's count; ncu's sectors of the group give its sectors/request."""
    worst, bad, tol, out_rows = 0.0, 0, opts.tolerance, []
    pairs = pair_grouped(rows, kernels, LOAD_METRICS[0])  # a generator: rows print up to one that fails
    print(f"{'experiment':22} {'variant':16} {'size':>9} {'L':>3} {'launches':>8} {'requests':>10} "
          f"{'lab sect/rq':>11} {'ncu sect/rq':>11} {'diff %':>7}")
    for row, _, sums, n in pairs:
        want = float(row["requests"])
        lab_spr, ncu_spr = float(row["sectors_per_request"]), sums[LOAD_METRICS[1]] / sums[LOAD_METRICS[0]]
        diff = pct_diff(lab_spr, ncu_spr)
        worst = max(worst, diff)
        bad += diff > tol
        print(f"{row['experiment']:22} {row['variant']:16} {row['size']:>9} {row['param']:>3} {n:8d} {want:10.0f} "
              f"{lab_spr:11.3f} {ncu_spr:11.3f} {diff:7.3f}{'  <-- differs' if diff > tol else ''}")
        out_rows.append({"experiment": row["experiment"], "variant": row["variant"], "size": row["size"],
                         "levels": row["param"], "launches": n, "requests": f"{want:.0f}",
                         "lab_sectors_per_request": row["sectors_per_request"],
                         "ncu_sectors_per_request": f"{ncu_spr:.6g}", "diff_pct": f"{diff:.4f}"})
    comments = ["# source=ncu " + " ".join(lab.metrics) + " on the count_ twins; lab = in-program counter"]
    summary = [f"{len(out_rows)} rows ({len(kernels)} launches): requests equal; largest sectors/request difference "
               f"{worst:.3f}% (tolerance {tol}%)"]
    return Result(comments, list(out_rows[0].keys()), out_rows, summary, bad > 0)


LABS = {lab.name[:2]: lab for lab in (
    Lab("01_coalescing", "coalescing", LOAD_METRICS,
        "regex:^(coalesced|semi_coalesced|non_coalesced|stream_[a-z0-9_]+)$", ["--quick", "--once"], [],
        _no_ceiling, compare_lab01,
        "requests and sectors/request of every timed kernel, one per row in row order; fails over the tolerance"),
    Lab("02_divergence", "divergence",
        ("smsp__thread_inst_executed_per_inst_executed.ratio", "smsp__sass_average_branch_targets_threads_uniform.pct"),
        "regex:^(warp_no_divergence|warp_divergence|paths_by_lanes|paths_by_warps|"
        "data_branch|pred_uniform|pred_divergent|branch_uniform|branch_divergent)$", ["--quick", "--once"], [],
        lambda r: _no_ceiling(r) and r["variant"] != "radix_sort", compare_lab02,
        "warp execution efficiency (threads per instruction / 32) of every timed kernel; differences reported"),
    Lab("03_occupancy", "occupancy",
        ("sm__maximum_warps_per_active_cycle_pct", "sm__warps_active.avg.pct_of_peak_sustained_active",
         "sm__cycles_active.avg.pct_of_peak_sustained_elapsed", "smsp__cycles_active.avg.pct_of_peak_sustained_elapsed"),
        "regex:^(seed_vector_add|stream|stream_ilp4|stream_vec4|stream_vec4_ilp4|fma|fma_ilp4|tail_chunks|regs_[0-9]+)$",
        ["--once"], ["--only", "seed,limits,latency,tail"], _no_ceiling, compare_lab03,
        "theoretical and achieved occupancy, SM efficiency (full sizes): the first of each row's two launches"),
    Lab("04_convolution", "convolution", LOAD_METRICS, "regex:^count_", ["--quick", "--once"],
        ["--only", "ladder,beyond"], _counted, compare_lab04,
        "requests and sectors/request of every ladder rung's count_ twin, paired by name; fails over the tolerance",
        ["--only", "sizes,median,fusion"], _lab04_launches, lab04_row_key),
    Lab("05_haar", "haar", LOAD_METRICS, "regex:^count_", ["--quick", "--once"], ["--only", "paper,sizes"],
        _counted, compare_lab05,
        "requests and sectors/request of the count_ twins, grouped per row; fails over the tolerance",
        ["--only", "sizes,single_pass,single_pass_rows", "--size", "16384"]),
)}


def find_lab(text):
    """'04', '04_convolution', 'convolution' or a path to the executable -> the lab's entry, or None."""
    base = os.path.basename(text.rstrip("/"))
    for lab in LABS.values():
        if base in (lab.name[:2], lab.name, lab.exe):
            return lab
    return None

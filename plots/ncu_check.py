#!/usr/bin/env python3
"""Cross-check a lab's in-program metrics with Nsight Compute: one tool for every lab.

usage: plots/ncu_check.py [LAB] LAB_EXE OUT_CSV [options] [LAB ARGS...]
       plots/ncu_check.py LAB OUT_CSV --replay NCU_CSV LAB_CSV [options]
       plots/ncu_check.py --budget LAB LAB_EXE budget_LAB.csv [LAB ARGS...]   (the same with --replay)

LAB is 01..05 (or 01_coalescing, ..., or the executable's name); without it the lab is told by
LAB_EXE's name. The tool runs LAB_EXE under ncu with the lab's flags (plus LAB ARGS, or the lab's
default ones), profiling only the lab's kernels, reads the lab's CSV and ncu's raw page, pairs the
lab's rows with ncu's kernels by the lab's rule, prints lab vs ncu per row, writes OUT_CSV and a
summary. Per lab (plots/ncu/labs.py holds the table):
{labs}
options:
  --ncu PATH           the ncu executable (default: ncu on the PATH)
  --tolerance PCT      largest difference allowed where the lab fails on one (default 1)
  --kernel-name FILTER ncu's kernel filter instead of the lab's (e.g. Lab 04's timed kernels:
                       'regex:^(gm|cm|sm|w16)'; names are compared without a count_ prefix)
  --replay NCU_CSV LAB_CSV  run nothing: read a saved ncu raw CSV and the lab's CSV (no GPU needed)
  --dry-run            print the ncu command line and exit
  --copy-from LAB_CSV  with --budget: the memcpy bandwidth (copy_gbs) of that CSV, the lab's timed
                       run, instead of the --once run's (one launch under the profiler)
  --budget             instead of the cross-check: ncu's instructions per pipe of the timed kernels
                       (not the count_ twins) of every row with a kernel, per pixel, against what
                       the GPU allows at its memory floor (plots/ncu/budget.py says how); the lab
                       runs with --once and the lab's budget arguments (05: --only sizes,
                       single_pass,single_pass_rows --size 16384), ncu with --clock-control none
Exit 0 when every row agrees (or the lab only reports), 1 when the run fails, rows and kernels
cannot be paired or a row differs by more than the tolerance, 2 on a usage error. ncu needs
profiler permission (ERR_NVGPUCTRPERM otherwise); the labs themselves do not.
"""
import os
import subprocess
import sys
import tempfile

from ncu.budget import BUDGET_METRICS, compare_budget
from ncu.common import PairingError, read_lab_csv, read_ncu_csv, write_csv
from ncu.labs import LABS, find_lab


class Options:
    ncu, tolerance, kernels, replay, dry_run, budget = "ncu", 1.0, None, None, False, False
    exe_name, extra, copy_from = "", [], None


def usage():
    return __doc__.format(labs="\n".join(f"  {lab.name:15} {lab.exe} {' '.join(lab.flags + lab.default_args)}: "
                                         f"{lab.doc}" for lab in LABS.values()))


def usage_error(message):
    print(f"ncu_check.py: {message} (--help for the usage)", file=sys.stderr)
    return 2


def parse_args(argv):
    """-> (Options, positional and lab arguments in order); raises ValueError naming a bad option."""
    opts, args = Options(), []
    it = iter(argv)
    takes = {"--ncu": 1, "--tolerance": 1, "--kernel-name": 1, "--replay": 2, "--copy-from": 1}
    for a in it:
        if a in takes:
            values = [next(it, None) for _ in range(takes[a])]
            if None in values:
                raise ValueError(f"{a} needs {takes[a]} value{'s' if takes[a] > 1 else ''}")
            if a == "--ncu":
                opts.ncu = values[0]
            elif a == "--kernel-name":
                opts.kernels = values[0]
            elif a == "--replay":
                opts.replay = values
            elif a == "--copy-from":
                opts.copy_from = values[0]
            else:
                try:
                    opts.tolerance = float(values[0])
                except ValueError:
                    raise ValueError(f"--tolerance '{values[0]}': a number of percent is allowed")
        elif a == "--dry-run":
            opts.dry_run = True
        elif a == "--budget":
            opts.budget = True
        else:
            args.append(a)
    return opts, args


def split_positionals(opts, args):
    """-> (lab entry, exe or None, out, lab args); raises ValueError."""
    named = args and any(args[0] in (lab.name[:2], lab.name) for lab in LABS.values())
    lab = find_lab(args[0]) if named else None
    if named:
        args = args[1:]
    need = 1 if opts.replay else 2
    if len(args) < need:
        raise ValueError("LAB OUT_CSV with --replay, else [LAB] LAB_EXE OUT_CSV, are needed")
    exe = None if opts.replay else args[0]
    out, extra = args[need - 1], args[need:]
    if lab is None:
        if exe is None:
            raise ValueError("--replay needs LAB first (" + ", ".join(LABS) + ")")
        lab = find_lab(exe)
        if lab is None:
            raise ValueError(f"cannot tell the lab from '{exe}': give LAB first (" + ", ".join(LABS) + ")")
    return lab, exe, out, extra


def ncu_command(lab, opts, exe, ncu_csv, lab_csv):
    clock = ["--clock-control", "none"] if opts.budget else []
    return ([opts.ncu, "--metrics", ",".join(lab.metrics), "--csv", "--page", "raw"] + clock +
            ["--kernel-name-base", "function", "--kernel-name", opts.kernels,
             "--log-file", ncu_csv, exe] + lab.flags + ["--csv", lab_csv] + opts.extra)


def run_under_ncu(lab, opts, exe, tmp):
    """-> (ncu CSV, lab CSV) paths, or None when the run failed (its output tail printed)."""
    lab_csv, ncu_csv = os.path.join(tmp, "lab.csv"), os.path.join(tmp, "ncu.csv")
    cmd = ncu_command(lab, opts, exe, ncu_csv, lab_csv)
    print("running:", " ".join(cmd), flush=True)
    if opts.dry_run:
        return None
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if run.returncode != 0 or not os.path.exists(ncu_csv):
        print(run.stdout[-4000:])
        print(f"ncu run failed (exit {run.returncode})")
        return None
    return ncu_csv, lab_csv


def check(lab, opts, ncu_csv, lab_csv, out):
    meta, rows = read_lab_csv(lab_csv)
    if opts.copy_from:  # --budget: the timed run's memcpy, not the profiled one's
        meta = [m for m in meta if not m.startswith("# copy_gbs=")] + \
               [m for m in read_lab_csv(opts.copy_from)[0] if m.startswith("# copy_gbs=")]
    kernels = read_ncu_csv(ncu_csv, lab.metrics)
    rows = [r for r in rows if lab.keep_row(r)]
    try:
        if not rows:
            raise PairingError(f"cannot pair rows: the lab wrote no rows with kernels, ncu profiled {len(kernels)} kernels")
        result = lab.compare(lab, meta, rows, kernels, opts)
    except PairingError as e:
        print(e)
        return 1
    write_csv(out, result.comments, result.fields, result.rows)
    for line in result.summary:
        print(line)
    print(f"wrote {out}")
    return 1 if result.failed else 0


def main(argv):
    if any(a in ("-h", "--help") for a in argv[1:]):
        print(usage())
        return 0
    try:
        opts, args = parse_args(argv[1:])
        lab, exe, out, extra = split_positionals(opts, args)
    except ValueError as e:
        return usage_error(e)
    if opts.budget:  # the same lab, measured for its instruction budget
        lab = lab.budget()
    opts.kernels = opts.kernels or lab.kernels
    opts.extra = extra if extra or opts.replay else list(lab.default_args)
    opts.exe_name = os.path.basename(exe) if exe else lab.exe
    if opts.replay:
        for path in opts.replay + ([opts.copy_from] if opts.copy_from else []):
            if not os.path.isfile(path):
                return usage_error(f"--replay '{path}': no such file")
        return check(lab, opts, opts.replay[0], opts.replay[1], out)
    with tempfile.TemporaryDirectory() as tmp:
        paths = run_under_ncu(lab, opts, exe, tmp)
        if paths is None:
            return 0 if opts.dry_run else 1
        return check(lab, opts, *paths, out)


if __name__ == "__main__":
    sys.exit(main(sys.argv))

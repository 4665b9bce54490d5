#!/usr/bin/env python3
"""ncu_check_test.py: plots/ncu_check.py without a GPU. Replays the fixtures in tests/fixtures/ncu/
(ncu's raw CSV layout with the committed H100 values, and the labs' CSV rows) and checks the
differences it computes, the pairing rules, the exit codes (a difference over the tolerance, rows
that cannot be paired) and, through a fake ncu, the command line it would run."""
import csv
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "plots", "ncu_check.py")
FIX = os.path.join(HERE, "fixtures", "ncu")
failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += not ok


def tool(*args):
    run = subprocess.run([sys.executable, TOOL] + list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return run.returncode, run.stdout


def replay(tmp, lab, ncu_csv=None, *options):
    """Replay lab's fixtures (or another ncu CSV) -> (exit code, stdout, output rows)."""
    out = os.path.join(tmp, f"out_{lab}.csv")
    if os.path.exists(out):
        os.remove(out)
    rc, text = tool(lab, out, "--replay", ncu_csv or os.path.join(FIX, f"{lab}_ncu.csv"),
                    os.path.join(FIX, f"{lab}_lab.csv"), *options)
    rows = []
    if os.path.exists(out):
        with open(out) as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    return rc, text, rows


def edit_ncu(tmp, lab, name, edit):
    """A copy of lab's ncu fixture with edit(fields of a kernel line) -> fields or None (dropped)."""
    path = os.path.join(tmp, name)
    with open(os.path.join(FIX, f"{lab}_ncu.csv")) as f, open(path, "w", newline="") as out:
        w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
        for line in f:
            if not line.startswith('"') or not line[1].isdigit():
                out.write(line)
                continue
            fields = edit(next(csv.reader([line])))
            if fields is not None:
                w.writerow(fields)
    return path


def check_dropped(tmp, lab, launch, message, what):
    """Without ncu's launch number `launch` the rows cannot be paired: exit 1 and `message`."""
    short = edit_ncu(tmp, lab, f"{lab}_short.csv", lambda f: None if f[0] == launch else f)
    rc, text, _ = replay(tmp, lab, short)
    check(rc == 1 and message in text, what)


def row(rows, **want):
    return next(r for r in rows if all(r[k] == v for k, v in want.items()))


def lab01(tmp):
    rc, text, rows = replay(tmp, "01")
    check(rc == 0 and "14 kernels: largest difference lab vs ncu 0.000% (tolerance 1.0%)" in text,
          "01: the committed counts agree, 0.000% on 14 kernels")
    r = row(rows, experiment="offset", param="1")
    check(len(rows) == 14 and r["requests"] == "32768" and r["sectors_per_request"] == "5" and r["median_ms"] == "",
          "01: the lab's schema, ncu's requests and sectors/request, no timings")
    bad = edit_ncu(tmp, "01", "01_bad.csv",  # offset 1: 3% more sectors -> 5.15 per request
                   lambda f: f[:-1] + [f"{round(float(f[-1].replace(',', '')) * 1.03):,}"] if f[0] == "5" else f)
    rc, text, _ = replay(tmp, "01", bad)
    line = next((l for l in text.splitlines() if l.startswith("offset") and "   1 " in l), "")
    check(rc == 1 and line.endswith("2.913  <-- differs") and "largest difference lab vs ncu 2.913%" in text,
          "01: a 2.913% difference over the 1% tolerance fails and is marked")
    rc, text, _ = replay(tmp, "01", bad, "--tolerance", "3")
    check(rc == 0 and "(tolerance 3.0%)" in text, "01: the same within --tolerance 3 passes")
    check_dropped(tmp, "01", "13", "cannot pair rows: the lab wrote 14 kernel rows, ncu profiled 13 kernels",
                  "01: a missing kernel cannot be paired")


def lab02(tmp):
    rc, text, rows = replay(tmp, "02")
    check(rc == 0 and "12 kernels: largest difference lab vs ncu 9.88 points" in text,
          "02: 12 kernels (ceiling and radix_sort left out), largest difference 9.88 points")
    r = row(rows, variant="warp_divergence")
    check(r["lab_efficiency"] == "25.0000" and r["ncu_efficiency"] == "34.8750" and r["difference_points"] == "-9.8750"
          and r["ncu_branch_uniform_pct"] == "58.62", "02: warp_divergence 25% in the lab, 34.875% by ncu")
    r = row(rows, variant="unsorted", param="1")
    check(r["difference_points"] == "-2.5674", "02: data/unsorted p=1: -2.5674 points")


def lab03(tmp):
    rc, text, rows = replay(tmp, "03")
    check(rc == 0 and "  achieved_occupancy       +0.64  at limits/block_size 2162688 64" in text
          and "  sm_efficiency            +3.56  at tail/grid_stride 4325376 264" in text,
          "03: the largest differences of the H100 run (0.64 and 3.56 points)")
    r = row(rows, variant="grid_stride")
    check(r["lab_sm_efficiency"] == "98.167" and r["ncu_sm_efficiency"] == "94.610" and r["diff_sm_efficiency"] == "3.557",
          "03: each row paired with the first of its two launches")
    check_dropped(tmp, "03", "3", "the lab wrote 10 rows (2 launches each), ncu profiled 19 kernels",
                  "03: an odd launch count cannot be paired")


def lab04(tmp):
    rc, text, rows = replay(tmp, "04")
    r, r4 = row(rows, variant="SM"), row(rows, variant="SM_CF4")
    check(rc == 1 and len(rows) == 39 and "2 of 39 kernels differ by more than the tolerance" in text
          and "(paired by kernel name)" in text, "04: 39 rungs paired by name (NPP left out); SM and SM_CF4 fail at 1%")
    check(r["diff_requests_pct"] == "2.7100" and r["diff_pct"] == "1.9100" and r["kernel"] == "count_sm_cf1(conv_args)"
          and r4["diff_requests_pct"] == "0.0000" and r4["diff_pct"] == "1.2000",
          "04: SM 2.71% in requests, 1.91% in sectors/request; SM_CF4 1.2%")
    check(row(rows, variant="W16_DP4A_R8")["diff_pct"] == "0.0000", "04: W16_DP4A_R8 agrees")
    rc, _, _ = replay(tmp, "04", None, "--tolerance", "3")
    check(rc == 0, "04: all within --tolerance 3")
    swapped = os.path.join(tmp, "04_swapped.csv")  # SM's twin launched after SM_CF2's
    with open(os.path.join(FIX, "04_ncu.csv")) as f:
        lines = f.read().splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith('"22",'))
    lines[i], lines[i + 1] = lines[i + 1].replace('"23",', '"22",', 1), lines[i].replace('"22",', '"23",', 1)
    with open(swapped, "w") as f:
        f.write("\n".join(lines) + "\n")
    rc, text, rows = replay(tmp, "04", swapped)
    check("(paired by kernel name)" in text and row(rows, variant="SM")["diff_requests_pct"] == "2.7100"
          and row(rows, variant="SM_CF2")["diff_pct"] == "0.0000", "04: launches out of row order still pair by name")
    templated = edit_ncu(tmp, "04", "04_templated.csv",
                         lambda f: f[:4] + [f"void conv_rung<(int){f[0]}>(conv_args)"] + f[5:])
    rc, text, rows = replay(tmp, "04", templated)
    check("paired by launch order" in text and row(rows, variant="SM")["diff_requests_pct"] == "2.7100",
          "04: names that do not follow the variants pair by launch order")


def lab05(tmp):
    rc, text, rows = replay(tmp, "05")
    check(rc == 0 and "10 rows (54 launches): requests equal; largest sectors/request difference 0.000%" in text,
          "05: 10 rows from 54 twin launches (cpu_reference left out), 0.000%")
    check(row(rows, variant="seed", size="262144")["launches"] == "8"
          and row(rows, variant="single_pass")["launches"] == "1", "05: launches grouped per row by their requests")
    check_dropped(tmp, "05", "3", "cannot match row paper/", "05: a missing twin launch leaves a row unmatched")


def names(tmp):
    """How ncu's kernel names compare with Lab 04's variants."""
    sys.path.insert(0, os.path.join(HERE, "..", "plots"))
    from ncu.common import kernel_key
    from ncu.labs import lab04_row_key
    check(kernel_key("count_sm_cf2_vec(conv_args)") == "sm_cf2_vec"
          and kernel_key("(anonymous namespace)::count_gm_cf1(conv_args)") == "gm_cf1"
          and kernel_key("void count_w16_r4<(int)4, (bool)1>(conv_args)") == "w16_r4" and kernel_key("w16") == "w16",
          "kernel names: without parameters, template arguments, namespace, count_ prefix")
    check(lab04_row_key({"variant": "SM"}) == "sm_cf1" and lab04_row_key({"variant": "smooth/CM_CF12_Vec"}) == "cm_cf12_vec"
          and lab04_row_key({"variant": "W16_DP4A_R8"}) == "w16_dp4a_r8", "Lab 04's variants: GM, CM, SM are the *_cf1 kernels")


def write_budget_ncu(path, launches):
    """ncu's raw CSV of --budget's metrics: one line per (kernel, copy, total, pipes) launch, warp
    instructions = copy x per-pixel figure x 2^23 (2^28 pixels / 32)."""
    pipes = ("alu", "fma", "fmaheavy", "lsu", "xu", "uniform", "cbu", "adu")
    metrics = [f"sm__inst_executed_pipe_{p}.sum" for p in pipes] + [
        "sm__inst_executed.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum",
        "sm__cycles_elapsed.avg.per_second"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(["ID", "Kernel Name"] + metrics)
        w.writerow(["", ""] + ["inst"] * 9 + ["byte", "byte", "nsecond", "cycle/second"])
        for launch, (name, copy, total, pipe) in enumerate(launches):
            w.writerow([launch, name] + [f"{copy * v * 2 ** 23:,.0f}" for v in pipe + [total]]
                       + ["1,073,741,824", "1,073,741,824", "800,000", "1,980,000,000"])


def budget04(tmp):
    """Lab 04's budget rows (--only median,fusion): the fusion rows launch their kernels twice
    (verification, timed) except the sequential mode's kernel sum (no launch); the e2e rows (no
    floor of bytes) pair with their launches and are left out of the budget."""
    pipe = [10.0, 4.0, 2.0, 1.0, 0, 1.0, 0, 0]
    seq = ["bk_kernel_gauss", "bk_kernel_median", "bk_kernel_sobel"]
    names = ["bk_kernel_gauss"] * 2 + seq * 2 + ["bk_kernel_fused_dpx"] * 2 + ["median_kernel_dpx"] * 2
    ncu, lab, out = (os.path.join(tmp, f) for f in ("b04_ncu.csv", "b04_lab.csv", "budget_04.csv"))
    write_budget_ncu(ncu, [(n + "(bk_args)", 1, 20.0, pipe) for n in names])
    with open(lab, "w") as f:
        f.write("# sms=132\n# copy_gbs=2994.6\nlab,experiment,variant,size,param,bytes,working_set_bytes,requests\n"
                "04_convolution,ceiling,memcpy_d2d,1073741824,,2147483648,2147483648,\n")
        for variant, floor in (("block/stage/gauss", "536870912"), ("block/sequential/kernels", ""),
                               ("block/sequential/e2e", ""), ("block/fused_dpx/kernels", "536870912")):
            f.write(f"04_convolution,fusion,{variant},268435456,16384,{floor},{floor},\n")
        f.write("04_convolution,median,dpx,268435456,16384,536870912,536870912,\n")
    rc, text = tool("--budget", "04", out, "--replay", ncu, lab)
    rows = []
    if os.path.exists(out):
        with open(out) as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    check(rc == 0 and [(r["variant"], r["kernels"]) for r in rows]
          == [("block/stage/gauss", "bk_kernel_gauss(bk_args)"), ("block/fused_dpx/kernels", "bk_kernel_fused_dpx(bk_args)"),
              ("dpx", "median_kernel_dpx(bk_args)")] and rows[0]["bytes_per_pixel"] == "2",
          "budget 04: median and fusion rows pair (e2e paired and left out, the sequential sum has no launch)")


def budget_fixture(tmp):
    """Lab 05 at 16384^2 (8 bytes per pixel, 2^28 pixels: warp instructions = per pixel x 2^23) on
    132 SMs at 1980 MHz and 2994.6 GB/s: 1.43222 pixels per SM per clock, 89.37 instructions per
    pixel in all, 44.69 on a half-rate pipe. Each row's launch runs twice (--once: verification,
    then timed); the first copy counts double, so taking it would show."""
    per_pixel = {"tile_fwd": (38.0, [15.25, 16.0, 6.5, 2.5, 0, 2.75, 1.5, 0]),
                 "tile_inv": (50.0, [30.0, 12.0, 6.0, 2.0, 0, 4.5, 1.5, 0])}
    ncu, lab = os.path.join(tmp, "budget_ncu.csv"), os.path.join(tmp, "budget_lab.csv")
    # the verification launch (made to count double), then the timed one
    write_budget_ncu(ncu, [(name + "(tile_args)", copy) + per_pixel[name] for name in per_pixel for copy in (2, 1)])
    with open(lab, "w") as f:
        f.write("# lab=05_haar\n# sms=132\n# copy_gbs=2994.6\nlab,experiment,variant,size,param,bytes,"
                "working_set_bytes,requests\n05_haar,ceiling,memcpy_d2d,1073741824,,2147483648,2147483648,\n")
        for v in ("single_pass", "single_pass_inv"):
            f.write(f"05_haar,sizes,{v},268435456,4,2147483648,2147483648,4096\n")
        f.write("05_haar,sizes,cpu_reference,268435456,4,,,\n")
    return ncu, lab


def budget(tmp):
    ncu, lab = budget_fixture(tmp)
    out = os.path.join(tmp, "budget_05.csv")
    rc, text = tool("--budget", "05", out, "--replay", ncu, lab)
    with open(out) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    fwd, inv = rows
    check(rc == 0 and len(rows) == 2 and fwd["kernels"] == "tile_fwd(tile_args)" and inv["variant"] == "single_pass_inv",
          "budget: one row per lab row with a kernel, its timed launch (the second of two)")
    check(fwd["pixels_per_sm_clock"] == "1.4322" and fwd["budget_all"] == "89.37" and fwd["budget_half_rate"] == "44.69"
          and fwd["clock_mhz"] == "1980" and fwd["bytes_per_pixel"] == "8",
          "budget: 2994.6 GB/s / 8 B / (132 SMs x 1980 MHz) = 1.4322 px/SM/clk: 89.37 in all, 44.69 half rate")
    check(fwd["inst_all"] == "38.00" and fwd["inst_alu"] == "15.25" and fwd["inst_fmaheavy"] == "6.50"
          and fwd["binding"] == "issue" and fwd["binding_pct_of_budget"] == "42.5",
          "budget: forward 38 per pixel, issue binds at 38 / 89.37 = 42.5%")
    check(inv["inst_alu"] == "30.00" and inv["binding"] == "alu" and inv["binding_pct_of_budget"] == "67.1"
          and inv["dram_gbs"] == "2684.35", "budget: inverse ALU 30 / 44.69 = 67.1% binds; DRAM 2^31 B / 0.8 ms")
    other = os.path.join(tmp, "timed_lab.csv")
    with open(other, "w") as f:
        f.write("# sms=132\n# copy_gbs=4209.04\nlab,experiment\n")
    rc, text = tool("--budget", "05", out, "--replay", ncu, lab, "--copy-from", other)
    with open(out) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    check(rc == 0 and rows[0]["budget_all"] == "63.59", "budget: --copy-from takes the timed run's memcpy (4209.04 GB/s)")
    rc, text = tool("--budget", "05", "./haar", out, "--dry-run")
    check(rc == 0 and "--clock-control none" in text and "regex:^(?!count_|gl_)" in text
          and text.rstrip().endswith("--once --csv " + text.split("--csv ")[-1].split()[0]
                                     + " --only sizes,single_pass,single_pass_rows --size 16384"),
          "budget: the timed kernels of --once --only sizes,single_pass,single_pass_rows --size 16384")


def budget_lab04(tmp):
    """Lab 04 under --once --only sizes,median,fusion, synthetic: a sizes rung is verified by its
    count_ twin (not profiled), then launched once; NPP's row (here two launches of one kernel per
    call), the median and fusion rows run their work twice; an end-to-end row has no bytes. The old
    rule (every row a sequence run twice) failed on this list as on the H100 (run_16c8b61)."""
    sys.path.insert(0, os.path.join(HERE, "..", "plots"))
    from ncu.budget import BUDGET_METRICS, pair_repeated
    from ncu.common import PairingError
    from ncu.labs import lab04_row_key
    rungs = ("GM_CF12_Vec", "CM_CF12_Vec", "SM_CF12_Vec", "W16_DP4A", "W16_DP4A_R8")
    rows, launches = [], []  # (name, instructions per pixel of the launch)
    for side in (1024, 16384):
        rows.append({"experiment": "sizes", "variant": "NPP", "size": str(side * side), "param": str(side),
                     "bytes": str(2 * side * side), "working_set_bytes": str(2 * side * side), "requests": ""})
        launches += [("void FilterKernel<(int)3>(nppi_args)", 99.0)] * 4  # verification call, timed call
        for i, v in enumerate(rungs):
            rows.append(dict(rows[-1], variant=v, requests="4096"))
            launches.append((f"void {lab04_row_key(rows[-1])}(conv_args)", 10.0 + i))
    for variant, nbytes, kernels in (("median/best", "1", ["median_kernel_best(conv_args)"]),
                                     ("block/fused/kernels", "1", ["bk_kernel_fused(bk_args)"]),
                                     ("block/sequential/e2e", "", ["bk_kernel_gauss(bk_args)", "bk_kernel_sobel(bk_args)"])):
        rows.append({"experiment": variant.split("/")[0] if variant.startswith("median") else "fusion",
                     "variant": variant, "size": "268435456", "param": "16384", "bytes": nbytes and "536870912",
                     "working_set_bytes": nbytes and "536870912", "requests": ""})
        launches += [(k, 30.0 * copy) for copy in (2, 1) for k in kernels]  # the verification copy counts double
    pixels = {r["size"] for r in rows}
    values = lambda per_px: {m: f"{per_px * 2 ** 23:,.0f}" if m.startswith("sm__inst") else "1,000,000"
                             for m in BUDGET_METRICS}
    kernels = [(name, values(per_px)) for name, per_px in launches]
    counted = [r for r in rows if r["requests"]]
    try:
        pair_repeated(counted, kernels)
        old = "paired"
    except PairingError as e:
        old = str(e)
    check("cannot pair row sizes/" in old and "are not one sequence run twice" in old,
          f"budget 04: the old rule (counted rows, every row run twice) fails as on the H100: {old[:90]}")
    pairs = pair_repeated(rows, kernels, lab04_row_key)
    names = [[n for n, _ in ls] for _, ls in pairs]
    check(len(pairs) == len(rows) and all(len(n) == 1 for (r, _), n in zip(pairs, names) if r["requests"])
          and all(lab04_row_key(r) in n[0] for (r, _), n in zip(pairs, names) if r["requests"]),
          "budget 04: each sizes rung paired with its own one launch (its count_ twin verified it)")
    check(names[0] == ["void FilterKernel<(int)3>(nppi_args)"] * 2 and names[-1] == ["bk_kernel_gauss(bk_args)",
          "bk_kernel_sobel(bk_args)"] and pairs[-2][1][0][1]["sm__inst_executed.sum"] == f"{30 * 2 ** 23:,.0f}",
          "budget 04: NPP's call of two launches, run twice, is its row (not one launch); fusion takes the timed copy")
    lab = os.path.join(tmp, "04_lab.csv")
    fields = ["lab", "experiment", "variant", "size", "param", "bytes", "working_set_bytes", "requests"]
    with open(lab, "w") as f:
        f.write("# lab=04_convolution\n# sms=132\n# copy_gbs=2994.6\n" + ",".join(fields) + "\n")
        f.write("04_convolution,ceiling,memcpy_d2d,268435456,,536870912,536870912,\n")
        for r in rows:
            f.write(",".join(["04_convolution"] + [r[k] for k in fields[1:]]) + "\n")
    ncu = os.path.join(tmp, "04_budget_ncu.csv")
    with open(ncu, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(["ID", "Kernel Name"] + list(BUDGET_METRICS))
        w.writerow(["", ""] + ["inst"] * 9 + ["byte", "byte", "nsecond", "cycle/second"])
        for i, (name, v) in enumerate(kernels):
            w.writerow([i, name] + [v[m] if m.startswith("sm__inst") else
                                    ("1,980,000,000" if m.endswith("per_second") else "100,000") for m in BUDGET_METRICS])
    out = os.path.join(tmp, "budget_04_lab.csv")
    rc, text = tool("--budget", "04", out, "--replay", ncu, lab)
    with open(out) as f:
        got = list(csv.DictReader(line for line in f if not line.startswith("#")))
    check(rc == 0 and len(got) == len(rows) - 1 and "1 rows without bytes per pixel" in text,
          f"budget 04 replay: {len(got)} rows budgeted, the end-to-end row paired but not budgeted")
    r8 = next(r for r in got if r["variant"] == "W16_DP4A_R8" and r["param"] == "16384")
    check(r8["inst_all"] == f"{14.0 * 2 ** 23 * 32 / 2 ** 28:.2f}", "budget 04: W16_DP4A_R8 at 16384^2 has its own counts")
    gnuplot = os.environ.get("GNUPLOT", "gnuplot")
    if subprocess.run(["sh", "-c", f"command -v {gnuplot}"], stdout=subprocess.DEVNULL).returncode == 0:
        chart = os.path.join(tmp, "04_budget")
        run = subprocess.run([gnuplot, "-e", f"set loadpath '{os.path.join(HERE, '..', 'plots')}'; csv='{lab}'; "
                              f"out='{chart}'; fmt='png'; gpu='synthetic'", os.path.join(HERE, "..", "plots",
                              "04_budget.gp")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        check(run.returncode == 0 and not run.stdout.strip() and os.path.getsize(chart + ".png") > 0,
              f"04_budget.gp renders the --budget output (budget_NAME.csv beside NAME.csv) {run.stdout.strip()[:200]}")


def command_lines(tmp):
    """A fake ncu records its arguments and writes the fixtures where ncu and the lab would."""
    fake = os.path.join(tmp, "ncu")
    with open(fake, "w") as f:
        f.write("#!" + sys.executable + "\nimport shutil, sys\na = sys.argv[1:]\n"
                "open(sys.argv[0] + '.args', 'w').write(' '.join(a))\n"
                f"lab = {FIX!r} + '/' + [x for x in a if '/bin/' in x][0].split('/')[-1][:2]\n"
                "shutil.copy(lab + '_ncu.csv', a[a.index('--log-file') + 1])\n"
                "shutil.copy(lab + '_lab.csv', a[len(a) - 1 - a[::-1].index('--csv') + 1])\n")
    os.chmod(fake, 0o755)
    os.makedirs(os.path.join(tmp, "bin"), exist_ok=True)
    for exe in ("04_convolution", "03_occupancy"):
        path = os.path.join(tmp, "bin", exe)
        open(path, "w").close()
        rc, text = tool(path, os.path.join(tmp, "run.csv"), "--ncu", fake)
        with open(fake + ".args") as f:
            args = f.read()
        if exe.startswith("04"):
            check(rc == 1 and "--kernel-name regex:^count_ " in args and args.endswith("--quick --once --csv "
                  + args.split("--csv ")[-1].split()[0] + " --only ladder,beyond") and "39 kernels" in text,
                  "04: runs the count_ twins of --quick --once --only ladder,beyond under ncu")
        else:
            check(rc == 0 and " --once --csv " in args and "--quick" not in args, "03: runs the full sizes (--once, no --quick)")
    rc, text = tool("07", "x.csv", "--replay", "a", "b")
    check(rc == 2, "an unknown lab is a usage error (exit 2)")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for test in (lab01, lab02, lab03, lab04, lab05, names, budget, budget_lab04, budget04, command_lines):
            test(tmp)
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

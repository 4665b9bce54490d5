"""--budget: instructions per pixel by pipe against what a GPU allows at its memory floor.

A kernel moving b bytes per pixel at the run's memcpy bandwidth B (GB/s) on S SMs at clock f
must finish p = B / b / (S f) pixels per SM per clock. An SM issues 4 warp instructions a clock
(128 thread-instructions), the ALU and IMAD (fmaheavy) pipes half that, FFMA/FADD/FMUL (fma: heavy
and lite) the full 128, so at 100% of memcpy a pixel may cost at most 128 / p instructions in all,
64 / p on the ALU. ncu counts warp instructions; x 32 / pixels gives thread-instructions per pixel
(the static SASS count per pixel of a full warp). The clock is ncu's own (sm__cycles_elapsed per
second, with --clock-control none so the kernel runs at the clock the timed run had)."""
from .common import PairingError, Result, number

PIPES = ("alu", "fma", "fmaheavy", "lsu", "xu", "uniform", "cbu", "adu")
BUDGET_METRICS = tuple(f"sm__inst_executed_pipe_{p}.sum" for p in PIPES) + (
    "sm__inst_executed.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum",
    "sm__cycles_elapsed.avg.per_second")
ISSUE_PER_SM_CLOCK = 128.0  # thread-instructions: 4 sub-partitions x 1 warp instruction x 32
HALF_RATE_PIPES = ("alu", "fmaheavy")  # 16 lanes per sub-partition: 64 per SM per clock
FIELDS = (["experiment", "variant", "size", "param", "kernels", "pixels", "bytes_per_pixel", "time_ms",
           "dram_gbs", "clock_mhz", "pixels_per_sm_clock", "budget_all", "budget_half_rate", "inst_all"]
          + [f"inst_{p}" for p in PIPES] + ["binding", "binding_pct_of_budget"])


def meta_value(meta, key):
    """'# sms=132' lines -> the value of `key`, or None."""
    for line in meta:
        k, _, v = line.lstrip("# ").partition("=")
        if k.strip() == key:
            return v.strip()
    return None


def pair_repeated(rows, kernels):
    """--once runs each row's work twice, the verification and the timed run: a row's launches are a
    sequence S of kernel names followed by S again. Takes the shortest S that repeats; the second
    copy (the timed run) is the row's. A row whose launches do not repeat cannot be paired."""
    k, pairs = 0, []
    for row in rows:
        names = [name for name, _ in kernels[k:]]
        n = next((n for n in range(1, len(names) // 2 + 1) if names[:n] == names[n:2 * n]), None)
        if n is None:
            raise PairingError(f"cannot pair row {row['experiment']}/{row['variant']}: launches {k}.. "
                               f"({', '.join(names[:4])}...) are not one sequence run twice")
        pairs.append((row, kernels[k + n:k + 2 * n]))
        k += 2 * n
    if k != len(kernels):
        raise PairingError(f"ncu profiled {len(kernels) - k} launches that no row accounts for")
    return pairs


def budget_row(row, launches, sms, copy_gbs):
    """One row: the timed launches' sums -> the CSV's fields (instructions per pixel, the budget)."""
    sums = {m: sum(number(v[m]) for _, v in launches) for m in BUDGET_METRICS}
    pixels = float(row["size"])
    bpp = float(row["bytes"] or row["working_set_bytes"]) / pixels
    clock_hz = max(number(v["sm__cycles_elapsed.avg.per_second"]) for _, v in launches)
    ppc = copy_gbs * 1e9 / bpp / (sms * clock_hz)
    per_pixel = {p: 32.0 * sums[f"sm__inst_executed_pipe_{p}.sum"] / pixels for p in PIPES}
    inst_all = 32.0 * sums["sm__inst_executed.sum"] / pixels
    budget_all, budget_half = ISSUE_PER_SM_CLOCK / ppc, ISSUE_PER_SM_CLOCK / 2 / ppc
    use = {"issue": inst_all / budget_all}
    use.update({p: per_pixel[p] / budget_half for p in HALF_RATE_PIPES})
    binding = max(use, key=use.get)
    time_ns = sums["gpu__time_duration.sum"]
    values = [row["experiment"], row["variant"], row["size"], row["param"], "+".join(n for n, _ in launches),
              f"{pixels:.0f}", f"{bpp:.4g}", f"{time_ns / 1e6:.6g}",
              f"{(sums['dram__bytes_read.sum'] + sums['dram__bytes_write.sum']) / time_ns:.6g}",
              f"{clock_hz / 1e6:.0f}", f"{ppc:.4f}", f"{budget_all:.2f}", f"{budget_half:.2f}", f"{inst_all:.2f}"]
    values += [f"{per_pixel[p]:.2f}" for p in PIPES] + [binding, f"{100 * use[binding]:.1f}"]
    return dict(zip(FIELDS, values))


def compare_budget(lab, meta, rows, kernels, opts):
    """Every selected row of the lab's CSV with its timed kernels (--once: the second of the two runs)."""
    sms, copy = meta_value(meta, "sms"), meta_value(meta, "copy_gbs")
    if sms is None or copy is None:
        raise PairingError("the lab's CSV has no '# sms=' or '# copy_gbs=' line: the budget needs both")
    out_rows = [budget_row(row, launches, int(sms), float(copy)) for row, launches in pair_repeated(rows, kernels)
                if row.get("bytes") or row.get("working_set_bytes")]  # no floor (e2e rows): paired, not budgeted
    print(f"{'experiment':12} {'variant':22} {'size':>10} {'inst/px':>8} {'alu':>6} {'fma':>6} {'heavy':>6} "
          f"{'lsu':>6} {'budget':>7} {'half':>6}  binds")
    for r in out_rows:
        print(f"{r['experiment']:12} {r['variant']:22} {r['size']:>10} {r['inst_all']:>8} {r['inst_alu']:>6} "
              f"{r['inst_fma']:>6} {r['inst_fmaheavy']:>6} {r['inst_lsu']:>6} {r['budget_all']:>7} "
              f"{r['budget_half_rate']:>6}  {r['binding']} at {r['binding_pct_of_budget']}% of its budget")
    comments = [f"# source=ncu {' '.join(BUDGET_METRICS)} on {opts.exe_name} {' '.join(lab.flags + opts.extra)}"
                f"; kernels {opts.kernels}; --clock-control none",
                f"# sms={sms}", f"# copy_gbs={copy}",
                "# inst_*: thread-instructions per pixel (ncu warp instructions x 32 / pixels); budget_all = 128 / "
                "pixels_per_sm_clock, budget_half_rate = 64 / pixels_per_sm_clock (alu, fmaheavy): at 100% of memcpy"]
    summary = [f"{len(out_rows)} rows budgeted ({len(kernels)} launches)"]
    return Result(comments, FIELDS, out_rows, summary, False)

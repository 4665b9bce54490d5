"""The pieces every lab's Nsight Compute cross-check shares: reading ncu's raw CSV page and a
lab's CSV, pairing the lab's rows with ncu's kernels (four rules), differences, writing the result."""
import csv
import re

# Global load requests (warp level) and the 32-byte sectors they touched: Labs 01, 04 and 05.
LOAD_METRICS = ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")


class PairingError(Exception):
    """The lab's rows and ncu's kernels cannot be paired; the message says why."""


class Result:
    """What a lab's comparison produced: the CSV to write and the verdict."""

    def __init__(self, comments, fields, rows, summary, failed=False):
        self.comments, self.fields, self.rows, self.summary, self.failed = comments, fields, rows, summary, failed


def number(text):
    """ncu writes 1,234,567; the labs write plain numbers."""
    return float(text.replace(",", ""))


def pct_diff(lab, ncu):
    """|lab - ncu| in percent of ncu's value."""
    return 100.0 * abs(lab - ncu) / ncu


def read_lab_csv(path):
    """A lab's CSV -> (its '#' metadata lines, its rows as dicts)."""
    with open(path) as f:
        lines = f.read().splitlines()
    meta = [line for line in lines if line.startswith("#")]
    rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    return meta, rows


def read_ncu_csv(path, metrics):
    """ncu's `--csv --page raw` log -> [(kernel name, {metric: text as ncu wrote it})] in launch order.
    Lines that are not CSV (==PROF== messages, comments) and the units row are skipped."""
    with open(path) as f:
        lines = [line for line in f.read().splitlines() if line.startswith('"')]
    kernels = []
    for row in csv.DictReader(lines):
        if not row.get("ID", "").isdigit():
            continue  # the units row
        kernels.append((int(row["ID"]), row["Kernel Name"], {m: row[m] for m in metrics}))
    return [k[1:] for k in sorted(kernels, key=lambda k: k[0])]


def write_csv(path, comments, fields, rows):
    with open(path, "w", newline="") as f:
        for line in comments:
            f.write(line + "\n")
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def kernel_key(name):
    """ncu's kernel name -> the name a lab's variant is compared with: no return type, parameter
    list, template arguments or namespace, no count_ prefix, lower case.
    'void count_sm_cf2_vec<(int)2>(conv_args)' -> 'sm_cf2_vec'."""
    name = re.sub(r"^void\s+", "", name.strip())
    if name.endswith(")"):  # drop the parameter list: the last balanced (...)
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[i], 0)
            if depth == 0:
                name = name[:i]
                break
    name = name.split("<", 1)[0].split("::")[-1]
    return re.sub(r"^count_", "", name).lower()


# ---- pairing rules: lab rows x ncu kernels -> [(row, kernel name, values, launches)] ----

def pair_in_order(rows, kernels, what="kernel rows"):
    """One kernel per row, in row order (--once: each row's kernel runs once)."""
    if len(rows) != len(kernels):
        raise PairingError(f"cannot pair rows: the lab wrote {len(rows)} {what}, ncu profiled {len(kernels)} kernels")
    return [(row, name, values, 1) for row, (name, values) in zip(rows, kernels)]


def pair_first_of(rows, kernels, per_row):
    """`per_row` launches per row, in row order; the first of each is the row's."""
    if per_row * len(rows) != len(kernels):
        raise PairingError(f"cannot pair rows: the lab wrote {len(rows)} rows ({per_row} launches each), "
                           f"ncu profiled {len(kernels)} kernels")
    return [(row, *kernels[per_row * k], 1) for k, row in enumerate(rows)]


def pair_grouped(rows, kernels, requests_metric):
    """Consecutive launches summed per row until their requests reach the row's in-program count
    (a row of several launches); the values of a group are the sums. Yields each pair as it is
    found, so a caller prints the rows before the one that cannot be matched."""
    k = 0
    for row in rows:
        want, got, n, sums = float(row["requests"]), 0.0, 0, {}
        while k < len(kernels) and got < want:
            for m, text in kernels[k][1].items():
                sums[m] = sums.get(m, 0.0) + number(text)
            got, k, n = sums[requests_metric], k + 1, n + 1
        if got != want:
            raise PairingError(f"cannot match row {row['experiment']}/{row['variant']}: lab {want:.0f} requests, "
                               f"ncu {got:.0f} over {n} launches")
        yield row, kernels[k - 1][0], sums, n
    if k != len(kernels):
        raise PairingError(f"ncu profiled {len(kernels) - k} twin launches that no row accounts for")


def pair_by_name(rows, kernels, row_key):
    """Each row with the first unused kernel whose kernel_key is row_key(row); when the names do
    not say it (a kernel renamed, templated), by launch order, which --once keeps. Returns (pairs,
    note): the note says which rule paired them."""
    unused = list(range(len(kernels)))
    pairs = []
    for row in rows:
        hit = next((i for i in unused if kernel_key(kernels[i][0]) == row_key(row)), None)
        if hit is None:
            break
        unused.remove(hit)
        pairs.append((row, *kernels[hit], 1))
    if len(pairs) == len(rows) and not unused:
        return pairs, "paired by kernel name"
    return pair_in_order(rows, kernels), "kernel names do not follow the variants: paired by launch order"

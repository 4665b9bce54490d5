#!/usr/bin/env python3
"""report.py: the instructor's page, one static index.html beside the charts (no script, no network).

    plots/report.py --charts DIR --data DIR [--source measured|reference] [--root REPO] [--margin 0.02]

--charts: the folder holding the charts (NN_*.png and .svg) and each lab's log (NN_name.log); the page
is written there as index.html. --data: the folder of the CSVs the charts were drawn from (this run's,
or a committed GPU folder). The page has a section a lab, in the labs' order: the run's facts, the
lab's headline figures beside every committed GPU folder (plots/data/<gpu>/; "—" where a folder lacks
the lab), every chart with a caption (the first sentence of its gnuplot script's header), "what moved"
(this run's rows whose median lies outside the committed reference run's min..max widened by
--margin, worst first; only for a measured run whose GPU has a committed folder), and links to the
handout and the log. Standard library only. The headline table (HEADLINES) is the one place that says
which figures a lab is summed up by."""
import argparse
import csv
import glob
import html
import math
import os
import re
import sys

LABS = [("01_coalescing", "Lab 01: coalescing", "labs/01_coalescing/README.md"),
        ("02_divergence", "Lab 02: divergence", "labs/02_divergence/README.md"),
        ("03_occupancy", "Lab 03: occupancy", "labs/03_occupancy/README.md"),
        ("04_convolution", "Lab 04: convolution", "labs/04_convolution/README.md"),
        ("05_haar", "Lab 05: the Haar wavelet", "labs/05_haar/README.md")]
COMPANIONS = ("cnn", "fusion")  # NAME.cnn.csv, NAME.fusion.csv: rows of the same lab kept beside
SEED10 = ("T3A", "T3B", "T3C", "T4A", "T4B", "T5A", "E1", "E2", "E3", "E4")  # the seed's CNN layers


def load_lab(folder, lab):
    """Rows (dicts) and '# key=value' facts of a lab's CSV and its companions; (None, {}) if absent."""
    paths = [os.path.join(folder, lab + ".csv")] + [os.path.join(folder, f"{lab}.{c}.csv") for c in COMPANIONS]
    rows, meta, found = [], {}, False
    for p in paths:
        if not os.path.isfile(p):
            continue
        found = True
        with open(p) as f:
            lines = f.readlines()
        for ln in lines:
            if ln.startswith("# ") and "=" in ln:
                k, v = ln[2:].rstrip("\n").split("=", 1)
                meta.setdefault(k, v)
        rows += list(csv.DictReader([ln for ln in lines if not ln.startswith("#")]))
    return (rows if found else None), meta


def num(r, key):
    try:
        return float(r.get(key) or "nan")
    except ValueError:
        return math.nan


def pick(rows, experiment, variant=None, size=None, param=None):
    return [r for r in rows if r["experiment"] == experiment and (variant is None or r["variant"] == variant)
            and (size is None or r["size"] == str(size)) and (param is None or r["param"] == str(param))]


def one(rows, key, *a, **k):
    m = pick(rows, *a, **k)
    return num(m[0], key) if m else math.nan


def best(rows, key, pred, lowest=False):
    """(value, variant) of the row with the highest (lowest) `key` among those `pred` keeps."""
    cand = [(num(r, key), r["variant"]) for r in rows if pred(r) and not math.isnan(num(r, key))]
    if not cand:
        return math.nan, ""
    return min(cand) if lowest else max(cand)


def pct(v, name=""):
    return "—" if math.isnan(v) else f"{v:.1f}%" + (f" ({name})" if name else "")


def times(v):
    return "—" if math.isnan(v) else f"{v:.2f}×"


def ratio(a, b):
    return a / b if a > 0 and b > 0 else math.nan


def cnn_speedup(rows, layers, cls, peer=None):
    """Geometric mean over `layers` of cuDNN's time (row `peer`, default the class's NCHW peer) / our
    fastest time in precision class `cls`."""
    logs = []
    for layer in layers:
        lib = one(rows, "median_ms", "cnn", (peer or {"fp32": "cudnn", "bf16": "cudnn_bf16"}[cls]) + "@" + layer)
        def ours(r, layer=layer):
            v, _, at = r["variant"].partition("@")
            kind = "bf16" if "bf16" in v else "fp16" if "fp16" in v else "tf32" if "tf32" in v else "fp32"
            return r["experiment"] == "cnn" and at == layer and v.startswith("ours") and kind == cls
        t, _ = best(rows, "median_ms", ours, lowest=True)
        if ratio(lib, t) > 0:
            logs.append(math.log(lib / t))
    return math.exp(sum(logs) / len(logs)) if logs else math.nan


def h01(rows):
    nc, co = one(rows, "median_ms", "seed", "noncoalesced", 4194304), one(rows, "median_ms", "seed", "coalesced", 4194304)
    return [("stream, copy_vec4: % of memcpy", pct(one(rows, "pct_of_copy", "stream", "copy_vec4"))),
            ("seed at 4M: non-coalesced / coalesced time (K40: 52.3×)", times(ratio(nc, co)))]


def h02(rows):
    return [("seed at 4M: divergent / non-divergent time (K40: 3.10×)",
             times(one(rows, "ratio", "seed", "warp_divergence", 4194304))),
            ("32 paths across the lanes: T(32) / T(1)", times(one(rows, "ratio", "paths", "paths_lanes", param=32)))]


def h03(rows):
    s1, s2 = one(rows, "median_ms", "seed", "S1", 4096), one(rows, "median_ms", "seed", "S2", 4096)
    return [("seed at 4096 elements: S1 / S2 time", times(ratio(s1, s2))),
            ("stream_vec4_ilp4 at 16 warps an SM: % of memcpy",
             pct(one(rows, "pct_of_copy", "latency", "stream_vec4_ilp4", param=16)))]


def h04(rows):
    big = lambda e: (lambda r: r["experiment"] == e and r["size"] == "268435456")
    f3, n3 = best(rows, "pct_of_copy", lambda r: big("sizes")(r) and r["variant"] != "NPP")
    npp = one(rows, "median_ms", "sizes", "NPP", 268435456)
    t3 = one(rows, "median_ms", "sizes", n3, 268435456) if n3 else math.nan
    fm, nm = best(rows, "pct_of_copy", big("median"))
    fp, np_ = best(rows, "pct_of_copy", lambda r: big("fusion")(r) and r["variant"].startswith("pixel/fused")
                   and r["variant"].endswith("/kernels"))
    fb, nb = best(rows, "pct_of_copy", lambda r: big("fusion")(r) and r["variant"].startswith("block/fused")
                  and r["variant"].endswith("/kernels"))
    return [("3×3 filter at 16384²: best rung, % of memcpy", pct(f3, n3)),
            ("3×3 filter at 16384²: NPP time / best rung time", times(ratio(npp, t3))),
            ("median 3×3 at 16384²: best rung, % of memcpy", pct(fm, nm)),
            ("fused pixel-wise pipeline at 16384²: % of memcpy", pct(fp, np_.split("/")[1] if np_ else "")),
            ("fused block-based pipeline at 16384²: % of memcpy", pct(fb, nb.split("/")[1] if nb else "")),
            ("CNN FP32: cuDNN / ours, geometric mean over the seed's 10 layers", times(cnn_speedup(rows, SEED10, "fp32"))),
            # BF16 against cuDNN on the same NHWC tensors only: the NCHW peer converts the layout
            # inside its timed call, and our fastest BF16 row reads NHWC
            ("CNN BF16 on E3_N32: cuDNN in NHWC / ours", times(cnn_speedup(rows, ("E3_N32",), "bf16", "cudnn_bf16_nhwc")))]


def h05(rows):
    seed, sp = one(rows, "median_ms", "sizes", "seed", 268435456, 4), one(rows, "median_ms", "sizes", "single_pass", 268435456, 4)
    fwd, fn = best(rows, "pct_of_copy", lambda r: r["experiment"] == "sizes" and r["size"] == "268435456"
                   and r["variant"].startswith("single_pass") and not r["variant"].endswith("_inv"))
    inv, iname = best(rows, "pct_of_copy", lambda r: r["experiment"] == "sizes" and r["size"] == "268435456"
                      and r["variant"].startswith("single_pass") and r["variant"].endswith("_inv"))
    return [("single pass at 16384², forward: % of memcpy", pct(fwd, fn)),
            ("single pass at 16384², inverse: % of memcpy", pct(inv, iname)),
            ("16384²: the seed's rung / the single pass, time", times(ratio(seed, sp)))]


HEADLINES = {"01_coalescing": h01, "02_divergence": h02, "03_occupancy": h03, "04_convolution": h04, "05_haar": h05}


def caption(gp):
    """The first sentence of a chart script's header: '# NN_x.gp - what it draws. ...'."""
    text = []
    with open(gp) as f:
        for ln in f:
            if not ln.startswith("#"):
                break
            text.append(ln[1:].strip())
    s = " ".join(text)
    s = s.split(" - ", 1)[1] if " - " in s else s
    s = s.split("Inputs:")[0].strip()
    m = re.search(r"\.\s+(?=[A-Z(])", s)  # a sentence ends at ". " before a capital ("vs. x" does not)
    return (s[:m.start() + 1] if m else s).strip()


def row_key(r):
    """What names one measurement: experiment, variant, size, param, and the SMs it ran on (the SM
    sweeps repeat the other four on every SM count)."""
    return (r["experiment"], r["variant"], r["size"], r["param"], r.get("sms") or "")


def moved(rows, ref_rows, margin):
    """Rows whose median lies outside the reference's min..max widened by margin, worst first."""
    ref = {row_key(r): r for r in ref_rows}
    out = []
    for r in rows:
        k = row_key(r)
        o = ref.get(k)
        if o is None or r["variant"].startswith("cpu") or r["experiment"] == "ceiling":
            continue
        m, lo, hi, om = num(r, "median_ms"), num(o, "min_ms"), num(o, "max_ms"), num(o, "median_ms")
        if math.isnan(m) or math.isnan(lo) or math.isnan(hi) or om <= 0:
            continue
        if m < lo * (1 - margin) or m > hi * (1 + margin):
            out.append((abs(m / om - 1), k, m, om, lo, hi))
    return sorted(out, reverse=True)


def gpu_folders(data_root):
    return sorted(d for d in glob.glob(os.path.join(data_root, "*")) if os.path.isdir(d) and not
                  os.path.basename(d).startswith(("run_", "archive")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--charts", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--source", choices=("measured", "reference"), default="measured")
    root_default = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--root", default=root_default)
    ap.add_argument("--margin", type=float, default=0.02)
    a = ap.parse_args()
    charts, data, root = os.path.abspath(a.charts), os.path.abspath(a.data), os.path.abspath(a.root)
    page = os.path.join(charts, "index.html")
    rel = lambda p: os.path.relpath(p, charts)
    folders = gpu_folders(os.path.join(root, "plots", "data"))
    e = html.escape
    out = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
           '<title>GPU Performance Labs: the run at a glance</title>',
           '<style>body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em}'
           'table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:.2em .5em;text-align:left}'
           'figure{display:inline-block;width:48%;margin:.5em 0;vertical-align:top}img{width:100%}'
           'figcaption{font-size:.9em;color:#333}.this{background:#eef6ff}</style></head><body>',
           '<h1>GPU Performance Labs: the run at a glance</h1>']
    first_meta = {}
    for lab, _, _ in LABS:
        _, m = load_lab(data, lab)
        if m:
            first_meta = m
            break
    gpu = first_meta.get("gpu", "unknown GPU")
    if a.source == "reference":
        out.append(f'<p id="facts">Reference data of {e(gpu)}, no GPU here: the charts are drawn from the '
                   f'committed results in <code>{e(os.path.relpath(data, root))}</code>.</p>')
    out.append('<table id="facts-table"><tr><th>GPU</th><th>SMs</th><th>driver</th><th>CUDA</th><th>commit</th>'
               '<th>date</th></tr><tr>' + "".join(f"<td>{e(first_meta.get(k, '—'))}</td>" for k in
               ("gpu", "sms", "driver", "cuda_runtime", "commit", "date")) + "</tr></table>")
    out.append("<p>Sections: " + ", ".join(f'<a href="#{lab}">{e(t)}</a>' for lab, t, _ in LABS) + "</p>")
    for lab, title, handout in LABS:
        rows, meta = load_lab(data, lab)
        out.append(f'<section id="{lab}"><h2>{e(title)}</h2>')
        links = [f'<a href="{e(rel(os.path.join(root, handout)))}">the handout</a>']
        log = os.path.join(charts, lab + ".log")
        if os.path.isfile(log):
            links.append(f'<a href="{e(rel(log))}">this run\'s log</a>')
        out.append("<p>" + " · ".join(links) + "</p>")
        if rows is None:
            out.append("<p>No results of this lab in this run.</p></section>")
            continue
        cols = [("this run" if a.source == "measured" else os.path.basename(data), rows)]
        for fo in folders:
            if a.source == "reference" and os.path.samefile(fo, data):
                continue
            cols.append((os.path.basename(fo), load_lab(fo, lab)[0]))
        figures = [HEADLINES[lab](r) if r is not None else None for _, r in cols]
        head = "".join(f'<th{" class=this" if i == 0 else ""}>{e(n)}</th>' for i, (n, _) in enumerate(cols))
        out.append(f'<table class="headlines" data-lab="{lab}"><tr><th>figure</th>{head}</tr>')
        for i, (label, _) in enumerate(figures[0]):
            cells = "".join(f'<td{" class=this" if j == 0 else ""} data-col="{e(cols[j][0])}">'
                            f'{e(f[i][1] if f is not None else "—")}</td>' for j, f in enumerate(figures))
            out.append(f"<tr><td>{e(label)}</td>{cells}</tr>")
        out.append("</table>")
        ref = None
        if a.source == "measured":
            for fo in folders:
                r2, m2 = load_lab(fo, lab)
                if r2 is not None and m2.get("gpu") == meta.get("gpu"):
                    ref = (os.path.basename(fo), r2, m2.get("commit", "?"))
                    break
        if ref:
            mv = moved(rows, ref[1], a.margin)
            out.append(f"<h3>What moved against {e(ref[0])} (commit {e(ref[2])})</h3>")
            if not mv:
                out.append(f"<p>Every row lies within the reference's min..max ±{a.margin:.0%}.</p>")
            else:
                out.append(f"<p>{len(mv)} rows outside the reference's min..max ±{a.margin:.0%}; the worst:</p>"
                           "<table><tr><th>experiment</th><th>variant</th><th>size</th><th>param</th><th>SMs</th>"
                           "<th>median ms</th><th>reference median (min..max)</th><th>change</th></tr>")
                for d, k, m, om, lo, hi in mv[:10]:
                    out.append("<tr>" + "".join(f"<td>{e(x)}</td>" for x in k) +
                               f"<td>{m:.4g}</td><td>{om:.4g} ({lo:.4g}..{hi:.4g})</td><td>{100 * (m / om - 1):+.1f}%</td></tr>")
                out.append("</table>")
        elif a.source == "measured":
            out.append("<p>What moved: no committed folder holds this GPU's results.</p>")
        nn = lab[:2]
        for png in sorted(glob.glob(os.path.join(charts, nn + "_*.png"))):
            name = os.path.basename(png)[:-4]
            gp = os.path.join(root, "plots", name + ".gp")
            cap = caption(gp) if os.path.isfile(gp) else name
            svg = png[:-4] + ".svg"
            link = f' (<a href="{e(rel(svg))}">SVG</a>)' if os.path.isfile(svg) else ""
            out.append(f'<figure><img src="{e(rel(png))}" alt="{e(name)}" data-chart="{e(name)}" '
                       f'onload="this.dataset.loaded=1" onerror="this.dataset.loaded=0">'
                       f"<figcaption><b>{e(name)}</b>: {e(cap)}{link}</figcaption></figure>")
        out.append("</section>")
    out.append("</body></html>")
    with open(page, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"report: {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""report_test.py ROOT: the instructor's page (plots/report.py) as a person would read it.

For the committed H100 and H200 folders: the charts copied to a scratch folder, the page rendered
there from the folder's CSVs (as `plots-reference` does), then parsed: a section a lab in the labs'
order, every <img> and link resolving to a file that exists, every chart of the folder on the page,
and headline cells equal to figures computed here from the CSVs on their own (the best 3x3 rung and
the median's best rung at 16384^2, Lab 05's single pass forward). Exit 1 naming what failed."""
import csv
import glob
import html.parser
import os
import shutil
import subprocess
import sys
import tempfile

LABS = ["01_coalescing", "02_divergence", "03_occupancy", "04_convolution", "05_haar"]


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.sections, self.imgs, self.links, self.cells = [], [], [], []
        self._cell, self._lab = None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.sections.append(a.get("id"))
        if tag == "table" and "data-lab" in a:
            self._lab = a["data-lab"]
        if tag == "img":
            self.imgs.append(a.get("src"))
            for key in ("onload", "onerror"):
                if key not in a:
                    raise AssertionError(f"img {a.get('src')} lacks {key}")
        if tag == "a" and a.get("href") and not a["href"].startswith("#"):
            self.links.append(a["href"])
        if tag == "td":
            self._cell = [self._lab, a.get("data-col"), ""]

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[2] += data

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.cells.append(tuple(self._cell))
            self._cell = None
        if tag == "table":
            self._lab = None


def rows(path):
    with open(path) as f:
        return list(csv.DictReader([ln for ln in f if not ln.startswith("#")]))


def best_pct(rs, experiment, keep):
    c = [(float(r["pct_of_copy"]), r["variant"]) for r in rs
         if r["experiment"] == experiment and r["size"] == "268435456" and keep(r) and r["pct_of_copy"]]
    v, n = max(c)
    return f"{v:.1f}% ({n})"


def check(root, gpu):
    errors = []
    data, charts = os.path.join(root, "plots", "data", gpu), os.path.join(root, "plots", "charts", gpu)
    with tempfile.TemporaryDirectory() as d:
        for f in glob.glob(os.path.join(charts, "*.png")) + glob.glob(os.path.join(charts, "*.svg")):
            shutil.copy(f, d)
        subprocess.run([sys.executable, os.path.join(root, "plots", "report.py"), "--charts", d, "--data", data,
                        "--source", "reference", "--root", root], check=True, stdout=subprocess.DEVNULL)
        p = Page()
        with open(os.path.join(d, "index.html")) as f:
            p.feed(f.read())
        if p.sections != LABS:
            errors.append(f"{gpu}: sections {p.sections}, expected {LABS}")
        for src in p.imgs + p.links:
            if not os.path.exists(os.path.join(d, src)):
                errors.append(f"{gpu}: {src} does not resolve")
        pngs = sorted(os.path.basename(f) for f in glob.glob(os.path.join(d, "*.png")))
        shown = sorted(os.path.basename(s) for s in p.imgs)
        if pngs != shown:
            errors.append(f"{gpu}: charts on the page {shown} differ from the folder's {pngs}")
        cells = {(lab, col): [] for lab, col, _ in p.cells}
        for lab, col, text in p.cells:
            cells[(lab, col)].append(text)
        lab04 = rows(os.path.join(data, "04_convolution.csv"))
        fusion = os.path.join(data, "04_convolution.fusion.csv")
        lab04m = rows(fusion) if os.path.exists(fusion) else lab04
        want = {("04_convolution", best_pct(lab04, "sizes", lambda r: r["variant"] != "NPP")),
                ("04_convolution", best_pct(lab04m, "median", lambda r: True)),
                ("05_haar", best_pct(rows(os.path.join(data, "05_haar.csv")), "sizes",
                                     lambda r: r["variant"].startswith("single_pass") and not r["variant"].endswith("_inv")))}
        for lab, text in sorted(want):
            if text not in cells.get((lab, gpu), []):
                errors.append(f"{gpu}: {lab}'s headline cells {cells.get((lab, gpu))} lack {text} (from the CSV)")
        if not errors:
            print(f"ok: {gpu}: {len(p.sections)} sections, {len(p.imgs)} charts, {len(p.links)} links, "
                  f"{len(p.cells)} cells; the headline cells checked equal the CSVs")
    return errors


def main(root):
    errors = []
    for gpu in ("h100", "h200"):
        errors += check(root, gpu)
    for e in errors:
        print("FAIL:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")))

#!/usr/bin/env python3
"""tk_analyse.py TRACE.txt[.gz]: per instantiation (a '# trace' header), medians over blocks 0-7 and k-tiles of:
issue->land (a stage's copy latency), land->land (consumer's pace), issue->issue (producer's pace), land->retire
(the mid-tile wait), and how many copies were in flight when each landed."""
import sys, gzip, statistics as st
f = gzip.open(sys.argv[1], 'rt') if sys.argv[1].endswith('.gz') else open(sys.argv[1])
blocks = {}; head = None
def report():
    if not head or not blocks: return
    lat, ll, ii, lr, fl, first = [], [], [], [], [], []
    for b, ks in blocks.items():
        ks = sorted(ks.items())
        t0 = min(v[0] for _, v in ks if v[0]) if any(v[0] for _, v in ks) else 0
        for j, (k, (iss, land, ret)) in enumerate(ks):
            if iss and land: lat.append(land - iss)
            if ret and land: lr.append(ret - land)
            if j:
                pk = ks[j - 1][1]
                if land and pk[1]: ll.append(land - pk[1])
                if iss and pk[0]: ii.append(iss - pk[0])
            if land: fl.append(sum(1 for _, v in ks if v[0] and v[0] <= land and (v[1] == 0 or v[1] > land)))
        if ks and ks[0][1][1] and t0: first.append(ks[0][1][1] - t0)
        n = len(ks)
    m = lambda x: f"{st.median(x):.0f}" if x else "-"
    print(f"{head}\n  k-tiles/block {n}: issue->land {m(lat)}, land->land {m(ll)}, issue->issue {m(ii)}, land->retire(mid) {m(lr)}, in flight at land {m(fl)}, first land {m(first)}")
for line in f:
    if line.startswith('#'):
        report(); head = line.strip(); blocks = {}; continue
    b, k, i, l, r = map(int, line.split())
    blocks.setdefault(b, {})[k] = (i, l, r)
report()

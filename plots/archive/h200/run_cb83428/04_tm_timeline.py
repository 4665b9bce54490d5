#!/usr/bin/env python3
"""tm_timeline.py TRACE_FILE: read the TM_TRACE build's clock64 stamps (tm_conv.cuh, .dev/timeline.patch) and say
where each block's time goes. Row: block, warpgroup, box, then 10 slots. Consumers: 0 entry, 1 turn passed,
2 first tile landed, 3 last group issued, 4 retired, 5 y stored, 6 full-wait cycles (tiles after the first),
7 SM, 8 wait_group<1> cycles, 9 issuing cycles. Producer: 0 box start, 1 last copy issued, 2 first copy issued,
3 empty-wait cycles."""
import sys, statistics as st
from collections import defaultdict

def sections(path):
    head, rows = None, []
    for line in open(path):
        if line.startswith('# trace'):
            if head: yield head, rows
            head = dict(kv.split('=') for kv in line.split()[2:]); rows = []
        elif line.strip() and head is not None:
            v = [int(x) for x in line.split()]
            rows.append((v[0], v[1], v[2], v[3:]))
    if head: yield head, rows

def med(v): return st.median(v) if v else float('nan')

def report(head, rows):
    h = {k: int(v) for k, v in head.items()}
    ideal = h['nk'] * h['RT'] * 4 * h['WM'] * h['BN'] // 2
    print('== ' + ' '.join('%s=%s' % kv for kv in head.items()))
    prod = {(b, x): e for b, w, x, e in rows if w == 0}
    phases = defaultdict(list); box_ratio = []; blocks = defaultdict(list); lat = []; lat_all = []
    for b, w, x, e in rows:
        if w == 0 or min(e[:6]) == 0: continue
        blocks[b].append(e)
        for name, (i, j) in (('turn', (0, 1)), ('bytes', (1, 2)), ('issue', (2, 3)), ('drain', (3, 4)), ('epilogue', (4, 5))):
            phases[name].append(e[j] - e[i])
        phases['fullwait'].append(e[6]); phases['wait1'].append(e[8]); phases['issuing'].append(e[9])
        box_ratio.append(ideal / max(1, e[4] - e[2]))
        p = prod.get((b, x))
        if p and p[2]:
            lat_all.append(e[2] - p[2])
            if e[2] - e[1] > 64: lat.append(e[2] - max(p[2], e[1]) if e[1] > p[2] else e[2] - p[2])
            phases['prod_empty'].append(p[3]); phases['prod_span'].append(p[1] - p[0])
            phases['prod_lead'].append(e[1] - p[2])  # + : the producer had issued the box's first copy before the turn
    if not box_ratio:
        print('  no complete consumer boxes'); return
    print('  ideal MMA cycles a box: %d; boxes traced: %d in %d blocks' % (ideal, len(box_ratio), len(blocks)))
    for name, v in phases.items():
        print('  %-10s median %7.0f  mean %7.0f  min %7.0f  max %7.0f cycles' % (name, med(v), st.mean(v), min(v), max(v)))
    if lat:
        print('  first tile: producer issue -> landed, boxes where the consumer waited (%d): median %.0f, mean %.0f' % (len(lat), med(lat), st.mean(lat)))
    print('  box [2,4] vs ideal: median %.1f%% (min %.1f%%, max %.1f%%)' % (100 * med(box_ratio), 100 * min(box_ratio), 100 * max(box_ratio)))
    spans, busy = [], []
    for b, es in blocks.items():
        iv = sorted((e[2], e[4]) for e in es); union, cs, ce = 0, None, None
        for s, t in iv:
            if ce is None or s > ce:
                if ce is not None: union += ce - cs
                cs, ce = s, t
            else: ce = max(ce, t)
        union += ce - cs
        span = max(e[5] for e in es) - min(e[0] for e in es); spans.append(span); busy.append(union / span)
    print('  block span median %.0f cycles; MMA windows cover %.1f%% (median; min %.1f%%)' % (med(spans), 100 * med(busy), 100 * min(busy)))
    print('  ideal MMA cycles / block span: median %.1f%%' % (100 * med([len(es) * ideal / s for (b, es), s in zip(blocks.items(), spans)])))

if __name__ == '__main__':
    for head, rows in sections(sys.argv[1]):
        report(head, rows)

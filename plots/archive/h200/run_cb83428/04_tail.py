import sys, statistics as st
sys.path.insert(0,'/work/main/.dev')
def sections(path, width):
    head, rows = None, []
    for line in open(path):
        if line.startswith('# trace'):
            if head: yield head, rows
            head = dict(kv.split('=') for kv in line.split()[2:]); rows = []
        elif line.strip():
            v = [int(x) for x in line.split()]
            if width == 7: rows.append((v[0], v[1], v[2], v[4:10]))
            else: rows.append((v[0], v[1], v[2], v[3:9]))
    if head: yield head, rows
for path, width in ((sys.argv[1], int(sys.argv[2])),):
    for head, rows in sections(path, width):
        if not (head['PP'] == '1' and head['WM'] == '2' and head['RT'] == '3' and head['CL'] == '1'): continue
        blocks = {}
        for b, w, x, e in rows:
            if w == 0 or min(e) == 0: continue
            blocks.setdefault(b, []).append(e)
        start = [min(e[0] for e in es) for es in blocks.values()]
        t0 = min(start)
        res = []
        for b, es in blocks.items():
            s = min(e[0] for e in es); f = min(e[2] for e in es); lr = max(e[4] for e in es); end = max(e[5] for e in es)
            res.append((s - t0, f - s, lr - f, end - lr, end - t0, len(es)))
        for i, name in enumerate(['start offset', 'entry->first bytes', 'first MMA->last retire', 'tail (last epilogue)', 'end since kernel start', 'boxes']):
            v = [r[i] for r in res]; print('%-25s median %8.0f min %8.0f max %8.0f' % (name, st.median(v), min(v), max(v)))
        ends = sorted(r[4] for r in res); print('kernel end (max block end) %d; blocks with 7 boxes end median %d' % (ends[-1], st.median([r[4] for r in res if r[5]==7])))

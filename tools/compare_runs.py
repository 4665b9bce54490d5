#!/usr/bin/env python3
"""compare_runs.py: how far a new full run's medians lie from the committed reference run's.

For each GPU folder and lab, every (experiment, variant, size, param, sms) row present in both the
reference CSVs (plots/data/GPU/NN_name[.cnn|.fusion].csv) and the new run (plots/archive/GPU/RUN/NN_name.csv),
CPU rows excepted: how many new medians lie within the reference's min..max widened by 2%, the
median |deviation|, and the three rows that moved most. Usage: tools/compare_runs.py GPU:RUN ...
(default: this session's h100:run_e33c6eb h200:run_d71136d). Run from the repository root. Each lab's
headline figures (plots/report.py's HEADLINES, the instructor's page's table) are printed beside."""
import csv,sys,os,statistics
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots"))
import report  # the one table of headline figures (plots/report.py's HEADLINES)
def load(p):
    rows={}
    with open(p) as f:
        lines=[l for l in f if not l.startswith('#')]
    for r in csv.DictReader(lines):
        try: m=float(r['median_ms'])
        except: continue
        rows[report.row_key(r)]=(m,float(r['min_ms'] or m),float(r['max_ms'] or m))
    return rows
pairs=[tuple(a.split(':')) for a in sys.argv[1:]] or [('h100','run_e33c6eb'),('h200','run_d71136d')]
for gpu,new in pairs:
  for lab in ('01_coalescing','02_divergence','03_occupancy','04_convolution','05_haar'):
    olds=[f'plots/data/{gpu}/{lab}.csv']+[f'plots/data/{gpu}/{lab}.{x}.csv' for x in ('cnn','fusion')]
    o={}
    for p in olds:
        if os.path.exists(p): o.update(load(p))
    n=load(f'plots/archive/{gpu}/{new}/{lab}.csv')
    common=[k for k in o if k in n and not k[1].startswith('cpu')]
    if not common: print(gpu,lab,'no common rows'); continue
    dev=[abs(n[k][0]/o[k][0]-1) for k in common if o[k][0]>0]
    inspread=sum(1 for k in common if o[k][1]*0.98<=n[k][0]<=o[k][2]*1.02)
    w=sorted(common,key=lambda k:-abs(n[k][0]/o[k][0]-1))[:3]
    ref_rows,_=report.load_lab(f'plots/data/{gpu}',lab); new_rows,_=report.load_lab(f'plots/archive/{gpu}/{new}',lab)
    for (label,a),(_,b) in zip(report.HEADLINES[lab](ref_rows),report.HEADLINES[lab](new_rows)):
        print(f"  headline {label}: reference {a}, {new} {b}")
    print(f"{gpu} {lab}: {len(common)} rows; within old min..max +-2%: {inspread}; median |dev| {100*statistics.median(dev):.2f}%; within 3%: {sum(d<=0.03 for d in dev)}; worst: "+"; ".join(f"{k[0]}/{k[1]}/{k[2]}/{k[3]} {100*(n[k][0]/o[k][0]-1):+.1f}%" for k in w))

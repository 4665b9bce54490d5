# 03_timeline.gp - lab 03: which SM ran which block, and when, from the per-block residency
# records in the CSV's companion NAME.timeline.csv (one bar per block, one row per SM): the seed's
# S1 and S2 launches at 8192 elements, and the tail's one-wave-plus-one-chunk launch (the only tail
# launch the lab records there).
# Inputs: csv, out, fmt, gpu.
load "style.gp"

tl = csv[1:strlen(csv) - 4] . ".timeline.csv"
bar(e, v, s, name) = (strcol("experiment") eq e && strcol("variant") eq v && (s == 0 || column("size") == s)) ? column(name) : NaN
set multiplot layout 3,1 title sprintf("Lab 03 - blocks on SMs over time: SM efficiency at a glance (%s)", gpu)
set ylabel "SM"
set yrange [-2:*]
set xrange [0:*]
unset key
set style arrow 1 nohead lw 2 lc rgb "#0072B2"
set style arrow 2 nohead lw 2 lc rgb "#D55E00"

set title "seed S1, 8192 elements: 8 blocks of 1024 threads"
plot tl using (bar("seed", "S1", 8192, "start_us")):"sm":($8 - $7):(0) with vectors arrowstyle 2
set title "seed S2, 8192 elements: 128 blocks of 64 threads"
plot tl using (bar("seed", "S2", 8192, "start_us")):"sm":($8 - $7):(0) with vectors arrowstyle 1
set title "tail: one wave + 1 chunk, one block per chunk (the last block runs alone)"
set xlabel "time since the first warp started (us)"
plot tl using (bar("tail", "chunks", 0, "start_us")):(column("sm") + 0.45 * (int(column("block")) % 2)):($8 - $7):(0) \
     with vectors arrowstyle 2
unset multiplot

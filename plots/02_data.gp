# 02_data.gp - lab 02, experiment "data": time vs. the probability p of the expensive path, random
# keys vs. sorted keys, with the fraction of divergent warps on the right axis. Inputs: csv, out,
# fmt, gpu.
load "style.gp"

set title sprintf("Lab 02 - a data-dependent branch: random vs. sorted keys (%s)", gpu)
set xlabel "probability p of the expensive path"
set ylabel "time per launch (ms; median, bars: min to max)"
set y2label "fraction of warps that diverge at the branch"
# p = p64 / 64 with p64 = 0, 1, 2, 4, ..., 64: one tick each, evenly spaced.
pos(p64) = p64 == 0 ? 0 : log(p64) / log(2) + 1
set xrange [-0.3:7.3]
set xtics ("0" 0, "1/64" 1, "1/32" 2, "1/16" 3, "1/8" 4, "1/4" 5, "1/2" 6, "1" 7)
set yrange [0:*]
set y2range [0:1.05]
set y2tics nomirror out
set border 11 lw 1 lc rgb "#444444"
set key below maxrows 2 width 2
set bmargin 7

plot csv using (pos(only("data", "unsorted", "param"))):"median_ms":"min_ms":"max_ms" \
         with yerrorlines lt 3 title "random keys: time", \
     "" using (pos(only("data", "sorted", "param"))):"median_ms":"min_ms":"max_ms" \
         with yerrorlines lt 1 title "sorted keys: time", \
     "" using (pos(only("data", "unsorted", "param"))):"divergent_branch_fraction" axes x1y2 \
         with linespoints lt 3 dt (4,3) pt 6 title "random keys: divergent warps (right)", \
     "" using (pos(only("data", "sorted", "param"))):"divergent_branch_fraction" axes x1y2 \
         with linespoints lt 1 dt (4,3) pt 4 title "sorted keys: divergent warps (right)"

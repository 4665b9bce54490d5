# 02_paths_efficiency.gp - lab 02, experiment "paths": warp execution efficiency measured by the
# counting twin beside the expected 100/k. Inputs: csv, out, fmt, gpu.
load "style.gp"

set title sprintf("Lab 02 - k-way divergence: warp execution efficiency (%s)", gpu)
set xlabel "paths k"
set ylabel "lanes active per unit of work (%)"
set logscale x 2
set logscale y 2
set xrange [0.8:40]
set yrange [2:150]
set xtics (1, 2, 4, 8, 16, 32)
set ytics ("3.125" 3.125, "6.25" 6.25, "12.5" 12.5, "25" 25, "50" 50, "100" 100)
set key bottom left

plot 100.0 / x with lines ls 10 title "expected when lanes split: 100/k", \
     csv using (only("paths", "paths_lanes", "param")):"warp_exec_efficiency" with points lt 1 ps 1.6 \
         title "measured, lanes split (paths_lanes)", \
     "" using (only("paths", "paths_warps", "param")):"warp_exec_efficiency" with linespoints lt 2 \
         title "measured, one path per warp (paths_warps)"

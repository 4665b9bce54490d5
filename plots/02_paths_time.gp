# 02_paths_time.gp - lab 02, experiment "paths": time of k paths relative to one path, split
# across the lanes of every warp or one path per warp, beside the expected k. Inputs: csv, out,
# fmt, gpu.
load "style.gp"

set title sprintf("Lab 02 - k-way divergence: time relative to one path (%s)", gpu)
set xlabel "paths k"
set ylabel "time / time of one path (median)"
set logscale x 2
set logscale y 2
set xrange [0.8:40]
set yrange [0.8:40]
set xtics (1, 2, 4, 8, 16, 32)
set ytics (1, 2, 4, 8, 16, 32)
set key top left

plot x with lines ls 10 title "expected when lanes split: k", \
     1 with lines ls 11 title "expected when warps split: 1", \
     csv using (only("paths", "paths_lanes", "param")):"ratio" with linespoints lt 1 \
         title "lanes split into k groups (paths_lanes)", \
     "" using (only("paths", "paths_warps", "param")):"ratio" with linespoints lt 2 \
         title "one path per warp (paths_warps)"

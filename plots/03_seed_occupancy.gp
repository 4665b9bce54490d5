# 03_seed_occupancy.gp - lab 03, experiment "seed": theoretical occupancy (calculator = CUDA API)
# and achieved occupancy (time-weighted resident warps, measured in-program) vs size, S1 and S2,
# with the K40's achieved_occupancy from the seed document. Inputs: csv, out, fmt, gpu.
load "style.gp"

set title sprintf("Lab 03 - occupancy: theoretical vs achieved (%s)", gpu)
set xlabel "data size (elements = threads)"
set ylabel "occupancy (% of the SM's warp slots)"
set logscale x 2
set format x "2^{%L}"
set xrange [16:524288]
set yrange [0:105]
set key top left maxrows 3 width -2

$k40 << EOD
32,1.5,1.5
64,2.9,1.5
128,4.3,1.5
256,8.8,1.5
512,17,1.6
1024,35,2.8
2048,35,4.7
4096,35,9.4
8192,35,18
16384,39,39
32768,72,72
65536,77,75
EOD

plot csv using (only("seed", "S1", "size")):"theoretical_occupancy" with lines lt 3 dt (8,5) title "S1 theoretical", \
     "" using (only("seed", "S2", "size")):"theoretical_occupancy" with lines lt 1 dt (8,5) title "S2 theoretical", \
     "" using (only("seed", "S1", "size")):"achieved_occupancy" with linespoints lt 3 title "S1 achieved, this GPU", \
     "" using (only("seed", "S2", "size")):"achieved_occupancy" with linespoints lt 1 title "S2 achieved, this GPU", \
     $k40 using 1:2 with points lt 3 pt 6 title "S1 achieved, Tesla K40", \
     $k40 using 1:3 with points lt 1 pt 4 title "S2 achieved, Tesla K40"

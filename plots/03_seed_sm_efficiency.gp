# 03_seed_sm_efficiency.gp - lab 03, experiment "seed": SM efficiency (share of the SMs busy over
# the kernel's span, measured in-program from %smid / %globaltimer records) vs size, S1 and S2,
# with the K40's nvprof sm_efficiency from the seed document. Inputs: csv, out, fmt, gpu.
load "style.gp"

set title sprintf("Lab 03 - SM efficiency: how many SMs the launch keeps busy (%s)", gpu)
set xlabel "data size (elements = threads)"
set ylabel "SM efficiency (%)"
set logscale x 2
set format x "2^{%L}"
set xrange [16:524288]
set yrange [0:105]
set key top left

$k40 << EOD
32,6.54,6.55
64,6.54,12.46
128,6.54,18.83
256,6.54,37.17
512,6.54,68.48
1024,6.54,78.32
2048,13.15,96.32
4096,26.26,95.91
8192,52.41,95.10
16384,83.29,83.28
32768,62.07,62.11
65536,72.80,72.80
EOD

plot csv using (only("seed", "S1", "size")):"sm_efficiency" with linespoints lt 3 title "S1, this GPU", \
     "" using (only("seed", "S2", "size")):"sm_efficiency" with linespoints lt 1 title "S2, this GPU", \
     $k40 using 1:2 with linespoints lt 3 dt (4,3) pt 6 title "S1, Tesla K40 (15 SMX)", \
     $k40 using 1:3 with linespoints lt 1 dt (4,3) pt 4 title "S2, Tesla K40 (15 SMX)"

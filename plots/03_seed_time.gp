# 03_seed_time.gp - lab 03, experiment "seed": kernel time vs data size under the two launch
# scenarios, with the Tesla K40 times from the seed document (1,000,000 iterations there, 10,000
# here: compare the shapes, not the levels). Inputs: csv, out, fmt, gpu.
load "style.gp"

set title sprintf("Lab 03 - the seed's vector_add: S1 (few full blocks) vs S2 (one block per SM first) (%s)", gpu)
set xlabel "data size (elements = threads)"
set ylabel "time per launch (ms; median, bars: min to max)"
set y2label "Tesla K40 time (ms, seed document)"
set logscale x 2
set format x "2^{%L}"
set xrange [16:524288]
set yrange [0:*]
set y2range [0:*]
set y2tics nomirror out
set border 11 lw 1 lc rgb "#444444"
set key top left

$k40 << EOD
32,0.35,0.35
64,0.41,0.41
128,0.69,0.69
256,0.70,0.69
512,0.71,0.69
1024,0.74,0.70
2048,0.75,0.70
4096,0.75,0.72
8192,0.75,0.74
16384,0.91,0.91
32768,1.6,1.6
65536,2.49,2.49
EOD

plot csv using (only("seed", "S1", "size")):"median_ms":"min_ms":"max_ms" with yerrorlines lt 3 \
         title "S1, this GPU", \
     "" using (only("seed", "S2", "size")):"median_ms":"min_ms":"max_ms" with yerrorlines lt 1 \
         title "S2, this GPU", \
     $k40 using 1:2 axes x1y2 with linespoints lt 3 dt (4,3) pt 6 title "S1, Tesla K40 (right axis)", \
     $k40 using 1:3 axes x1y2 with linespoints lt 1 dt (4,3) pt 4 title "S2, Tesla K40 (right axis)"

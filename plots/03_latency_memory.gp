# 03_latency_memory.gp - lab 03, experiment "latency": bandwidth of the memory-bound kernels vs
# resident warps per SM, against the same run's cudaMemcpy. Inputs: csv, out, fmt, gpu, copy_gbs.
load "style.gp"

set title sprintf("Lab 03 - a memory-bound kernel needs bytes in flight: warps x bytes per warp (%s)", gpu)
set xlabel "resident warps per SM (theoretical occupancy = warps / 64 on Hopper)"
set ylabel "GB/s (median)"
set logscale x 2
set xrange [0.8:80]
set xtics (1, 2, 4, 8, 16, 32, 64)
set yrange [0:*]
set key bottom right
set arrow from graph 0, first 0.9 * copy_gbs to graph 1, first 0.9 * copy_gbs nohead ls 12
set label "90% of cudaMemcpy" at graph 0.02, first 0.9 * copy_gbs offset 0, -0.8

plot csv using (only("latency", "stream", "param")):"gbs" with linespoints lt 3 title "stream: 4 B per load, 1 in flight", \
     "" using (only("latency", "stream_ilp4", "param")):"gbs" with linespoints lt 2 title "stream_ilp4: 4 loads in flight", \
     "" using (only("latency", "stream_vec4", "param")):"gbs" with linespoints lt 4 title "stream_vec4: 16 B per load", \
     "" using (only("latency", "stream_vec4_ilp4", "param")):"gbs" with linespoints lt 1 title "stream_vec4_ilp4: 4 x 16 B in flight", \
     copy_gbs with lines ls 11 title sprintf("cudaMemcpy D2D, same run (%.0f GB/s)", copy_gbs)

# 03_latency_compute.gp - lab 03, experiment "latency": FP32 throughput of the compute-bound
# kernels vs resident warps per SM: one dependent FMA chain per thread, or four. Inputs: csv, out,
# fmt, gpu.
load "style.gp"

set title sprintf("Lab 03 - a compute-bound kernel: FMA latency is hidden by warps or by ILP (%s)", gpu)
set xlabel "resident warps per SM"
set ylabel "GFLOP/s (median)"
set logscale x 2
set xrange [0.8:80]
set xtics (1, 2, 4, 8, 16, 32, 64)
set yrange [0:*]
set key bottom right

plot csv using (only("latency", "fma", "param")):"gflops" with linespoints lt 3 title "fma: one dependent chain per thread", \
     "" using (only("latency", "fma_ilp4", "param")):"gflops" with linespoints lt 1 title "fma_ilp4: four independent chains"

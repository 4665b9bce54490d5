# 03_limits.gp - lab 03, experiment "limits": theoretical occupancy (the lab's calculator, equal to
# the CUDA API on every row) and achieved occupancy against each resource, three panels: threads
# per block, registers per thread, shared memory per block. Inputs: csv, out, fmt, gpu.
load "style.gp"

set multiplot layout 1,3 title sprintf("Lab 03 - what caps resident warps: one resource at a time (%s)", gpu)
set yrange [0:105]
set ylabel "occupancy (%)"
set key bottom left

set title "threads per block"
set xlabel "threads per block"
set logscale x 2
set xrange [24:1400]
plot csv using (only("limits", "block_size", "param")):"theoretical_occupancy" with linespoints lt 1 title "theoretical", \
     "" using (only("limits", "block_size", "param")):"achieved_occupancy" with linespoints lt 2 title "achieved"
unset logscale x
unset ylabel

set title "registers per thread"
set xlabel "registers per thread (cudaFuncGetAttributes)"
set xrange [0:256]
plot csv using (only("limits", "registers", "param")):"theoretical_occupancy" with points lt 1 title "theoretical", \
     "" using (only("limits", "registers", "param")):"achieved_occupancy" with points lt 2 title "achieved"

set title "shared memory per block"
set xlabel "dynamic shared memory per block (KiB)"
set xrange [-8:240]
plot csv using (only("limits", "smem", "param") / 1024):"theoretical_occupancy" with linespoints lt 1 title "theoretical", \
     "" using (only("limits", "smem", "param") / 1024):"achieved_occupancy" with linespoints lt 2 title "achieved"
unset multiplot

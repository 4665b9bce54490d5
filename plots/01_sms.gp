# 01_sms.gp - lab 01, experiment "sms": copy and copy_vec4 bandwidth, and cudaMemcpy's, against the
# number of SMs the run gives them (CUDA green contexts); how many SMs it takes to saturate DRAM.
# Inputs: csv, out, fmt, gpu.
load "style.gp"

set title sprintf("Lab 01 - bandwidth vs. SMs (green contexts; L2 and DRAM stay the whole GPU's) (%s)", gpu)
set xlabel "SMs the kernels run on"
set ylabel "GB/s (bytes read + written; median)"
set xrange [0:*]
set yrange [0:*]
set key bottom right

plot csv using (only("sms", "copy_vec4", "sms")):"gbs" with linespoints lt 1 title "copy\\_vec4 (16-byte accesses)", \
     "" using (only("sms", "copy", "sms")):"gbs" with linespoints lt 2 title "copy (4-byte accesses)", \
     "" using (only("sms", "memcpy_d2d", "sms")):"gbs" with linespoints lt 3 title "cudaMemcpy device to device"

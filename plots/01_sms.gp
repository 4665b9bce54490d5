# 01_sms.gp - lab 01, experiment "sms": copy and copy_vec4 bandwidth, and cudaMemcpy's, against the
# number of SMs the run gives them (CUDA green contexts); how many SMs it takes to saturate DRAM.
# Inputs: csv, out, fmt, gpu.
load "style.gp"

# CSVs of runs before the sms experiment existed (or without --only sms): a note, not an error.
n_sms = int(system(sprintf("grep -c '^[^#]*,sms,' '%s' || true", csv)))
if (n_sms == 0) {
    set title sprintf("Lab 01 - sms (%s): no sms rows in this CSV (run --only sms)", gpu)
    unset border; unset tics; unset key
    set label "no sms rows" at graph 0.5, graph 0.5 center
    set yrange [0:4]; plot 2 notitle lc rgb "white"
} else {
    set title sprintf("Lab 01 - bandwidth vs. SMs (green contexts; L2 and DRAM stay the whole GPU's) (%s)", gpu)
    set xlabel "SMs the kernels run on"
    set ylabel "GB/s (bytes read + written; median)"
    set xrange [0:*]
    set yrange [0:*]
    set key bottom right

    plot csv using (only("sms", "copy_vec4", "sms")):"gbs" with linespoints lt 1 title "copy\\_vec4 (16-byte accesses)", \
         "" using (only("sms", "copy", "sms")):"gbs" with linespoints lt 2 title "copy (4-byte accesses)", \
         "" using (only("sms", "memcpy_d2d", "sms")):"gbs" with linespoints lt 3 title "cudaMemcpy device to device"
}

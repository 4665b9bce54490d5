# 01_bw_vs_offset.gp - lab 01, experiment "offset": copy bandwidth vs. misalignment of the
# start address, against the cudaMemcpy ceiling. Inputs: csv, out, fmt, gpu, copy_gbs.
load "style.gp"

set title sprintf("Lab 01 - copy bandwidth vs. misaligned start (%s)", gpu)
set xlabel "offset (elements from the aligned start)"
set ylabel "bandwidth (GB/s, bytes read + written)"
set xrange [-0.5:32.5]
set xtics 4
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0   # room for the label above the cudaMemcpy line
set key bottom right
set label sprintf("cudaMemcpy D2D: %.0f GB/s", copy_gbs) at graph 0.02, first copy_gbs offset 0, 0.7

plot csv using (only("offset", "copy_offset", "param")):"gbs" with linespoints lt 1 title "copy_offset", \
     copy_gbs with lines ls 11 notitle

# 01_bw_vs_stride.gp - lab 01, experiment "stride": copy bandwidth and sectors per request vs.
# stride, against the cudaMemcpy ceiling. Inputs: csv, out, fmt, gpu, copy_gbs.
load "style.gp"

set title sprintf("Lab 01 - copy bandwidth vs. access stride (%s)", gpu)
set xlabel "stride (elements between neighbouring threads)"
set ylabel "bandwidth (GB/s, bytes read + written)"
set y2label "32-byte sectors per warp load request"
set xrange [0.5:32.5]
set xtics 1, 1
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0   # room for the label above the cudaMemcpy line
set y2range [0:48]   # 32 sectors (the maximum) at two thirds of the height
set y2tics 0, 8 nomirror out
set border 11 lw 1 lc rgb "#444444"
set key center right
set label sprintf("cudaMemcpy D2D: %.0f GB/s", copy_gbs) at graph 0.02, first copy_gbs offset 0, 0.7

plot csv using (only("stride", "copy_stride", "param")):"gbs" with linespoints lt 1 title "bandwidth", \
     "" using (only("stride", "copy_stride", "param")):"sectors_per_request" axes x1y2 \
         with linespoints lt 2 title "sectors/request (right axis)", \
     copy_gbs with lines ls 11 notitle

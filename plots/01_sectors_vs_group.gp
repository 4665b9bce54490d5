# 01_sectors_vs_group.gp - lab 01, experiment "groups", variant "semi": 32-byte sectors per warp
# request (measured vs. model) and kernel time vs. group size. Inputs: csv, out, fmt, gpu.
load "style.gp"

set title sprintf("Lab 01 - sectors per request and time vs. group size, variant semi (%s)", gpu)
set xlabel "group size (128-byte segments)"
set ylabel "32-byte sectors per warp load request"
set y2label "time per launch (ms, median; log scale)"
set logscale x 2
set format x "2^{%L}"
set yrange [0:*]
set logscale y2 10
set y2range [*:*]
set y2tics nomirror out
set border 11 lw 1 lc rgb "#444444"
set key bottom right

plot csv using (only("groups", "semi", "param")):"expected_sectors_per_request" \
         with lines ls 10 title "sectors/request, model", \
     "" using (only("groups", "semi", "param")):"sectors_per_request" \
         with points lt 1 title "sectors/request, measured", \
     "" using (only("groups", "semi", "param")):"median_ms" axes x1y2 \
         with linespoints lt 2 title "time (right axis)"

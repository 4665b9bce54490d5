# 05_sizes.gp - lab 05: time of every rung (forward, 4 levels) against the image size, from the
# seed's 512^2 to 16384^2 (experiments "paper" and "sizes"), log-log. Inputs: csv, out, fmt, gpu.
load "style.gp"

set title sprintf("Lab 05 - Haar forward, 4 levels: time per rung vs image size (%s)", gpu)
set xlabel "image size (pixels)"
set ylabel "ms per transform (median)"
set logscale xy
set format x "2^{%L}"
set logscale x 2
set key top left
rung(v, name) = ((strcol("experiment") eq "paper" || strcol("experiment") eq "sizes") && strcol("variant") eq v \
                 && column("param") == 4) ? column(name) : NaN
plot csv using (rung("seed", "size")):"median_ms" with linespoints lt 3 title "1 seed (processRows / processColumns)", \
     "" using (rung("coalesced", "size")):"median_ms" with linespoints lt 2 title "2 coalesced columns", \
     "" using (rung("fused_level", "size")):"median_ms" with linespoints lt 1 title "3 one kernel per level", \
     "" using (rung("single_pass", "size")):"median_ms" with linespoints lt 4 title "4 all levels in one pass", \
     "" using (rung("single_pass", "size")):(8.0 * column("size") / (copy_gbs * 1e6)) with lines ls 11 \
        title sprintf("floor: 8 bytes/pixel at cudaMemcpy's %.0f GB/s", copy_gbs)

# 02_seed.gp - lab 02, experiment "seed": the divergent / non-divergent time ratio at each size,
# with the K40's 3.10x at 4194304 elements (from the seed document), and the L2 boundary.
# Inputs: csv, out, fmt, gpu, l2_bytes.
load "style.gp"

set title sprintf("Lab 02 - the seed's pair: warp_divergence / warp_no_divergence (%s)", gpu)
set xlabel "array size (elements)"
set ylabel "time ratio (medians)"
set logscale x 2
set format x "2^{%L}"
set xrange [2**14:2**28]
set yrange [0:*]
set key top left

# The three arrays (4 bytes each per element) fill the L2 at size = l2_bytes / 12.
l2_fill = l2_bytes / 12.0
set arrow from l2_fill, graph 0 to l2_fill, graph 1 nohead ls 12
set label sprintf("A, B, C fill the L2\n(%.0f MiB)", l2_bytes / 2.0**20) at l2_fill, graph 0.1 right offset -0.7, 0

$k40 << EOD
4194304,3.10078
EOD

plot csv using (only("seed", "warp_divergence", "size")):"ratio" with linespoints lt 1 \
         title "this GPU, measured", \
     4 with lines ls 10 title "4 paths run one after another: 4x", \
     $k40 using 1:2 with points lt 3 pt 9 ps 2 title "Tesla K40 (seed document): 3.10x"

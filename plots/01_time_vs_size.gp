# 01_time_vs_size.gp - lab 01, experiment "seed": kernel time vs. array size, one line per
# access pattern, log-log. Inputs: csv, out, fmt, gpu, l2_bytes.
load "style.gp"
variants = "coalesced semi16 noncoalesced"

set title sprintf("Lab 01 - kernel time vs. array size, three access patterns (%s)", gpu)
set xlabel "array size (elements)"
set ylabel "time per launch (ms; median, bars: min to max)"
set logscale x 2
set format x "2^{%L}"
set logscale y 10
set key top left

# The two input arrays (4 bytes each per element) fill the L2 at size = l2_bytes / 8.
l2_fill = l2_bytes / 8.0
set arrow from l2_fill, graph 0 to l2_fill, graph 1 nohead ls 12
set label sprintf("both inputs fill the L2 (%.0f MiB)\nat size = L2 bytes / 8", l2_bytes / 2.0**20) \
    at l2_fill, graph 0.06 right offset -0.7, 1.2

plot for [i = 1:words(variants)] csv \
    using (only("seed", word(variants, i), "size")):"median_ms":"min_ms":"max_ms" \
    with yerrorlines lt i title word(variants, i)

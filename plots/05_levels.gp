# 05_levels.gp - lab 05, experiment "levels": GB/s on the single-pass floor (8 bytes per pixel,
# whatever L is) against the number of levels, per rung, forward (solid) and inverse (dashed).
# Inputs: csv, out, fmt, gpu, copy_gbs.
load "style.gp"

# GB/s on the floor, as a macro (defined outside the block: @ is expanded when the block is read)
fgbs = "8.0 * column(\"size\") / (column(\"median_ms\") * 1e6)"
n_levels = int(system(sprintf("grep -c '^[^#]*,levels,' '%s' || true", csv)))
if (n_levels == 0) {
    set title sprintf("Lab 05 - levels (%s): no levels rows in this CSV (run --only levels)", gpu)
    unset border; unset tics; unset key
    set label "no levels rows" at graph 0.5, graph 0.5 center
    set yrange [0:4]; plot 2 notitle lc rgb "white"
} else {
    set title sprintf("Lab 05 - what each level costs: GB/s on the 8-byte-per-pixel floor (%s)", gpu)
    set xlabel "levels L"
    set ylabel "GB/s on the floor (2 x 4 bytes per pixel, median)"
    set yrange [0:*]
    set xrange [0.5:*]
    set key outside right top vertical
    # levels 1..4 as lines; the deepest transform (L = 13 at 8192^2) as points alone: nothing was
    # measured between 4 and 13, so no line joins them
    lv(v) = (strcol("experiment") eq "levels" && strcol("variant") eq v && column("param") <= 4) ? column("param") : NaN
    ld(v) = (strcol("experiment") eq "levels" && strcol("variant") eq v && column("param") > 4) ? column("param") : NaN
    plot csv using (lv("seed")):(@fgbs) with linespoints lt 3 title "1 seed", \
         "" using (ld("seed")):(@fgbs) with points lt 3 notitle, \
         "" using (lv("coalesced")):(@fgbs) with linespoints lt 2 title "2 coalesced", \
         "" using (ld("coalesced")):(@fgbs) with points lt 2 notitle, \
         "" using (lv("fused_level")):(@fgbs) with linespoints lt 1 title "3 per level", \
         "" using (ld("fused_level")):(@fgbs) with points lt 1 notitle, \
         "" using (lv("single_pass")):(@fgbs) with linespoints lt 4 title "4 single pass", \
         "" using (ld("single_pass")):(@fgbs) with points lt 4 notitle, \
         "" using (lv("seed_inv")):(@fgbs) with linespoints lt 3 dt (4,3) pt 6 title "1 seed, inverse", \
         "" using (ld("seed_inv")):(@fgbs) with points lt 3 pt 6 notitle, \
         "" using (lv("coalesced_inv")):(@fgbs) with linespoints lt 2 dt (4,3) pt 4 title "2 coalesced, inverse", \
         "" using (ld("coalesced_inv")):(@fgbs) with points lt 2 pt 4 notitle, \
         "" using (lv("fused_level_inv")):(@fgbs) with linespoints lt 1 dt (4,3) pt 6 title "3 per level, inverse", \
         "" using (ld("fused_level_inv")):(@fgbs) with points lt 1 pt 6 notitle, \
         "" using (lv("single_pass_inv")):(@fgbs) with linespoints lt 4 dt (4,3) pt 12 title "4 single pass, inverse", \
         "" using (ld("single_pass_inv")):(@fgbs) with points lt 4 pt 12 notitle, \
         copy_gbs with lines ls 11 title sprintf("cudaMemcpy D2D (%.0f GB/s)", copy_gbs)
}

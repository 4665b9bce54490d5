# 04_median.gp - lab 04, part 3 (experiment "median"): the median 3x3 ladder at the largest picture
# of the run (the seed's two kernels and the curated ladder of `convolution --ladders`; the --all
# rungs are the notebook's) - each rung's speed-up over the scalar rung beside the seed's (vector +20%, local
# memory +35%), and its bandwidth as % of the same run's memcpy on the floor of one read and one
# write per pixel. Reads the median rows of the CSV or of its companion NAME.fusion.csv (as
# 04_fusion.gp). Without median rows it draws a note. Inputs: csv, out, fmt, gpu.
load "style.gp"

companion = csv[1:strlen(csv) - 4] . ".fusion.csv"
src = system(sprintf("test -f '%s' && echo 1 || echo 0", companion)) eq "1" ? companion : csv

# One line per rung at the largest size: rung speed-up pct_of_copy seed_speedup width height
rows = 'awk -F, ''/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next } \
  $c["experiment"] == "median" { s = $c["size"] + 0; if (s > big) big = s; r = $c["variant"]; \
  t[s, r] = $c["median_ms"]; q[s, r] = $c["pct_of_copy"]; wd[s] = $c["param"] } \
  END { if (!big) exit; split("scalar vector shared best dpx w16_r4 w16_r4_cs w16_lean w16_keys w16_keys_we", R, " "); \
  split("1 1.20 1.35 NaN NaN NaN NaN NaN NaN NaN", S, " "); for (i = 1; i <= 10; i++) if ((big, R[i]) in t) \
    print R[i], t[big, "scalar"] / t[big, R[i]], q[big, R[i]], S[i], wd[big], big / wd[big] }'' '
n_rows = int(system(sprintf("%s '%s' | wc -l", rows, src)))

if (n_rows < 4) {
    set title sprintf("Lab 04 - the median ladder (%s): no median rows in this CSV (run --only median)", gpu)
    unset border; unset tics; unset key
    set label "no median rows" at graph 0.5, graph 0.5 center
    set yrange [0:4]; plot 2 notitle lc rgb "white"
} else {
    data = sprintf("< %s '%s'", rows, src)
    w = int(system(sprintf("%s '%s' | head -1 | cut -d' ' -f5", rows, src)))
    h = int(system(sprintf("%s '%s' | head -1 | cut -d' ' -f6", rows, src)))
    set datafile separator whitespace
    set multiplot layout 1,2 title sprintf("Lab 04 - the median 3x3 ladder at %d x %d (%s)", w, h, gpu)
    set style data histograms
    set style histogram clustered gap 1
    set style fill solid 0.85 border -1
    set yrange [0:*]
    set offsets 0, 0, graph 0.35, 0
    set xtics noenhanced rotate by -30
    set key top left
    set title "speed-up over the scalar rung (goal: best >= 3x)"
    set ylabel "speed-up (x)"
    plot data using 2:xtic(1) lt 1 title "ours", "" using 4 lt 4 title "the seed (GT555M / Vivante)", \
         3 with lines ls 10 title "goal 3x"
    set title "bandwidth on 2 bytes per pixel"
    set ylabel "% of this run's cudaMemcpy D2D"
    set yrange [0:110]
    plot data using 3:xtic(1) lt 2 title "% of memcpy", 100 with lines ls 11 title "memcpy"
    unset multiplot
}

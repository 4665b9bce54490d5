# 04_cnn.gp - lab 04, part 2 (experiment "cnn"): time per call of every variant per configuration
# (log scale), and GFLOP/s, cuDNN marked. Reads the cnn rows of the CSV, or of its companion
# NAME.cnn.csv when that exists (a cnn-only run kept beside a full one). "ours" is the fastest FP32
# rung of the ladder per configuration (variants ours<N>_<shape>@CONFIG; older runs had one rung,
# spelled ours@CONFIG: the same rule reads both); every rung is drawn as a small dot. Without cnn
# rows it draws a note instead of failing. Inputs: csv, out, fmt, gpu.
load "style.gp"

companion = csv[1:strlen(csv) - 4] . ".cnn.csv"
src = system(sprintf("test -f '%s' && echo 1 || echo 0", companion)) eq "1" ? companion : csv
kind(s) = s[1:strstrt(s, "@") - 1]
is(v) = strcol("experiment") eq "cnn" && strstrt(strcol("variant"), "@") > 0 && kind(strcol("variant")) eq v
x(v) = is(v) ? column("param") : NaN
# a rung of ours: "ours" or "ours<digit>..." (not the tensor-core rungs' own classes: see plots/README.md)
is_rung = 'strcol("experiment") eq "cnn" && strstrt(strcol("variant"), "@") > 0 && strcol("variant")[1:4] eq "ours"'
x_rung(dummy) = (@is_rung) ? column("param") : NaN
# the fastest rung per configuration (param, median_ms, gflops, rung): an awk pass over the CSV
best = sprintf("< awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next } \
  $c[\"experiment\"] == \"cnn\" && $c[\"variant\"] ~ /^ours[0-9]*(_[^@]*)?@/ && $c[\"variant\"] !~ /^ours[0-9]*_(tf32|bf16|fp16)/ { \
    p = $c[\"param\"]; t = $c[\"median_ms\"] + 0; if (!(p in ms) || t < ms[p]) { ms[p] = t; g[p] = $c[\"gflops\"] } } \
  END { for (p in ms) print p \",\" ms[p] \",\" g[p] }' '%s' | sort -n", src)

n_cnn = int(system(sprintf("grep -c '^[^#]*,cnn,' '%s' || true", src)))
if (n_cnn == 0) {
    set title sprintf("Lab 04 - CNN convolution (%s): no cnn rows in this CSV (run --only cnn)", gpu)
    unset border; unset tics; unset key
    set label "no cnn rows" at graph 0.5, graph 0.5 center
    set yrange [0:4]; plot 2 notitle lc rgb "white"
} else {
    stats src using (strcol("experiment") eq "cnn" ? column("param") : NaN) nooutput
    # x tics: the configuration names of the cudnn@NAME or ours...@NAME rows at their param (the config index)
    eval system(sprintf("awk -F, '$2 == \"cnn\" && $3 ~ /^(cudnn|ours[0-9_a-z]*)@/ && !seen[$5]++ { sub(/^[^@]*@/, \"\", $3); t = t sep \"\\\"\" $3 \"\\\" \" $5; sep = \", \" } END { print \"set xtics (\" t \")\" }' '%s'", src))
    set multiplot layout 2,1 title sprintf("Lab 04 - CNN convolution, FP32 (%s)", gpu)
    set xrange [-0.6:STATS_max + 0.6]
    set xtics rotate by -30 left noenhanced font ",9"
    set logscale y
    set ylabel "ms per call (log)"
    set key top left maxrows 2 width -2
    plot src using (x("split")):"median_ms" with points lt 3 pt 9 ps 1.3 title "split (the seed)", \
         "" using (x("fused")):"median_ms" with points lt 2 pt 5 ps 1.2 title "fused (the seed)", \
         "" using (x_rung(0)):"median_ms" with points lt 1 pt 7 ps 0.5 title "every rung of ours", \
         best using 1:2 with points lt 1 pt 6 ps 1.8 title "ours (fastest FP32 rung)" noenhanced, \
         src using (x("cudnn")):"median_ms" with points lt 4 pt 13 ps 1.5 title "cuDNN (FMA math)"
    unset logscale y
    set ylabel "GFLOP/s (2 N M C R S H W / time)"
    set yrange [0:*]
    plot best using 1:3 with linespoints lt 1 title "ours (fastest FP32 rung)", \
         src using (x("cudnn")):"gflops" with linespoints lt 4 lw 3 title "cuDNN", \
         "" using (x("fused")):"gflops" with linespoints lt 2 title "fused"
    unset multiplot
}

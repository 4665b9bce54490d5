# 04_cnn.gp - lab 04, part 2 (experiment "cnn"): time per call of every variant per configuration
# (log scale), and GFLOP/s, cuDNN marked. Reads the cnn rows of the CSV, or of its companion
# NAME.cnn.csv when that exists (a cnn-only run kept beside a full one). Without cnn rows it draws
# a note instead of failing. Inputs: csv, out, fmt, gpu.
load "style.gp"

companion = csv[1:strlen(csv) - 4] . ".cnn.csv"
src = system(sprintf("test -f '%s' && echo 1 || echo 0", companion)) eq "1" ? companion : csv
kind(s) = s[1:strstrt(s, "@") - 1]
config(s) = s[strstrt(s, "@") + 1:]
is(v) = strcol("experiment") eq "cnn" && strstrt(strcol("variant"), "@") > 0 && kind(strcol("variant")) eq v
x(v) = is(v) ? column("param") : NaN

n_cnn = int(system(sprintf("grep -c '^[^#]*,cnn,' '%s' || true", src)))
if (n_cnn == 0) {
    set title sprintf("Lab 04 - CNN convolution (%s): no cnn rows in this CSV (run --only cnn)", gpu)
    unset border; unset tics; unset key
    set label "no cnn rows" at graph 0.5, graph 0.5 center
    plot 2 notitle lc rgb "white"
} else {
    stats src using (x("ours")) nooutput
    # x tics: the configuration names of the ours@NAME rows at their param (the config index)
    eval system(sprintf("awk -F, '$2 == \"cnn\" && $3 ~ /^ours@/ { sub(/^ours@/, \"\", $3); t = t sep \"\\\"\" $3 \"\\\" \" $5; sep = \", \" } END { print \"set xtics (\" t \")\" }' '%s'", src))
    set multiplot layout 2,1 title sprintf("Lab 04 - CNN convolution, FP32 (%s)", gpu)
    set xrange [-0.6:STATS_max + 0.6]
    set xtics rotate by -30 left noenhanced font ",9"
    set logscale y
    set ylabel "ms per call (log)"
    set key top left maxrows 2 width -2
    plot src using (x("split")):"median_ms" with points lt 3 pt 9 ps 1.3 title "split (the seed)", \
         "" using (x("fused")):"median_ms" with points lt 2 pt 5 ps 1.2 title "fused (the seed)", \
         "" using (x("ours")):"median_ms" with points lt 1 pt 7 ps 1.3 title "ours (implicit GEMM)", \
         "" using (x("cudnn")):"median_ms" with points lt 4 pt 13 ps 1.5 title "cuDNN (FMA math)"
    unset logscale y
    set ylabel "GFLOP/s (2 N M C R S H W / time)"
    set yrange [0:*]
    plot src using (x("ours")):"gflops" with linespoints lt 1 title "ours", \
         "" using (x("cudnn")):"gflops" with linespoints lt 4 lw 3 title "cuDNN", \
         "" using (x("fused")):"gflops" with linespoints lt 2 title "fused"
    unset multiplot
}

# 04_fusion.gp - lab 04, part 3 (experiment "fusion"): at the largest picture of the run, the time
# of each mode (sequential, connected, fused) of both pipelines, stacked as kernels + transfers
# (transfers = e2e - kernels), and fusion's gains beside the seed's (+32% pixel-wise, +17%
# block-based, its average). Reads the fusion rows of the CSV, or of its companion
# NAME.fusion.csv when that exists (a fusion/median run kept beside a full one). Without fusion
# rows it draws a note instead of failing. Inputs: csv, out, fmt, gpu.
load "style.gp"

companion = csv[1:strlen(csv) - 4] . ".fusion.csv"
src = system(sprintf("test -f '%s' && echo 1 || echo 0", companion)) eq "1" ? companion : csv

# One line per pipeline and mode at the largest size: pipeline mode kernels transfers e2e width height
rows = 'awk -F, ''/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next } \
  $c["experiment"] == "fusion" { split($c["variant"], v, "/"); s = $c["size"] + 0; if (s > big) big = s; \
  t[s, v[1] "/" v[2] "/" v[3]] = $c["median_ms"]; wd[s] = $c["param"] } \
  END { if (!big) exit; split("pixel block", P, " "); split("sequential connected fused", M, " "); \
  for (p = 1; p <= 2; p++) for (m = 1; m <= 3; m++) { k = t[big, P[p] "/" M[m] "/kernels"]; \
  e = t[big, P[p] "/" M[m] "/e2e"]; print P[p], M[m], k, e - k, e, wd[big], big / wd[big] } }'' '
# Per pipeline: fusion's gain (%) e2e over sequential, e2e over connected, kernels over connected;
# the seed's average gain.
gain_awk = 'awk ''{ e[$1, $2] = $5; k[$1, $2] = $3 } END { split("pixel block", P, " "); split("32 17", S, " "); \
  for (i = 1; i <= 2; i++) { p = P[i]; printf "%s %.1f %.1f %.1f %s\n", p, 100 * (e[p, "sequential"] / e[p, "fused"] - 1), \
  100 * (e[p, "connected"] / e[p, "fused"] - 1), 100 * (k[p, "connected"] / k[p, "fused"] - 1), S[i] } }'' '
n_rows = int(system(sprintf("%s '%s' | wc -l", rows, src)))

if (n_rows < 6) {
    set title sprintf("Lab 04 - kernel fusion (%s): no fusion rows in this CSV (run --only fusion)", gpu)
    unset border; unset tics; unset key
    set label "no fusion rows" at graph 0.5, graph 0.5 center
    set yrange [0:4]; plot 2 notitle lc rgb "white"
} else {
    data = sprintf("< %s '%s'", rows, src)
    gains = sprintf("< %s '%s' | %s", rows, src, gain_awk)
    w = int(system(sprintf("%s '%s' | head -1 | cut -d' ' -f6", rows, src)))
    h = int(system(sprintf("%s '%s' | head -1 | cut -d' ' -f7", rows, src)))
    set datafile separator whitespace
    set multiplot layout 1,3 title sprintf("Lab 04 - kernel fusion at %d x %d: sequential / connected / fused (%s); host memory pinned", w, h, gpu)
    set style data histograms
    set style histogram rowstacked
    set style fill solid 0.85 border -1
    set boxwidth 0.6
    set yrange [0:*]
    set ylabel "ms per pipeline run (median)"
    set key top right
    set xtics noenhanced rotate by -25 left
    set title "pixel-wise (RGBA -> 5 stages -> gray)"
    plot data every ::0::2 using 3:xtic(2) lt 1 title "kernels", "" every ::0::2 using 4 lt 2 title "transfers"
    set title "block-based (gauss -> median -> sobel)"
    plot data every ::3::5 using 3:xtic(2) lt 1 title "kernels", "" every ::3::5 using 4 lt 2 title "transfers"
    set title "fusion's gain (mode / fused - 1)"
    set style histogram clustered gap 1
    set ylabel "gain (%, log)"
    set logscale y
    set yrange [1:20000]
    set key top left font ",8" opaque samplen 1 spacing 1
    plot gains using 2:xtic(1) lt 2 title "e2e over sequential", "" using 3 lt 3 title "e2e over connected", \
         "" using 4 lt 1 title "kernels over connected", "" using 5 lt 4 title "the seed (its average)"
    unset multiplot
}

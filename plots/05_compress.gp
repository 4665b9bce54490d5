# 05_compress.gp - lab 05, experiment "compress": rate-distortion, PSNR against the share of
# coefficients kept, for the average (seed) and the orthonormal convention. Reads the companion
# NAME.compress.csv beside the CSV; without it, a note. Inputs: csv, out, fmt, gpu.
load "style.gp"

src = csv[1:strlen(csv) - 4] . ".compress.csv"
have = system(sprintf("test -f '%s' && echo 1 || echo 0", src)) eq "1"
if (!have) {
    set title sprintf("Lab 05 - compression (%s): no companion .compress.csv beside this CSV", gpu)
    unset border; unset tics; unset key
    set label "no compress results" at graph 0.5, graph 0.5 center
    set yrange [0:4]; plot 2 notitle lc rgb "white"
} else {
    set title sprintf("Lab 05 - keep the largest k%%, reconstruct: PSNR vs kept share (%s)", gpu)
    set xlabel "coefficients kept (%)"
    set ylabel "PSNR (dB, 8-bit, rounded and clamped)"
    set logscale x
    set xrange [0.8:60]
    set key bottom right
    conv(c) = strcol("convention") eq c ? column("keep_pct") : NaN
    plot src using (conv("orthonormal")):"psnr_db" with linespoints lt 1 title "orthonormal (1/sqrt 2 per pass): MSE = dropped energy", \
         "" using (conv("average")):"psnr_db" with linespoints lt 3 title "average ((a+b)/2: the seed): thresholds the wrong sizes"
}

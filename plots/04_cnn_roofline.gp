# 04_cnn_roofline.gp - lab 04, part 2 (issue 19 part 4): the roofline of the CNN layers. Every
# layer's rows as arithmetic intensity (FLOP per byte of x + w + y, the least traffic: column
# `intensity`) against achieved GFLOP/s (log-log): every FP32 and tensor-core rung of ours, the fastest FP32 rung (named
# by its configuration) and cuDNN: FP32 (FMA math), its tensor-core rows on NCHW tensors (the layout
# changed inside the timed call), and in its best layout, NHWC (`*_nhwc`: BF16, FP16, TF32, the
# convolution alone), with our rows on the same NHWC tensors (`ours_*_tma_nhwc`) marked beside it. Roofs: the FP32 peak from the SM clock measured in the run
# ('# cnn_peak_fp32_gflops='), the tensor-core peaks where the run printed them (sm_90), and the
# memory roof: this run's cudaMemcpy D2D ('# copy_gbs=') times the intensity. Reads the companion
# NAME.cnn.csv when it exists. Runs before the roofline columns (no `intensity` column or no peak
# line) draw a note instead. Inputs: csv, out, fmt, gpu.
load "style.gp"
set style line 13 lc rgb "#aaaaaa" lw 1.5 dt (1,2)   # a second tensor-core roof

companion = csv[1:strlen(csv) - 4] . ".cnn.csv"
src = system(sprintf("test -f '%s' && echo 1 || echo 0", companion)) eq "1" ? companion : csv
meta(key) = system(sprintf("awk -F= '/^# %s=/ { print $2; exit }' '%s'", key, src))
have_cols = system(sprintf("grep -m1 '^lab,' '%s' | grep -c ',intensity,' || true", src)) eq "1"
fp32 = meta("cnn_peak_fp32_gflops")
n_cnn = int(system(sprintf("grep -c '^[^#]*,cnn,' '%s' || true", src)))

kind(s) = s[1:strstrt(s, "@") - 1]
is_cnn = 'strcol("experiment") eq "cnn" && strstrt(strcol("variant"), "@") > 0'
# tensor-core rows (TF32, BF16, FP16 in the name) are drawn apart from the FP32 ones: they sit under
# their own roofs, above the FP32 one
is_tc(s) = strstrt(s, "tf32") > 0 || strstrt(s, "bf16") > 0 || strstrt(s, "fp16") > 0
rung(tc) = (@is_cnn) && strcol("variant")[1:4] eq "ours" && is_tc(kind(strcol("variant"))) == tc ? column("intensity") : NaN
is_nhwc(s) = strstrt(s, "_nhwc") > 0
peer(tc) = (@is_cnn) && kind(strcol("variant"))[1:5] eq "cudnn" && is_tc(kind(strcol("variant"))) == tc \
           && !is_nhwc(kind(strcol("variant"))) ? column("intensity") : NaN
peer_nhwc = '(@is_cnn) && kind(strcol("variant"))[1:5] eq "cudnn" && is_nhwc(kind(strcol("variant"))) ? column("intensity") : NaN'
n_nhwc = int(system(sprintf("grep -c '^[^#]*,cnn,cudnn_[a-z0-9]*_nhwc@' '%s' || true", src)))
num(v) = v eq "" || v eq "NA" ? NaN : real(v)
mem(x) = copy * x
roof(x, p) = p != p ? NaN : mem(x) < p ? mem(x) : p

# the NHWC peers only where the run has them (older runs: no clause, no empty-data warning); set
# before the block below, whose macros gnuplot expands when it reads the block
nhwc_points = n_nhwc > 0 ? ', src using (@peer_nhwc):"gflops" with points lt 7 pt 5 ps 1.0 title "cuDNN in NHWC (BF16, FP16, TF32): the tensor-core bar"' : ""
# ours on those same NHWC tensors (ours_*_tma_nhwc): an open square around each, beside cuDNN's
is_ours_nhwc(s) = s[1:4] eq "ours" && strstrt(s, "_tma_nhwc") > 0
ours_nhwc = '(@is_cnn) && is_ours_nhwc(kind(strcol("variant"))) ? column("intensity") : NaN'
n_ours_nhwc = int(system(sprintf("grep -c '^[^#]*,cnn,ours_[a-z0-9]*_tma_nhwc@' '%s' || true", src)))
nhwc_points = nhwc_points . (n_ours_nhwc > 0 ? ', src using (@ours_nhwc):"gflops" with points lc rgb "black" pt 4 ps 1.6 title "ours on the same NHWC tensors (ours_*_tma_nhwc)"' : "")

if (!have_cols || fp32 eq "" || n_cnn == 0) {
    set title sprintf("Lab 04 - CNN roofline (%s): this run has no roofline columns (intensity, the cnn peaks); run --only cnn at a newer commit", gpu) noenhanced
    unset border; unset tics; unset key
    set label "no roofline data" at graph 0.5, graph 0.5 center
    set yrange [0:4]; plot 2 notitle lc rgb "white"
} else {
    peak32 = real(fp32)
    copy = real(meta("copy_gbs"))
    tf32 = meta("cnn_peak_tf32_gflops")
    bf16 = meta("cnn_peak_bf16_gflops")
    clock = meta("cnn_sm_clock_mhz_measured")
    # the fastest FP32 rung per configuration: intensity, gflops, configuration name
    best = sprintf("< awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next } \
      $c[\"experiment\"] == \"cnn\" && $c[\"variant\"] ~ /^ours[0-9]*(_[^@]*)?@/ && $c[\"variant\"] !~ /^ours[0-9]*_(tf32|bf16|fp16)/ { \
        p = $c[\"param\"]; t = $c[\"median_ms\"] + 0; if (!(p in ms) || t < ms[p]) { ms[p] = t; ai[p] = $c[\"intensity\"]; g[p] = $c[\"gflops\"]; \
        n[p] = $c[\"variant\"]; sub(/^[^@]*@/, \"\", n[p]) } } \
      END { for (p in ms) print ai[p] \",\" g[p] \",\" n[p] }' '%s'", src)
    set title sprintf("Lab 04 - CNN roofline (%s, SM clock %s MHz measured)", gpu, clock) noenhanced
    set logscale xy
    set xlabel "arithmetic intensity: FLOP per byte of x + w + y (log)"
    set ylabel "GFLOP/s (2 N M C R S H W / time, log)"
    set xrange [1:1000]
    set key top left width -4 noenhanced box opaque
    t32 = num(tf32)
    b16 = num(bf16)
    set yrange [100:1e9] # room above the points for the key
    plot roof(x, peak32) with lines ls 11 title sprintf("FP32 peak: %.0f GFLOP/s; memory roof: %.0f GB/s x intensity", peak32, copy), \
         roof(x, t32) with lines ls 12 title (t32 == t32 ? sprintf("TF32 tensor-core peak: %.0f GFLOP/s", t32) : ""), \
         roof(x, b16) with lines ls 13 title (b16 == b16 ? sprintf("BF16 and FP16 tensor-core peak: %.0f GFLOP/s", b16) : ""), \
         src using (rung(0)):"gflops" with points lt 1 pt 7 ps 0.5 title "every FP32 rung of ours", \
         src using (rung(1)):"gflops" with points lt 2 pt 9 ps 0.6 title "tensor-core rungs of ours (TF32, BF16, FP16)", \
         best using 1:2 with points lt 1 pt 6 ps 1.8 title "ours (fastest FP32 rung)", \
         "" using 1:2:3 with labels offset 0.6, 0.6 left font ",8" noenhanced notitle, \
         src using (peer(0)):"gflops" with points lt 4 pt 13 ps 1.4 title "cuDNN (FMA math)", \
         src using (peer(1)):"gflops" with points lt 3 pt 11 ps 1.0 title "cuDNN (TF32, BF16) on NCHW tensors" @nhwc_points
}

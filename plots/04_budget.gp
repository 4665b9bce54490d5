# 04_budget.gp - issue 20: the instruction budget of a memory-bound kernel. For each kernel of
# plots/ncu_check.py --budget (the companion budget_NAME.csv beside the lab's CSV): its
# thread-instructions per pixel stacked by pipe (ALU; FMA, IMAD and FFMA; LSU; the rest), the
# budget at 100% of this run's memcpy (128 / pixels per SM per clock) and the half-rate pipes'
# (64 / ..., the ALU's): the same kernels on a GPU with 1.41x the bandwidth get 1.41x fewer
# instructions per pixel (render it from each GPU's data folder). Without a budget file it draws a
# note. Inputs: csv, out, fmt, gpu.
load "style.gp"

dir = system(sprintf("dirname '%s'", csv))
name = system(sprintf("basename '%s' .csv", csv))
src = sprintf("%s/budget_%s.csv", dir, name)
have = system(sprintf("test -f '%s' && echo 1 || echo 0", src)) eq "1"

# One line per kernel at the file's largest size (the DRAM-bound picture, where the memcpy floor
# is the floor; the sizes rows come at five sizes): label alu fma lsu rest budget_all budget_half
rows(f) = sprintf("< awk -F, 'FNR == 1 { h = 0 } /^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next } \
  NR == FNR { if ($c[\"size\"] + 0 > big) big = $c[\"size\"] + 0; next } $c[\"size\"] + 0 == big \
  { a = $c[\"inst_alu\"]; m = $c[\"inst_fma\"]; l = $c[\"inst_lsu\"]; \
    print $c[\"experiment\"] \"/\" $c[\"variant\"], a, m, l, $c[\"inst_all\"] - a - m - l, $c[\"budget_all\"], $c[\"budget_half_rate\"] }' '%s' '%s'", f, f)

if (!have) {
    set title sprintf("Lab 04 - the instruction budget (%s): no budget_%s.csv (plots/ncu_check.py --budget)", gpu, name) noenhanced
    unset border; unset tics; unset key
    set label "no budget file" at graph 0.5, graph 0.5 center
    plot 2 notitle lc rgb "white"
} else {
    set datafile separator whitespace
    set title sprintf("The instruction budget at the memory floor (%s): instructions per pixel by pipe", gpu) noenhanced
    set style data histograms
    set style histogram rowstacked
    set style fill solid 0.85 border -1
    set boxwidth 0.7
    set yrange [0:*]
    set xtics noenhanced rotate by -30
    set key top left
    set ylabel "thread-instructions per pixel"
    budget_all = real(system(sprintf("awk -F, '/^#/ {next} !h {for (i=1;i<=NF;i++) c[$i]=i; h=1; next} {print $c[\"budget_all\"]; exit}' '%s'", src)))
    budget_half = budget_all / 2
    plot rows(src) using 2:xtic(1) lt 1 title "ALU", "" using 3 lt 2 title "FMA (FFMA, IMAD, DP4A)", \
         "" using 4 lt 3 title "LSU", "" using 5 lt 4 title "other pipes", \
         budget_all with lines ls 11 title sprintf("all pipes at 100%% of memcpy: %.1f", budget_all), \
         budget_half with lines ls 10 title sprintf("ALU (half rate): %.1f", budget_half)
}

# 04_budget.gp - issue 20: the instruction budget of a memory-bound kernel. For each kernel of
# plots/ncu_check.py --budget (the companion budget_NAME.csv beside the lab's CSV), at the file's
# largest size: its thread-instructions per pixel stacked by pipe (ALU; FMA, IMAD and FFMA; LSU;
# the rest), and over each bar its own budget at 100% of this run's memcpy: 128 / (pixels per SM
# per clock) in all, and 64 / ... on the half-rate ALU (bytes per pixel differ, so the budget is
# per kernel). The label over a bar: the binding pipe's share of that budget. A reference folder
# (plots/data/<gpu>/) also draws the budgets of the other GPU folders beside it that have the same
# file: an H200 has 1.41x the H100's bandwidth at the same SMs and clock, so the same instructions
# get 1.41x less room. Without a budget file it draws a note. Inputs: csv, out, fmt, gpu.
load "style.gp"

dir = system(sprintf("dirname '%s'", csv))
name = system(sprintf("basename '%s' .csv", csv))
src = sprintf("%s/budget_%s.csv", dir, name)
have = system(sprintf("test -f '%s' && echo 1 || echo 0", src)) eq "1"
# The first other GPU folder with the same budget file, only beside a reference folder (data/<gpu>).
peer = !have ? "" : system(sprintf("d=$(cd '%s' && pwd); [ \"$(basename \"$(dirname \"$d\")\")\" = data ] && \
  for f in \"$(dirname \"$d\")\"/*/budget_%s.csv; do [ -f \"$f\" ] && [ \"$(dirname \"$f\")\" != \"$d\" ] && \
  { echo \"$f\"; break; }; done; true", dir, name))
peer_gpu = peer eq "" ? "" : system(sprintf("f=\"$(dirname '%s')/%s.csv\"; g=$(sed -n 's/^# gpu=//p' \"$f\" 2>/dev/null | head -n 1); \
  echo \"${g:-$(basename \"$(dirname '%s')\")}\" | sed 's/NVIDIA //; s/ 80GB HBM3//'", peer, name, peer))

# One line per kernel at the largest size: label alu fma lsu rest budget_all budget_half pct
# peer_all peer_half (NaN without a peer). Quoted fields (NPP's kernel names) hold commas: each
# becomes one word before the fields are split.
rows = sprintf("< awk -F, -v peer='%s' ' \
  BEGIN { if (peer != \"\") while ((getline l < peer) > 0) { if (l ~ /^#/) continue; gsub(/\"[^\"]*\"/, \"q\", l); \
    n = split(l, f, \",\"); if (!ph) { for (i = 1; i <= n; i++) pc[f[i]] = i; ph = 1; continue } \
    k = f[pc[\"experiment\"]] \"/\" f[pc[\"variant\"]] \"/\" f[pc[\"size\"]]; pa[k] = f[pc[\"budget_all\"]]; \
    phr[k] = f[pc[\"budget_half_rate\"]] } } \
  FNR == 1 { h = 0 } /^#/ { next } { gsub(/\"[^\"]*\"/, \"q\") } \
  !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next } \
  NR == FNR { if ($c[\"size\"] + 0 > big) big = $c[\"size\"] + 0; next } $c[\"size\"] + 0 == big \
  { a = $c[\"inst_alu\"]; m = $c[\"inst_fma\"]; l = $c[\"inst_lsu\"]; e = $c[\"experiment\"]; v = $c[\"variant\"]; \
    sub(/\\/kernels$/, \"\", v); k = e \"/\" $c[\"variant\"] \"/\" $c[\"size\"]; \
    if (e == \"fusion\") e = \"\"; else e = e \"/\"; \
    print e v, a, m, l, $c[\"inst_all\"] - a - m - l, $c[\"budget_all\"], $c[\"budget_half_rate\"], \
      $c[\"binding_pct_of_budget\"], (k in pa) ? pa[k] : \"NaN\", (k in phr) ? phr[k] : \"NaN\" }' '%s' '%s'", peer, src, src)

short(g) = system(sprintf("echo '%s' | sed 's/NVIDIA //; s/ 80GB HBM3//'", g))

if (!have) {
    set title sprintf("Lab 04 - the instruction budget (%s): no budget_%s.csv (plots/ncu_check.py --budget)", gpu, name) noenhanced
    unset border; unset tics; unset key
    set label "no budget file" at graph 0.5, graph 0.5 center
    set yrange [0:4]; plot 2 notitle lc rgb "white"
} else {
    set datafile separator whitespace
    set title sprintf("The instruction budget at the memory floor (%s): instructions per pixel by pipe\n(%% over a bar: its binding pipe against this GPU's budget at 100%% of memcpy)", gpu) noenhanced
    set style data histograms
    set style histogram rowstacked
    set style fill solid 0.85 border -1
    set boxwidth 0.7
    set xtics noenhanced rotate by -40 left font ",9"
    set ylabel "thread-instructions per pixel"
    set offsets 0, 0, 0, 0
    stats rows using ($2 + $3 + $4 + $5) nooutput
    set yrange [0:STATS_max * 1.2]   # a budget above every bar (the connected pixel pipeline's) is left out
    set xrange [-0.6:STATS_records - 0.4]
    set key top right vertical maxrows 4 font ",10" samplen 2.5 spacing 1.0
    # Lab 04's 27 kernels: the key over the block-based bars, clear of the tall median ones on the right
    if (STATS_records >= 16) { set key at first STATS_records - 4.6, graph 0.99 }
    seg(x) = x - 0.42
    # One plot command, the other GPU's budgets appended only where there is one (an empty
    # iteration would still read the file and warn; a macro is not expanded inside this block).
    own = 'plot rows using 2:xtic(1) lt 1 title "ALU", "" using 3 lt 2 title "FMA (FFMA, IMAD, DP4A)", \
      "" using 4 lt 3 title "LSU", "" using 5 lt 4 title "other pipes", \
      "" using (seg($0)):6:(0.84):(0) with vectors nohead lw 3 lc rgb "#222222" title sprintf("%s: all pipes", short(gpu)), \
      "" using (seg($0)):7:(0.84):(0) with vectors nohead lw 2 dt (4,3) lc rgb "#222222" \
        title sprintf("%s: ALU (half rate)", short(gpu)), \
      "" using 0:($2 + $3 + $4 + $5):(sprintf("%.0f%%", $8)) with labels offset 0, 0.6 font ",8" notitle'
    other = ', "" using (seg($0)):9:(0.84):(0) with vectors nohead lw 3 lc rgb "#CC79A7" \
        title sprintf("%s: all pipes", peer_gpu), \
      "" using (seg($0)):10:(0.84):(0) with vectors nohead lw 2 dt (4,3) lc rgb "#CC79A7" title sprintf("%s: ALU", peer_gpu)'
    eval own . (peer eq "" ? "" : other)
}

# 04_ladder.gp - lab 04, experiment "ladder": time per launch of the seed's kernels against the
# coarsening factor CF, scalar and vector stores, with NPP and the best rung past the paper as
# levels. The seed's GTX 1660 Ti figures are in the terminal output and the handout (its times
# are about 15x ours: the shapes compare, the levels do not). Inputs: csv, out, fmt, gpu.
load "style.gp"

set title sprintf("Lab 04 - the seed's ladder at 3072 x 3072: where the nine reads are served (%s)", gpu)
set xlabel "coarsening factor CF (consecutive output pixels per thread)"
set ylabel "time per launch (us, median)"
set xrange [0:17]
set xtics (1, 2, 4, 8, 12, 16)
set yrange [0:*]
set key top left maxrows 4 width -3

# CF from a kernel name such as "CM_CF12_Vec" (1 when the name has no _CF).
cf(s) = strstrt(s, "_CF") == 0 ? 1 : (strstrt(s[strstrt(s, "_CF") + 3:], "_") ? \
        int(s[strstrt(s, "_CF") + 3:strstrt(s, "_CF") + 1 + strstrt(s[strstrt(s, "_CF") + 3:], "_")]) : \
        int(s[strstrt(s, "_CF") + 3:]))
fam(f, vec) = (strcol("experiment") eq "ladder" && strstrt(strcol("variant"), f) == 1 && \
               (strstrt(strcol("variant"), "_Vec") > 0) == vec) ? cf(strcol("variant")) : NaN
level(v) = (strcol("experiment") eq "beyond" || strcol("experiment") eq "ladder") && strcol("variant") eq v ? 1000 * column("median_ms") : NaN

plot csv using (fam("GM", 0)):(1000 * column("median_ms")) with linespoints lt 1 title "GM", \
     "" using (fam("CM", 0)):(1000 * column("median_ms")) with linespoints lt 2 title "CM", \
     "" using (fam("SM", 0)):(1000 * column("median_ms")) with linespoints lt 3 title "SM", \
     "" using (fam("GM", 1)):(1000 * column("median_ms")) with linespoints lt 1 dt (4,3) pt 6 title "GM_Vec", \
     "" using (fam("CM", 1)):(1000 * column("median_ms")) with linespoints lt 2 dt (4,3) pt 4 title "CM_Vec", \
     "" using (fam("SM", 1)):(1000 * column("median_ms")) with linespoints lt 3 dt (4,3) pt 8 title "SM_Vec", \
     "" using (0.5):(level("NPP")) with points lt 5 pt 5 ps 1.5 title "NPP (same run)", \
     "" using (16.5):(level("W16_DP4A")) with points lt 4 pt 7 ps 1.5 title "W16_DP4A (past the paper)"

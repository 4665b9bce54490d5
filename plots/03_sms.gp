# 03_sms.gp - lab 03, experiment "sms": the seed's S2 time / S1 time against the size, one line per
# SM count the run was given (CUDA green contexts): S2's rule spreads over the SMs there are.
# Inputs: csv, out, fmt, gpu.
load "style.gp"

# CSVs of runs before the sms experiment existed (or without --only sms): a note, not an error.
n_sms = int(system(sprintf("grep -c '^[^#]*,sms_seed,' '%s' || true", csv)))
if (n_sms == 0) {
    set title sprintf("Lab 03 - sms (%s): no sms_seed rows in this CSV (run --only sms)", gpu)
    unset border; unset tics; unset key
    set label "no sms_seed rows" at graph 0.5, graph 0.5 center
    set yrange [0:4]; plot 2 notitle lc rgb "white"
} else {
    set title sprintf("Lab 03 - S2 / S1 on 16, 32, 64 SMs and the whole GPU (%s)", gpu)
    set xlabel "vector size (elements)"
    set ylabel "S2 time / S1 time (below 1: S2 wins)"
    set logscale x 2
    set format x "2^{%L}"
    set yrange [0:*]
    set key bottom right
    stats csv using (only("sms_seed", "S2", "sms")) nooutput
    whole = STATS_max
    seed_at(k) = (strcol("experiment") eq "sms_seed" && strcol("variant") eq "S2" && column("sms") == k) ? column("size") : NaN
    counts = sprintf("16 32 64 %d", whole)

    plot for [i = 1:words(counts)] csv using (seed_at(word(counts, i) + 0)):"ratio" with linespoints lt i \
             title sprintf("%s SMs", word(counts, i)), \
         1 with lines ls 11 notitle
}

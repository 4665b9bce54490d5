# compare.gp - the headline figures of one lab from every GPU folder, three panels of bars
# (written by compare_gpus.sh: dat = "label<TAB>h1<TAB>h2<TAB>h3" per source, the seed last).
load "style.gp"
set datafile separator "\t"
set multiplot layout 1,3 margins 0.06, 0.91, 0.28, 0.88 spacing 0.07, 0.1 title sprintf("%s: headline figures per GPU (plots/data/*), with the seed's hardware", lab) noenhanced
set style fill solid 0.7 border -1
set boxwidth 0.6
set yrange [0:*]
set xtics rotate by -30 left noenhanced font ",9"
set grid noxtics ytics
unset key
set offsets 0, 0, 0, 0
stats dat using 0 nooutput
set xrange [-0.6:STATS_records - 0.4] # the same slots in every panel, also where a figure is missing
do for [k = 1:3] {
    if (k == 1) { set title t1 noenhanced font ",9" }
    if (k == 2) { set title t2 noenhanced font ",9" }
    if (k == 3) { set title t3 noenhanced font ",9" }
    plot dat using 0:(column(k + 1)):($0 + 1):xticlabels(1) with boxes lc variable, \
         "" using 0:(column(k + 1)):(sprintf("%.2f", column(k + 1))) with labels offset 0, 0.7 font ",9" notitle
}
unset multiplot

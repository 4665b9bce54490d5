# mpi_scaling.gp - Lab 05 part 2 (haar_mpi): the charts of one experiment of one run, from the
# data files plots/mpi_charts.sh prepares out of the CSV.
#   chart = "scaling": speedup over 1 rank (left) and efficiency (right) against the rank count,
#           one colour per image size: end to end (solid) and the kernel phase (dashed). Weak
#           scaling: total(1) / total(n) with the work per rank fixed (ideal: 1).
#           dat: blocks (two blank lines apart), one per size, of "ranks speedup efficiency
#           kernel_speedup kernel_efficiency"; labels: the sizes, in block order.
#   chart = "phases":  where the time goes, per size / ranks: each phase's share (%) of the sum of
#           the phases (each phase the median of its maximum over ranks), stacked. Shares, not
#           times, so that 512^2 and 16384^2 fit one chart (the times are in the CSV).
#           dat: "size/ranks read scatter h2d kernel d2h gather assemble write select psnr".
# Inputs (gnuplot -e): dat, labels, out, fmt, exp, chart, note. The name does not start with a lab
# number on purpose: make_charts.sh renders every NN_*.gp against the lab's main CSV.
load "style.gp"
set datafile separator whitespace # the data files mpi_charts.sh writes, not CSV

if (chart eq "scaling") {
    n = words(labels)
    weak = exp eq "weak"
    set multiplot layout 1, 2 title sprintf("Lab 05 part 2 - %s: scaling over ranks (%s)", exp, note) noenhanced
    set xlabel "ranks"
    set logscale x 2
    set key top left
    set grid
    set ylabel weak ? "total(1) / total(n), work per rank fixed" : "speedup over 1 rank"
    plot for [i = 1:n] dat index (i - 1) using 1:2 with linespoints lt i title word(labels, i) . " total", \
         for [i = 1:n] dat index (i - 1) using 1:4 with linespoints lt i dt (4,3) pt 6 title word(labels, i) . " kernel", \
         (weak ? 1 : x) with lines lt 8 dt 2 title "ideal"
    set ylabel "efficiency"
    set yrange [0:*]
    plot for [i = 1:n] dat index (i - 1) using 1:3 with linespoints lt i title word(labels, i) . " total", \
         for [i = 1:n] dat index (i - 1) using 1:5 with linespoints lt i dt (4,3) pt 6 title word(labels, i) . " kernel", \
         1 with lines lt 8 dt 2 title "ideal"
    unset multiplot
} else {
    phases = "read scatter h2d kernel d2h gather assemble write select psnr"
    set title sprintf("Lab 05 part 2 - %s: where the time goes, per size / ranks (%s)", exp, note) noenhanced
    set style data histograms
    set style histogram rowstacked
    set style fill solid 0.85 border rgb "black"
    set boxwidth 0.75
    set ylabel "share of the phases' time (%)"
    set xtics rotate by -45 nomirror
    set key outside right top
    set yrange [0:100]
    # ten phases, ten colours: data movement in blues and greys, compute in green, the rest warm
    colours = "#56B4E9 #0072B2 #9ecae1 #009E73 #6baed6 #08306b #E69F00 #555555 #D55E00 #CC79A7"
    plot for [p = 2:11] dat using p:xtic(1) lc rgb word(colours, p - 1) title word(phases, p - 1)
}

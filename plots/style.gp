# style.gp - the one look shared by every chart; each plots/NN_*.gp starts with `load "style.gp"`.
# Inputs (gnuplot -e): csv = a lab's CSV, out = output path without extension,
#                      fmt = "png" (default) or "svg".

if (!exists("fmt")) fmt = "png"
if (fmt eq "svg") {
    set terminal svg size 1000,620 dynamic enhanced font "DejaVu Sans,13" background "white"
} else {
    if (strstrt(GPVAL_TERMINALS, "pngcairo")) {
        set terminal pngcairo size 1000,620 enhanced font "DejaVu Sans,11" background "white"
    } else {
        set terminal png size 1000,620 enhanced font "DejaVuSans,11" background "white"
    }
}
set output out.".".fmt

# The labs write comma-separated long-format CSV: '# key=value' comment lines, one header row,
# then one row per measurement. Columns are read by header name: column("gbs"), strcol("variant").
# An empty field reads as NaN, and every NaN counts as missing: the point is skipped and the
# line through its neighbours is not broken. That is what makes the row filter below work.
set datafile separator ","
set datafile commentschars "#"
set datafile missing NaN

# only(e, v, name): column `name` on rows of experiment e and variant v (v = "": any variant),
# NaN (skipped) on every other row. Use it for x: plot csv using (only("seed", "semi16", "size")):"median_ms"
only(e, v, name) = (strcol("experiment") eq e && (v eq "" || strcol("variant") eq v)) ? column(name) : NaN

# Okabe-Ito colours (colour-blind safe); each series also has its own point shape.
set linetype 1 lc rgb "#0072B2" lw 2 pt 7 ps 1.1 dt solid
set linetype 2 lc rgb "#E69F00" lw 2 pt 5 ps 1.0 dt solid
set linetype 3 lc rgb "#D55E00" lw 2 pt 9 ps 1.3 dt solid
set linetype 4 lc rgb "#009E73" lw 2 pt 13 ps 1.3 dt solid
set linetype 5 lc rgb "#CC79A7" lw 2 pt 11 ps 1.3 dt solid
set style line 10 lc rgb "#222222" lw 1.5 dt (8,5)   # model / expected values
set style line 11 lc rgb "#555555" lw 1.5 dt (3,4)   # reference level (e.g. cudaMemcpy)
set style line 12 lc rgb "#888888" lw 1.5 dt (2,3)   # marker (e.g. L2 capacity)

set border 3 lw 1 lc rgb "#444444"
set tics nomirror out
set grid xtics ytics lt 1 lw 1 lc rgb "#dddddd"
set key opaque box lc rgb "#bbbbbb" samplen 3 spacing 1.2 noenhanced   # variant names keep their "_"
set title noenhanced   # GPU names are printed as they are
set bars small
set offsets graph 0.02, graph 0.02, 0, 0   # keep the first and last points off the border

# 04_loads.gp - lab 04, experiment "ladder": warp-level global load requests per output pixel
# (x 32 lanes: load instructions per pixel) and sectors per request, counted in-program by the
# counting twins, against the coarsening factor. Inputs: csv, out, fmt, gpu.
load "style.gp"

set title sprintf("Lab 04 - fewer, wider loads: load instructions per pixel and sectors per request (%s)", gpu)
set xlabel "coarsening factor CF"
set ylabel "load instructions per output pixel (log)"
set y2label "32-byte sectors per load request"
set xrange [0:17]
set xtics (1, 2, 4, 8, 12, 16)
set logscale y
set yrange [0.1:30]
set y2range [0:18]
set y2tics nomirror out
set border 11 lw 1 lc rgb "#444444"
set key top center maxrows 3 width -2

cf(s) = strstrt(s, "_CF") == 0 ? 1 : (strstrt(s[strstrt(s, "_CF") + 3:], "_") ? \
        int(s[strstrt(s, "_CF") + 3:strstrt(s, "_CF") + 1 + strstrt(s[strstrt(s, "_CF") + 3:], "_")]) : \
        int(s[strstrt(s, "_CF") + 3:]))
fam(f) = (strcol("experiment") eq "ladder" && strstrt(strcol("variant"), f) == 1 && \
          strstrt(strcol("variant"), "_Vec") == 0) ? cf(strcol("variant")) : NaN
perpx(dummy) = 32 * column("requests") / ((column("param") - 2) * (column("size") / column("param") - 2))

plot csv using (fam("GM")):(perpx(0)) with linespoints lt 1 title "GM: loads per pixel", \
     "" using (fam("CM")):(perpx(0)) with linespoints lt 2 title "CM: loads per pixel", \
     "" using (fam("SM")):(perpx(0)) with linespoints lt 3 title "SM: loads per pixel", \
     "" using (fam("GM")):"sectors_per_request" axes x1y2 with linespoints lt 1 dt (4,3) pt 6 title "GM: sectors/request (right)", \
     "" using (fam("CM")):"sectors_per_request" axes x1y2 with linespoints lt 2 dt (4,3) pt 4 title "CM: sectors/request (right)", \
     "" using (fam("SM")):"sectors_per_request" axes x1y2 with linespoints lt 3 dt (4,3) pt 8 title "SM: sectors/request (right)"

# 03_tail.gp - lab 03, experiment "tail": time relative to w whole waves for w waves - 1, w waves
# and w waves + 1 chunks, one block per chunk vs a grid-stride loop. Inputs: csv, out, fmt, gpu.
load "style.gp"

set title sprintf("Lab 03 - the partial last wave (%s)", gpu)
set xlabel "chunks of work (one wave = blocks per SM x SMs)"
set ylabel "time / time of the whole waves"
set logscale x 2
set yrange [0.9:*]
set key top right

plot csv using (only("tail", "chunks", "param")):"ratio" with points lt 3 ps 1.6 title "one block per chunk", \
     "" using (only("tail", "grid_stride", "param")):"ratio" with points lt 1 ps 1.6 title "one wave of blocks, grid-stride loop", \
     1 with lines ls 11 notitle

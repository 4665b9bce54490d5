# 04_sizes.gp - lab 04, experiment "sizes": GB/s (2 bytes per pixel: one read, one write) against
# the image size for the best rung of each family and NPP, with the same run's cudaMemcpy, and the
# peers of plots/filter_peers.py (OpenCV on the CPU, CuPy on the GPU) from the companion
# NAME.peers.csv when it is there. Inputs: csv, out, fmt, gpu, copy_gbs, l2_bytes.
load "style.gp"

peers = csv[1:strlen(csv) - 4] . ".peers.csv"
have_peer(v) = int(system(sprintf("test -f '%s' && grep -c '^[^#]*,sizes,%s,' '%s' || echo 0", peers, v, peers))) > 0
peer_cmd = ""
if (have_peer("opencv_cpu")) peer_cmd = peer_cmd . \
    sprintf("'%s' using (only(\"sizes\", \"opencv_cpu\", \"size\")):\"gbs\" with linespoints lt 3 dt (2,2) pt 4 title \"OpenCV filter2D (CPU)\", ", peers)
if (have_peer("cupy")) peer_cmd = peer_cmd . \
    sprintf("'%s' using (only(\"sizes\", \"cupy\", \"size\")):\"gbs\" with linespoints lt 1 dt (2,2) pt 12 title \"CuPy ndimage.correlate\", ", peers)

set title sprintf("Lab 04 - toward the memory floor: GB/s vs image size (%s)", gpu)
set xlabel "image size (pixels)"
set ylabel "GB/s (2 bytes per pixel, median)"
set logscale x 2
set format x "2^{%L}"
set xrange [2**19:2**29]
set yrange [0:*]
set key bottom right maxrows 4 width -4
set arrow from l2_bytes / 2.0, graph 0 to l2_bytes / 2.0, graph 1 nohead ls 12
set label "in + out fill the L2" at l2_bytes / 2.0, graph 0.95 right offset -0.5, 0

plot csv using (only("sizes", "NPP", "size")):"gbs" with linespoints lt 5 title "NPP nppiFilter_8u_C1R", \
     "" using (only("sizes", "GM_CF12_Vec", "size")):"gbs" with linespoints lt 1 title "GM_CF12_Vec", \
     "" using (only("sizes", "CM_CF12_Vec", "size")):"gbs" with linespoints lt 2 title "CM_CF12_Vec", \
     "" using (only("sizes", "SM_CF12_Vec", "size")):"gbs" with linespoints lt 3 title "SM_CF12_Vec", \
     "" using (only("sizes", "W16_DP4A", "size")):"gbs" with linespoints lt 4 title "W16_DP4A", \
     "" using (only("sizes", "W16_DP4A_R8", "size")):"gbs" with linespoints lt 4 dt (4,3) pt 6 title "W16_DP4A_R8", \
     "" using (only("sizes", "W16_DP4A_R4_SW", "size")):"gbs" with linespoints lt 6 pt 9 title "W16_DP4A_R4_SW", \
     "" using (only("sizes", "W16_DP4A_R4_DW", "size")):"gbs" with linespoints lt 7 pt 5 title "W16_DP4A_R4_DW", \
     @peer_cmd copy_gbs with lines ls 11 title sprintf("cudaMemcpy D2D (%.0f GB/s)", copy_gbs)

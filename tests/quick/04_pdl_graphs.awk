# 04_pdl_graphs.awk: the CNN rows' timing says when launches overlap (tests/pdl_graphs.sh; awk -F,).
# A row whose tuned tile is a pdl_ one (programmatic dependent launch) was timed as a graph whose
# every launch after the first may start before the one it follows has finished: its '# graph' line
# must count batch - 1 programmatic edges. A row tuned to any other tile launched nothing early: it
# must have no '# graph' line. Exits 77 when no row reports a tile (the TMA rows need compute
# capability 9.0).
function value(s, key) { return match(s, " " key "=[^ ]+") ? substr(s, RSTART + length(key) + 2, RLENGTH - length(key) - 2) : "" }
/^# cnn_tuned / { tile[value($0, "variant")] = value($0, "tile"); next }
/^# graph / { v = value($0, "variant"); edges[v] = value($0, "programmatic_edges") + 0; next }
/^#/ { next }
!hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }
{ batch[$col["experiment"] "/" $col["variant"]] = $col["batch"] + 0 }
END {
  for (v in tile) {
    rows++
    if (tile[v] !~ /^pdl_/) {
      if (v in edges) { print "FAIL: a row tuned to a tile without PDL has programmatic edges: " v; bad++ }
      continue
    }
    pdl++
    if (!(v in batch)) { print "FAIL: a tuned row is missing: " v; bad++; continue }
    if (batch[v] > 1 && edges[v] != batch[v] - 1) {
      printf "FAIL: a pdl_ row's graph should have batch - 1 programmatic edges: %s (batch %d, %d edges)\n", v, batch[v], edges[v]
      bad++
    }
  }
  if (!rows) { print "skip: no tuned row (the TMA rows need compute capability 9.0)"; exit 77 }
  printf "%d tuned rows, %d with a pdl_ tile, %d wrong\n", rows, pdl, bad
  exit bad > 0
}

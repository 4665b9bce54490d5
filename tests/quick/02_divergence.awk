# 02_divergence.awk: Lab 02's checks of its --quick CSV: every row verified, the counting twin's warp execution
# efficiency equal to the CPU's count, and the lesson's effects visible in the times.
# Run by tests/lab_quick.sh after csv.awk (col[], meta[]).
{
  rows++
  e = $col["experiment"]; v = $col["variant"]; k = $col["param"]
  eff = $col["warp_exec_efficiency"]; want = $col["expected_warp_exec_efficiency"]
  if (e == "ceiling") next
  if ($col["checked"] + 0 <= 0) { print "FAIL: row not verified: " $0; bad++ }
  if (v == "radix_sort") next
  if (eff == "" || want == "") { printf "FAIL: %s/%s k=%s: no efficiency\n", e, v, k; bad++; next }
  d = eff - want; if (d < 0) d = -d
  if (d > 0.5) { printf "FAIL: %s/%s param %s: efficiency %s%% measured, %s%% expected\n", e, v, k, eff, want; bad++ }
  if (d > worst) worst = d
  effs++
  if (e == "paths") t[v, k] = $col["median_ms"]
  if (e == "data") { t[v, k] = $col["median_ms"]; div[v, k] = $col["divergent_branch_fraction"] }
  if (e == "predication") t[v] = $col["median_ms"]
}
END {
  if (rows != 38) { printf "FAIL: %d rows, expected 38 for --quick (ceiling included)\n", rows; bad++ }
  printf "%d rows; %d efficiencies within 0.5 points of the CPU count (worst %.4f)\n", rows, effs, worst
  r = t["paths_lanes", 32] / t["paths_lanes", 1]
  printf "paths: T(32)/T(1) = %.2f split by lanes, %.2f by warps\n", r, t["paths_warps", 32] / t["paths_warps", 1]
  if (r < 8) { print "FAIL: 32 paths split by lanes should cost >= 8x one path"; bad++ }
  if (t["paths_warps", 32] / t["paths_warps", 1] > 1.5) { print "FAIL: 32 paths split by warps should cost about 1x"; bad++ }
  s = t["unsorted", 32] / t["sorted", 32]
  printf "data: p = 1/2 unsorted / sorted = %.2f; divergent warps %.3f unsorted, %.5f sorted\n", s, div["unsorted", 32], div["sorted", 32]
  if (s < 1.3) { print "FAIL: sorting should pay at p = 1/2"; bad++ }
  if (div["unsorted", 32] < 0.99 || div["sorted", 32] > 0.01) { print "FAIL: divergent-warp fractions"; bad++ }
  p = t["pred_divergent"] / t["pred_uniform"]; b = t["branch_divergent"] / t["branch_uniform"]
  printf "predication: divergent / uniform = %.2f predicated, %.2f as a branch\n", p, b
  if (p > 1.2) { print "FAIL: predicated divergence should cost about nothing"; bad++ }
  if (b < 1.3) { print "FAIL: the divergent branch should cost more than the uniform one"; bad++ }
  exit bad > 0
}

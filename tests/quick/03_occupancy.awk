# 03_occupancy.awk: Lab 03's checks of its --quick CSV: every row verified and measured (the calculator equal to
# the CUDA API), and the lesson's effects in the numbers.
# Run by tests/lab_quick.sh after csv.awk (col[], meta[]).
{
  rows++
  e = $col["experiment"]; v = $col["variant"]; n = $col["size"]; k = $col["param"]
  if (e == "ceiling") next
  if ($col["checked"] + 0 <= 0) { print "FAIL: row not verified: " $0; bad++ }
  if ($col["blocks_per_sm"] == "" || $col["blocks_per_sm"] != $col["api_blocks_per_sm"]) {
    printf "FAIL: %s/%s %s %s: calculator %s, API %s blocks/SM\n", e, v, n, k, $col["blocks_per_sm"], $col["api_blocks_per_sm"]; bad++ }
  ach = $col["achieved_occupancy"]; theo = $col["theoretical_occupancy"]; eff = $col["sm_efficiency"]
  if (ach == "" || eff == "" || ach + 0 <= 0 || ach > theo + 1.0 || eff > 100.5) {
    printf "FAIL: %s/%s %s %s: achieved %s%% (theoretical %s%%), SM efficiency %s%%\n", e, v, n, k, ach, theo, eff; bad++ }
  t[e, v, n, k] = $col["median_ms"]; se[e, v, n] = eff; blk[e, v, n] = $col["blocks"]  # thresholds: tests/LESSON_CHECKS.md
  if (e == "latency") { tp[v, k] = (v ~ /^fma/) ? $col["gflops"] : $col["gbs"] }
  if (e == "tail") { r[v, k] = $col["ratio"]; if (!wave) wave = k + 0 }  # the first: one whole wave
  if (e == "limits" && v == "smem") last_smem_blocks = $col["blocks_per_sm"]
}
END {
  sms = meta["sms"] + 0; copy = meta["copy_gbs"] + 0
  if (rows != 115) { printf "FAIL: %d rows, expected 115 for --quick (ceiling included)\n", rows; bad++ }
  # seed: S2 spreads 32-thread blocks over the SMs and wins while S1 has fewer, fuller blocks
  for (s = 1024; s <= 32768; s *= 2) {
    q = t["seed", "S1", s, ""] / t["seed", "S2", s, ""]
    printf "seed %6d: S1 / S2 = %.2f, SM efficiency %.1f%% / %.1f%%\n", s, q, se["seed", "S1", s], se["seed", "S2", s]
    if (blk["seed", "S2", s] < 2 * blk["seed", "S1", s]) { printf "skip: at %d S2 cannot double S1's %d busy SMs on %d SMs\n", s, blk["seed", "S1", s], sms; continue }
    if (q < 1.15) { printf "FAIL: S2 should be faster than S1 at %d elements\n", s; bad++ }
  }
  for (s = 131072; s <= 262144; s *= 2) {
    q = t["seed", "S1", s, ""] / t["seed", "S2", s, ""]
    if (blk["seed", "S1", s] != blk["seed", "S2", s]) continue  # not the same launch on this SM count
    if (q < 0.95 || q > 1.05) { printf "FAIL: S1 and S2 are the same launch at %d: ratio %.2f\n", s, q; bad++ }
  }
  for (s = 32; s <= 1024; s *= 2) {
    d = se["seed", "S1", s] - 100.0 / sms; if (d < 0) d = -d
    if (d > 0.5) { printf "FAIL: one block on one of %d SMs: SM efficiency %.2f%%\n", sms, se["seed", "S1", s]; bad++ }
  }
  busy = blk["seed", "S2", 16384] < sms ? 100.0 * blk["seed", "S2", 16384] / sms : 100.0  # S2's blocks cover this share
  if (se["seed", "S2", 16384] < 0.8 * busy) { printf "FAIL: S2 at 16384 should keep >= 80%% of its %.0f%% of the SMs busy\n", busy; bad++ }
  # latency: bytes or FMAs in flight per warp replace warps
  a = tp["stream_vec4_ilp4", 4] / tp["stream", 4]; b = tp["stream", 64] / tp["stream", 4]; c = tp["fma_ilp4", 4] / tp["fma", 4]
  printf "latency at 4 warps/SM: vec4_ilp4 / stream = %.2f; stream 64 / 4 warps = %.2f; fma_ilp4 / fma = %.2f\n", a, b, c
  if (2 * tp["stream", 4] > copy) print "skip: 2x the 4-warp stream would pass this run's memcpy: too few SMs for latency to show"
  else if (a < 2) { print "FAIL: 64 bytes in flight per thread should beat 4 at low occupancy"; bad++ }
  if (4 * tp["stream", 4] > copy) print "skip: 4x the 4-warp stream would pass this run's memcpy"
  else if (b < 4) { print "FAIL: the scalar stream should need occupancy"; bad++ }
  if (c < 2) { print "FAIL: 4 independent FMA chains should beat 1 at low occupancy"; bad++ }
  # tail: one chunk past a whole wave costs a part of a wave; the grid-stride loop spreads it
  printf "tail, one wave (%d blocks) + 1: chunks %.2fx, grid_stride %.2fx\n", wave, r["chunks", wave + 1], r["grid_stride", wave + 1]
  if (r["chunks", wave + 1] < 1.2) { print "FAIL: a lone last block should cost >= 20% of a wave"; bad++ }
  if (r["grid_stride", wave + 1] > 1.1) { print "FAIL: the grid-stride loop should spread the extra chunk"; bad++ }
  if (last_smem_blocks != 1) { print "FAIL: the opt-in shared memory maximum should leave one block per SM"; bad++ }
  exit bad > 0
}

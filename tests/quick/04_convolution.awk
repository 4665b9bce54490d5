# 04_convolution.awk: Lab 04's checks of its --quick CSV: every row verified, the load counts the lesson is about,
# and the ladder's effects in the times.
# Run by tests/lab_quick.sh after csv.awk (col[], meta[]).
{
  rows++
  e = $col["experiment"]; v = $col["variant"]
  if (e == "ceiling") next
  if ($col["checked"] + 0 <= 0) { print "FAIL: row not verified: " $0; bad++ }
  if (v == "NPP") npp++
  if (e == "ladder" || e == "beyond") {
    t[v] = $col["median_ms"]
    w = $col["param"]; h = $col["size"] / w
    if (v != "NPP") per_px[v] = 32 * $col["requests"] / ((w - 2) * (h - 2))
  }
}
END {
  if (rows < 167) { printf "FAIL: %d rows, expected at least 167 for --quick (ceiling included)\n", rows; bad++ }
  printf "%d rows (%d NPP); load requests per pixel (x32 lanes): GM %.3f, CM %.3f, CM_CF12_Vec %.3f, W16_DP4A_R8 %.3f\n",
    rows, npp, per_px["GM"], per_px["CM"], per_px["CM_CF12_Vec"], per_px["W16_DP4A_R8"]
  if (per_px["GM"] < 17.9 || per_px["GM"] > 18.2) { print "FAIL: GM should load 9 pixels and 9 weights per pixel"; bad++ }
  if (per_px["CM"] < 8.9 || per_px["CM"] > 9.1) { print "FAIL: CM should load 9 pixels per pixel"; bad++ }
  # CF12: (9 + 3 x 11) / 12 = 3.5 loads per pixel, plus the image edges (a row of 1024 is not a
  # multiple of 12, and a warp with idle lanes still issues whole requests): 3.95 measured at 1024^2
  if (per_px["CM_CF12_Vec"] > 4.2) { print "FAIL: CF12 should load about 3.5 per pixel"; bad++ }
  if (per_px["W16_DP4A_R8"] > 0.25) { print "FAIL: W16_DP4A_R8 should load (8 + 2) / 8 / 16 per pixel (+ edges)"; bad++ }
  best = t["W16_DP4A"] < t["W16_DP4A_R8"] ? t["W16_DP4A"] : t["W16_DP4A_R8"]
  printf "GM / CM = %.2f, GM / best DP4A rung = %.2f\n", t["GM"] / t["CM"], t["GM"] / best
  if (t["GM"] / best < 1.5) { print "FAIL: the rungs past the paper should beat GM by 1.5x or more"; bad++ }
  exit bad > 0
}

# 01_coalescing.awk: Lab 01's checks of its --quick CSV: the in-program metrics against the model, every row checked.
# Run by tests/lab_quick.sh after csv.awk (col[], meta[]).
{
  rows++
  exp_ = $col["experiment"]; var = $col["variant"]; spr = $col["sectors_per_request"]
  model = $col["expected_sectors_per_request"]
  if (exp_ == "ceiling") { if ($col["gbs"] + 0 <= 0) { print "FAIL: no copy ceiling"; bad++ } ; next }
  if ($col["checked"] + 0 <= 0) { print "FAIL: row not verified: " $0; bad++ }
  if (var == "coalesced" || var == "copy" || var == "copy_ilp4" || var == "add") {
    if (spr + 0 != 4) { printf "FAIL: %s/%s: %s sectors/request, expected exactly 4\n", exp_, var, spr; bad++ }
  }
  if (model != "") {
    dev = (spr - model) / model; if (dev < 0) dev = -dev
    if (dev > 0.03) { printf "FAIL: %s/%s param %s: %s sectors/request vs model %s (%.1f%%)\n", exp_, var, $col["param"], spr, model, 100 * dev; bad++ }
    if (dev > worst) worst = dev
    checked_metrics++
  }
}
END {
  if (rows != 93) { printf "FAIL: %d rows, expected 93 for --quick\n", rows; bad++ }
  printf "%d rows; %d metric rows within 3%% of the model (worst %.3f%%)\n", rows, checked_metrics, 100 * worst
  exit bad > 0
}

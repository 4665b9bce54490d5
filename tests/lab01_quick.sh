#!/usr/bin/env bash
# lab01_quick.sh EXE: run Lab 01 with --quick (every kernel verified inside; a mismatch exits 1),
# then check its CSV: the in-program metrics against the model, and that every row was checked.
set -u
exe=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$exe" --quick --csv "$tmp/out.csv" >"$tmp/log" 2>&1
rc=$?
cat "$tmp/log"
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || { echo "FAIL: coalescing --quick exited $rc"; exit 1; }
awk -F, '
  /^#/ { next }
  !hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }
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
  }' "$tmp/out.csv" || { echo "FAIL: CSV checks"; exit 1; }
echo "ok"

#!/usr/bin/env bash
# test_render.sh - meson test "charts render from fixture": render the charts from the CPU-free
# fixture tests/fixtures/NN_name.csv (a subset of a real GPU run) and check every chart file.
# Exit 77 (skipped) only when gnuplot is not installed.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
fixtures=$root/tests/fixtures
command -v "${GNUPLOT:-gnuplot}" >/dev/null || { echo "gnuplot not installed: skipped"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$root/plots/make_charts.sh" --reference --data "$fixtures" --out "$tmp"

fail() { echo "FAIL: $*" >&2; exit 1; }
expected=0
for csv in "$fixtures"/[0-9][0-9]_*.csv; do
    lab=$(basename "$csv" .csv)
    [[ $lab == *.* ]] && continue   # a companion file (NAME.timeline.csv), read by its lab's charts
    for gp in "$root/plots/${lab%%_*}"_*.gp; do
        [[ -f $gp ]] || continue
        chart=$tmp/$(basename "$gp" .gp)
        [[ -s $chart.png ]] || fail "$chart.png missing or empty"
        [[ -s $chart.svg ]] || fail "$chart.svg missing or empty"
        [[ $(head -c 8 "$chart.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] ||
            fail "$chart.png lacks the PNG signature"
        grep -q '<svg' "$chart.svg" || fail "$chart.svg has no <svg element"
        expected=$((expected + 2))
    done
done
# the roofline must draw its data, not its "no roofline data" note, from the cnn fixture
if [[ -f $fixtures/04_convolution.cnn.csv ]] && grep -q 'no roofline data' "$tmp/04_cnn_roofline.svg"; then
    fail "04_cnn_roofline drew its note, not the data of $fixtures/04_convolution.cnn.csv"
fi
# the budget chart must draw every kernel of the budget fixture, NPP's (a quoted field with commas) too
if [[ -f $fixtures/budget_04_convolution.csv ]] && ! { grep -q 'sizes/NPP' "$tmp/04_budget.svg" && grep -q '>137%<' "$tmp/04_budget.svg"; }; then
    fail "04_budget did not draw the NPP row (its label, its 137% of the budget) of $fixtures/budget_04_convolution.csv"
fi
((expected > 0)) || fail "no chart expected from $fixtures (no NN_name.csv with a plots/NN_*.gp)"
echo "PASS: $expected chart files render from $fixtures"

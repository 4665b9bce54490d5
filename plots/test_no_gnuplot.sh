#!/usr/bin/env bash
# test_no_gnuplot.sh - make_charts.sh without gnuplot (cpu suite): against a fake build folder whose
# two "labs" are stub scripts writing a tiny CSV, with GNUPLOT naming a missing program, the run
# must still run every lab, write each CSV and log, print each lab's time and the run's, end with
# the one line saying the charts were not drawn and how to draw them, and exit 0. --reference
# (nothing to do but draw) must fail with exit 1 and say gnuplot was not found.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- output:"; cat "$tmp/out.txt"; exit 1; }

for lab in 01_alpha 02_beta; do
    mkdir -p "$tmp/build/labs/$lab"
    cat >"$tmp/build/labs/$lab/${lab#*_}" <<'STUB'
#!/usr/bin/env bash
# a stub lab: --csv FILE writes a tiny result
[[ $1 == --csv ]] || exit 2
printf '# gpu=stub\n# l2_bytes=1\n# copy_gbs=1\nlab,experiment,variant,median_ms\nstub,x,y,1\n' >"$2"
echo "stub lab ran"
STUB
    chmod +x "$tmp/build/labs/$lab/${lab#*_}"
done

rc=0
GNUPLOT=/no/such/gnuplot bash "$here/make_charts.sh" --build "$tmp/build" --out "$tmp/charts" >"$tmp/out.txt" 2>&1 || rc=$?
((rc == 0)) || fail "exit code $rc, expected 0"
for lab in 01_alpha 02_beta; do
    [[ -s $tmp/charts/data/$lab.csv ]] || fail "no CSV $tmp/charts/data/$lab.csv"
    grep -q "stub lab ran" "$tmp/charts/$lab.log" || fail "no log $tmp/charts/$lab.log"
    grep -Eq "^time $lab: [0-9]+ s$" "$tmp/out.txt" || fail "no line 'time $lab: N s'"
done
grep -Eq "^full run \(plots\): [0-9]+ s$" "$tmp/out.txt" || fail "no line 'full run (plots): N s'"
last=$(tail -n 1 "$tmp/out.txt")
want="make_charts: charts not drawn: '/no/such/gnuplot' not found"
[[ $last == "$want"* ]] || fail "last line is not '$want ...': $last"
[[ $last == *"make_charts.sh --reference --data $tmp/charts/data --out $tmp/charts"* ]] ||
    fail "the last line does not give the command that draws the charts: $last"

rc=0
GNUPLOT=/no/such/gnuplot bash "$here/make_charts.sh" --reference --data "$tmp/charts/data" --out "$tmp/c2" \
    >"$tmp/out.txt" 2>&1 || rc=$?
((rc == 1)) || fail "--reference without gnuplot: exit code $rc, expected 1"
grep -q "gnuplot not found" "$tmp/out.txt" || fail "--reference without gnuplot: no 'gnuplot not found'"
echo "ok: without gnuplot every lab ran, CSVs and logs written, times printed, the closing line says what to do"

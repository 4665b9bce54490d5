#!/usr/bin/env bash
# test_no_gpu_seen.sh - make_charts.sh --no-gpu-seen (cpu suite): what the plots target runs when meson
# setup saw no GPU (-Dplots-labs=auto). Against a fake build folder whose two "labs" are stubs that
# leave a mark if run, and a reference folder with their CSVs: no lab may run, each lab must take
# its reference CSV and say so, the run's line must say that no lab ran and why, and the exit code
# must be 0. A lab without a reference CSV must fail (exit 1) and name the file.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- output:"; cat "$tmp/out.txt"; exit 1; }

mkdir -p "$tmp/ref"
for lab in 01_alpha 02_beta; do
    mkdir -p "$tmp/build/labs/$lab"
    printf '#!/usr/bin/env bash\ntouch "%s/ran_%s"\nexit 1\n' "$tmp" "$lab" >"$tmp/build/labs/$lab/${lab#*_}"
    chmod +x "$tmp/build/labs/$lab/${lab#*_}"
    printf '# gpu=ref\nlab,experiment,variant,median_ms\nref,x,y,1\n' >"$tmp/ref/$lab.csv"
done

rc=0
GNUPLOT=/no/such/gnuplot bash "$here/make_charts.sh" --build "$tmp/build" --out "$tmp/charts" --data "$tmp/ref" \
    --no-gpu-seen >"$tmp/out.txt" 2>&1 || rc=$?
((rc == 0)) || fail "exit code $rc, expected 0"
for lab in 01_alpha 02_beta; do
    [[ ! -e $tmp/ran_$lab ]] || fail "$lab ran although meson setup found no NVIDIA driver"
    grep -q "^$lab: not built for this run (meson setup found no NVIDIA driver): the charts come from committed reference results $tmp/ref/$lab.csv$" \
        "$tmp/out.txt" || fail "no line saying $lab takes $tmp/ref/$lab.csv"
done
grep -Eq "^no lab ran here \(meson setup found no NVIDIA driver, so the plots target built none; -Dplots-labs=enabled builds and runs them\): the charts come from the committed reference results in $tmp/ref \([0-9]+ s\)$" \
    "$tmp/out.txt" || fail "no line saying that no lab ran and why"
grep -q "^full run" "$tmp/out.txt" && fail "a 'full run' time although no lab ran"

rm "$tmp/ref/02_beta.csv"
rc=0
GNUPLOT=/no/such/gnuplot bash "$here/make_charts.sh" --build "$tmp/build" --out "$tmp/charts" --data "$tmp/ref" \
    --no-gpu-seen >"$tmp/out.txt" 2>&1 || rc=$?
((rc == 1)) || fail "exit code $rc without 02_beta's reference CSV, expected 1"
grep -q "02_beta: not built (meson setup found no NVIDIA driver) and no reference results $tmp/ref/02_beta.csv" "$tmp/out.txt" ||
    fail "the failure does not name the missing reference CSV"
echo "ok: --no-gpu-seen runs no lab, takes each reference CSV and says why"

#!/usr/bin/env bash
# lab_quick.sh EXE CHECKS.awk [--timeline MIN] [--save 'PREFIX...']: a lab's quick test (gpu suite).
# Runs EXE --quick --all (every rung, not only the curated ladders; every kernel verified inside; a mismatch exits 1; 77: no usable GPU), then the
# lab's checks on its CSV: awk -F, with tests/quick/csv.awk (the header: col[], meta[]) and then
# CHECKS.awk, which exits 1 on a failed check. --timeline: the CSV's timeline must lie beside it
# with more than MIN block records; --save: the run also gets --save DIR and must write a PNG
# starting with each PREFIX.
set -u
exe=$1 checks=$2
shift 2
timeline= save=
while [ $# -gt 0 ]; do
    case $1 in
        --timeline) timeline=$2 ;;
        --save) save=$2 ;;
        *) echo "lab_quick.sh: unknown option '$1' (allowed: --timeline MIN, --save 'PREFIX...')"; exit 2 ;;
    esac
    shift 2
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$exe" --quick --all ${save:+--save "$tmp"} --csv "$tmp/out.csv" >"$tmp/log" 2>&1
rc=$?
cat "$tmp/log"
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || { echo "FAIL: $(basename "$exe") --quick exited $rc"; exit 1; }
if [ -n "$timeline" ]; then
    [ -s "$tmp/out.timeline.csv" ] || { echo "FAIL: no timeline beside the CSV"; exit 1; }
    blocks=$(grep -vc '^#' "$tmp/out.timeline.csv")
    echo "timeline: $((blocks - 1)) block records"
    ((blocks > timeline)) || { echo "FAIL: the timeline has too few block records"; exit 1; }
fi
for f in $save; do
    ls "$tmp"/$f*.png >/dev/null 2>&1 || { echo "FAIL: --save wrote no $f*.png"; exit 1; }
done
awk -F, -f "$(dirname "$0")/quick/csv.awk" -f "$checks" "$tmp/out.csv" || { echo "FAIL: CSV checks"; exit 1; }
echo "ok"

#!/usr/bin/env bash
# variant_names.sh EXE FIXTURE [ARGS...]: EXE ARGS --csv - must write a row for every
# "experiment variant" line of FIXTURE (# lines are comments): --all keeps every rung's name that
# the run had when the fixture was made (more rows are fine: a new rung is not a lost one).
set -u
exe=$1 fixture=$2
shift 2
out=$("$exe" "$@" --csv - 2>&1)
rc=$?
[ $rc -eq 77 ] && { echo "$out" | tail -3; exit 77; }
[ $rc -eq 0 ] || { echo "$out" | tail -20; echo "FAIL: exit $rc"; exit 1; }
missing=$(awk -F, 'NR == FNR { if ($0 !~ /^#/ && NF >= 3 && $2 != "experiment") seen[$2 " " $3] = 1; next }
                   /^#/ { next } !($0 in seen) { print "  " $0 }' - "$fixture" <<<"$out")
if [ -n "$missing" ]; then
    printf 'FAIL: rows of %s missing from %s %s:\n%s\n' "$fixture" "$(basename "$exe")" "$*" "$missing"
    exit 1
fi
echo "ok: every one of the $(grep -vc '^#' "$fixture") names of $(basename "$fixture") is in the run"

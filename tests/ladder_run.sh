#!/usr/bin/env bash
# ladder_run.sh EXE EXPERIMENT 'FIRST...': EXE --quick --only EXPERIMENT (the default run, no --all)
# must measure exactly FIRST (the seed's own kernels) and then the rungs EXE --ladders lists for
# EXPERIMENT, in that order (each variant once per size: the first size's rows are compared).
set -u
exe=$1 experiment=$2 first=$3
ladder=$("$exe" --ladders | sed -n "s/^$experiment ([0-9]* rungs): //p")
[ -n "$ladder" ] || { echo "FAIL: no ladder '$experiment' in $(basename "$exe") --ladders"; exit 1; }
out=$("$exe" --quick --only "$experiment" --csv - 2>&1)
rc=$?
[ $rc -eq 77 ] && { echo "$out"; exit 77; }
[ $rc -eq 0 ] || { echo "$out"; echo "FAIL: exit $rc"; exit 1; }
# the rows of the first size, in order
got=$(awk -F, -v e="$experiment" '$2 == e { if (size == "") size = $4; if ($4 == size) printf "%s ", $3 }' <<<"$out")
want="$first $ladder "
if [ "$got" != "$want" ]; then
    printf 'FAIL: %s rows\n  got:  %s\n  want: %s\n' "$experiment" "$got" "$want"
    exit 1
fi
echo "ok: $experiment ran $want"

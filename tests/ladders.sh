#!/usr/bin/env bash
# ladders.sh EXE FIXTURE: the default run's curated ladders (EXE --ladders, no GPU needed) must be
# exactly FIXTURE. A ladder grows by a decision: change the lab's ladder table and this fixture in
# the same commit (and the handout's main table with them).
set -u
exe=$1 fixture=$2
got=$("$exe" --ladders) || { echo "FAIL: $(basename "$exe") --ladders exited $?"; exit 1; }
if ! diff <(printf '%s\n' "$got") "$fixture"; then
    echo "FAIL: $(basename "$exe") --ladders differs from $fixture (the lines above: < run, > fixture)"
    exit 1
fi
# every ladder holds at most 8 rungs (issue 46: a story of a few steps, each one idea)
awk '/^[^ ].*\([0-9]+ rungs\):/ { n = $0; sub(/.*\(/, "", n); sub(/ rungs.*/, "", n)
     if (n + 0 > 8) { print "FAIL: more than 8 rungs: " $0; bad = 1 } } END { exit bad }' <<<"$got" || exit 1
echo "ok: $(grep -c 'rungs):' <<<"$got") ladders as pinned"

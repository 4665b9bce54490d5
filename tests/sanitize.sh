#!/usr/bin/env bash
# sanitize.sh TOOL EXE [ARGS...]: run a lab's --quick --all (every rung; 2 repetitions, no warm-up, then ARGS, e.g.
# --only cnn) under compute-sanitizer's TOOL (memcheck, racecheck, initcheck, synccheck); pass on
# 0 errors. Exit 77 (skipped) when
# compute-sanitizer is not installed or the lab finds no usable GPU.
set -u
tool=$1 exe=$2
shift 2
cs=$(command -v compute-sanitizer || true)
for d in /usr/local/cuda/bin "$(dirname "$(command -v nvcc 2>/dev/null || echo /x/x)")"; do
    [ -z "$cs" ] && [ -x "$d/compute-sanitizer" ] && cs=$d/compute-sanitizer
done
[ -n "$cs" ] || { echo "compute-sanitizer not found: skipped"; exit 77; }
out=$("$cs" --tool "$tool" --error-exitcode 3 "$exe" --quick --all --reps 2 --warmup 0 "$@" 2>&1)
rc=$?
tail -5 <<<"$out"
grep -q "no usable CUDA GPU\|is not usable" <<<"$out" && [ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "FAIL: $tool: exit $rc"; grep -m 20 "=========" <<<"$out"; exit 1; }
grep -qE "ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards" <<<"$out" ||
    { echo "FAIL: $tool: no zero-error summary"; exit 1; }
echo "ok: $tool reports 0 errors"

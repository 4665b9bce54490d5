#!/usr/bin/env bash
# pdl_graphs.sh EXE: Lab 04's TMA NHWC rows on the --quick layers (gpu suite), then
# tests/quick/04_pdl_graphs.awk on their CSV: every row timed with a pdl_ tile has its graph's
# programmatic edges written beside it, and no other tuned row has any. 77: no usable GPU, or no
# GPU of compute capability 9.0 (the rows are left out).
set -u
exe=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$exe" --quick --only ours_bf16_tma_nhwc,ours_fp16_tma_nhwc,ours_tf32_tma_nhwc --csv "$tmp/out.csv" >"$tmp/log" 2>&1
rc=$?
tail -3 "$tmp/log"
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || { echo "FAIL: $(basename "$exe") exited $rc"; exit 1; }
awk -F, -f "$(dirname "$0")/quick/04_pdl_graphs.awk" "$tmp/out.csv"

#!/usr/bin/env bash
# gpu_session.sh OUTDIR STEP...: what a maintainer runs on a GPU machine, in one go, with all logs
# and CSVs written to OUTDIR. Steps: build test memcheck full ncu. Build dir: $BUILD (default
# /tmp/gpl-build, always fresh); architectures: $ARCH (default: the cuda-arch default list).
set -uo pipefail
out=$1; shift
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-/tmp/gpl-build}
lab=$build/labs/01_coalescing/coalescing
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2; meson --version; } >"$out/env.txt" 2>&1
status=0
for step in "$@"; do
  echo "== $step"
  case $step in
    build) rm -rf "$build"
           { meson setup "$build" "$root" ${ARCH:+-Dcuda-arch=$ARCH} && ninja -C "$build"; } \
             >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; } ;;
    test) meson test -C "$build" --print-errorlogs >"$out/test.log" 2>&1 || status=1
          grep -E "^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped):" "$out/test.log" ;;
    memcheck) compute-sanitizer --tool memcheck --error-exitcode 3 "$lab" --quick \
                >"$out/memcheck.log" 2>&1 || status=1
              tail -3 "$out/memcheck.log" ;;
    full) "$lab" --csv "$out/01_coalescing.csv" >"$out/01_coalescing.log" 2>&1 || status=1
          tail -25 "$out/01_coalescing.log" ;;
    ncu) python3 "$root/plots/ncu_check.py" "$lab" "$out/ncu_01_coalescing.csv" >"$out/ncu.log" 2>&1 || status=1
         tail -25 "$out/ncu.log" ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
done
exit $status

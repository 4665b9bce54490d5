#!/usr/bin/env bash
# gpu_session.sh OUTDIR STEP...: what a maintainer runs on a GPU machine, in one go, with all logs
# and CSVs written to OUTDIR. Steps:
#   build     fresh build in $BUILD (default /tmp/gpl-build); architectures $ARCH (default list)
#   test      meson test (all suites)
#   suite     meson's gpu suite in less time: the timing-checked --quick tests alone, then the rest
#             8 at a time (tools/gpu_suite.py -> gpu_suite.tsv, gpu_suite.logs/)
#   sanitize  compute-sanitizer memcheck, racecheck, initcheck, synccheck on every lab's --quick
#   full      every lab's full run, CSV and log (NN_name.csv, NN_name.log); for Lab 04 also the
#             OpenCV and CuPy peers of the sizes experiment (peers/filter_peers.py ->
#             04_convolution.peers.csv) and the CNN layers through PyTorch's cuDNN
#             (peers/cnn_torch.py -> 04_convolution.torch.csv), for Lab 05 the PyTorch peer
#             (peers/haar_torch.py -> 05_haar.torch.csv)
#   ncu       the Nsight Compute cross-checks, plots/ncu_check.py per lab (01: sectors/request;
#             02: efficiency; 03: occupancy and SM efficiency; 04 and 05: requests and
#             sectors/request), each to ncu_NN_name.csv and .log
# $LABS (default: every lab) limits the per-lab steps, e.g. LABS="02_divergence".
set -uo pipefail
out=$1; shift
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-/tmp/gpl-build}
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2; meson --version; } >"$out/env.txt" 2>&1

labs() {  # "NAME EXE" for every lab executable in the build (or those in $LABS)
    local dir lab exe
    for dir in "$build"/labs/[0-9][0-9]_*/; do
        lab=$(basename "$dir")
        [ -n "${LABS:-}" ] && [[ " $LABS " != *" $lab "* ]] && continue
        exe=$(find "$dir" -maxdepth 1 -type f -executable ! -name '*.*' | head -1)
        [ -n "$exe" ] && echo "$lab $exe"
    done
}
status=0
for step in "$@"; do
  echo "== $step"
  case $step in
    build) rm -rf "$build"
           { meson setup "$build" "$root" ${ARCH:+-Dcuda-arch=$ARCH} && ninja -C "$build"; } \
             >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; } ;;
    test) meson test -C "$build" --print-errorlogs >"$out/test.log" 2>&1 || status=1
          grep -E "^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped):" "$out/test.log" ;;
    suite) python3 "$root/tools/gpu_suite.py" "$build" "$out/gpu_suite.tsv" gpu 8 >"$out/gpu_suite.txt" 2>&1 || status=1
           tail -1 "$out/gpu_suite.txt"; grep " FAIL " "$out/gpu_suite.txt" ;;
    sanitize)
      while read -r lab exe; do
        extras=("")
        [[ $lab == 04_* ]] && extras+=("--only cnn")  # cnn is not in Lab 04's default --quick
        for extra in "${extras[@]}"; do
          for tool in memcheck racecheck initcheck synccheck; do
            log=$out/sanitize_${lab}${extra:+_cnn}_$tool.log
            bash "$root/tests/sanitize.sh" $tool "$exe" $extra >"$log" 2>&1  # the meson test's own script
            rc=$?
            echo "$lab${extra:+ $extra} $tool: exit $rc, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
            [ $rc -eq 0 ] || status=1
          done
        done
      done < <(labs) ;;
    full)
      while read -r lab exe; do
        "$exe" --csv "$out/$lab.csv" >"$out/$lab.log" 2>&1 || { status=1; echo "$lab: exit $?"; }
        tail -30 "$out/$lab.log"
        if [[ $lab == 04_* ]]; then  # OpenCV (CPU) and CuPy on the sizes pictures (77: neither there)
          python3 "$root/peers/filter_peers.py" --out "$out/$lab.peers.csv" --tool "$build/peers/conv_pictures" \
            --lab-csv "$out/$lab.csv" >"$out/$lab.peers.log" 2>&1
          echo "filter_peers.py: exit $?"; cat "$out/$lab.peers.log"
          # the CNN layers through PyTorch's own cuDNN, channels-last (77: no PyTorch there)
          python3 "$root/peers/cnn_torch.py" "$out/$lab.torch.csv" >"$out/$lab.torch.log" 2>&1
          echo "cnn_torch.py: exit $?"; tail -3 "$out/$lab.torch.log"
        fi
        if [[ $lab == 05_* ]]; then  # the PyTorch peer, same GPU, same run (77: no PyTorch there)
          python3 "$root/peers/haar_torch.py" "$out/$lab.torch.csv" >"$out/$lab.torch.log" 2>&1
          echo "haar_torch.py: exit $?"; cat "$out/$lab.torch.log"
        fi
      done < <(labs) ;;
    ncu)
      while read -r lab exe; do
        case $lab in 0[1-5]_*) ;; *) continue ;; esac  # the labs plots/ncu/labs.py knows
        python3 "$root/plots/ncu_check.py" "${lab:0:2}" "$exe" "$out/ncu_$lab.csv" >"$out/ncu_$lab.log" 2>&1 || status=1
        tail -45 "$out/ncu_$lab.log"
      done < <(labs) ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
done
exit $status

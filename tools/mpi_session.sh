#!/usr/bin/env bash
# mpi_session.sh OUTDIR: Lab 05 part 2 (haar_mpi) on a GPU machine, in one go, in under 8 minutes;
# everything it measures goes to OUTDIR. The build is the caller's: $BUILD (default
# /tmp/gpl-build, e.g. from tools/gpu_session.sh OUTDIR build) must hold labs/05_haar/mpi/haar_mpi.
#   env.txt            GPUs, their links (nvidia-smi topo -m), CPU cores, Open MPI and its CUDA support
#   gpu_EXP.csv/.log   each experiment (seed with cpu beside it, device, nccl, born, io, compress, weak) on 1 .. N
#                      ranks, one GPU per rank (N = GPUs, at most $MAX_GPUS, default 2), the seed's
#                      sizes and 8192^2, 16384^2 (compress to 8192^2; weak 8192^2 per rank); 10 runs
#                      each, median; a run stopped by its time limit leaves gpu_EXP.partial.csv
#   cpu_x$M.csv/.log   the CPU cluster (--cpu, the C reference) on 1, 2, 4, 8, 16 ranks (M = 16 or the
#                      cores there are), the seed's sizes
#   gpu_32768.csv/.log 32768^2 on 1 .. N GPUs (seed and device modes, 3 runs), when time is left
#   summary.txt        the total time, speedup and efficiencies per experiment, size and rank count
#   charts/            scaling and phase charts (plots/mpi_charts.sh), when gnuplot is installed
# Every run checks every multi-rank result against the single-process one bit for bit (exit 1
# otherwise); the exit status is 1 if any run failed. JOBS="gpu_nccl gpu_born ..." runs only the
# jobs named. NVLink multicast stays off (NCCL_NVLS_ENABLE=0, passed to every rank).
set -uo pipefail
out=${1:?usage: mpi_session.sh OUTDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-/tmp/gpl-build}
exe=$build/labs/05_haar/mpi/haar_mpi
budget=${BUDGET_S:-420} # seconds for all runs: the 8 minutes less the summary and the charts
mkdir -p "$out"
[ -x "$exe" ] || { echo "no $exe: build first (tools/gpu_session.sh OUTDIR build), with MPI found"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl=^openib # the obsolete verbs transport only warns on machines with InfiniBand cards
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
# The picture and result files: in memory (/dev/shm) when it has room for 32768^2 (a 1 GiB
# picture, 4 GiB results), so that the read and write phases measure moving data through the
# file system's interface, not a local disk's speed; else $TMPDIR or /tmp. env.txt says which.
io_base=${TMPDIR:-/tmp}
shm_free=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
[ "${shm_free:-0}" -gt $((12 * 1024 * 1024)) ] && io_base=/dev/shm
io_dir=$(mktemp -d "$io_base/haar_mpi_io.XXXXXX")
trap 'rm -rf "$io_dir"' EXIT
start=$SECONDS
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU') || gpus=0
cores=$(nproc)
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv 2>&1
  nvidia-smi topo -m 2>&1
  echo "cpu cores: $cores"; lscpu 2>/dev/null | grep -E 'Model name|Socket|NUMA node\(s\)'
  mpirun --version 2>&1 | head -1
  ompi_info 2>/dev/null | grep -iE 'MPI extensions|cuda' | head -5
  echo "io dir: $io_dir ($(df -PT "$io_dir" | awk 'NR == 2 { print $2 ", " int($5 / 1048576) " GiB free" }'))"
  echo "commit: ${GL_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"; } >"$out/env.txt"

status=0
left() { echo $((budget - (SECONDS - start))); }
# job NAME LIMIT_S MPIRUN-ARGS...: one mpirun, its log and CSV in OUTDIR, a time limit.
job() {
    local name=$1 limit=$2
    shift 2
    [ -z "${JOBS:-}" ] || [[ " $JOBS " == *" $name "* ]] || return 0
    if [ "$limit" -lt 20 ]; then echo "$name: skipped, $limit s left"; echo "skipped: no time left" >"$out/$name.log"; return; fi
    local t0=$SECONDS
    timeout --kill-after=10 "$limit" mpirun -x NCCL_NVLS_ENABLE "$@" --io-dir "$io_dir" --csv "$out/$name.csv" >"$out/$name.log" 2>&1
    local rc=$?
    echo "$name: exit $rc after $((SECONDS - t0)) s (limit $limit s)"
    # a run cut short keeps the rows it finished (the CSV is written as PATH.tmp until complete)
    [ -f "$out/$name.csv.tmp" ] && mv "$out/$name.csv.tmp" "$out/$name.partial.csv"
    [ "$rc" -eq 0 ] || { status=1; tail -15 "$out/$name.log"; }
    grep -E "^note:|CUDA-aware MPI|all multi-rank" "$out/$name.log" | sort -u
}

np=$gpus
[ "$np" -gt "${MAX_GPUS:-2}" ] && np=${MAX_GPUS:-2}
ncpu=16
[ "$cores" -lt 16 ] && ncpu=$cores
# A job's limit: its cap, or less so that each later job keeps 25 s.
cap() { local c=$1 later=$2 l; l=$(( $(left) - 25 * later )); echo $(( l < c ? l : c )); }
# One mpirun per experiment, most wanted first, so that one slow experiment costs only itself.
if [ "$np" -ge 1 ]; then
    job gpu_seed "$(cap 100 9)" -np "$np" "$exe" --only seed,cpu
else
    echo "no GPU: GPU runs skipped"
fi
job "cpu_x$ncpu" "$(cap 90 $((np >= 1 ? 8 : 0)))" -np "$ncpu" --bind-to core "$exe" --cpu
if [ "$np" -ge 1 ]; then
    job gpu_device "$(cap 40 7)" -np "$np" "$exe" --only device
    job gpu_nccl "$(cap 40 6)" -np "$np" "$exe" --only nccl
    job gpu_born "$(cap 50 5)" -np "$np" "$exe" --only born
    job gpu_io "$(cap 70 4)" -np "$np" "$exe" --only io
    job gpu_compress "$(cap 50 3)" -np "$np" "$exe" --only compress
    job gpu_nccl_compress "$(cap 60 2)" -np "$np" "$exe" --only nccl_compress
    job gpu_weak "$(cap 50 1)" -np "$np" "$exe" --only weak --size 8192
    job gpu_32768 "$(cap 150 0)" -np "$np" "$exe" --size 32768 --only seed,device --reps 3 --warmup 0
fi

# The summary: per experiment, size and rank count, the total (median ms), the speedup over one
# rank, the efficiency, and the kernel phase's efficiency.
for csv in "$out"/gpu_*.csv "$out"/cpu_x*.csv; do
    [ -s "$csv" ] || continue
    echo "== $(basename "$csv")"
    awk -F, '
      /^#/ { next }
      !hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }
      {
        v = $col["variant"]; base = v; sub(/\/[a-z_]+$/, "", base); what = v; sub(/^.*\//, "", what)
        key = $col["experiment"] SUBSEP base SUBSEP $col["size"] SUBSEP $col["param"]
        if (what == "total") { total[key] = $col["median_ms"]; speed[key] = $col["ratio"]; checked[key] = $col["checked"]; order[++n] = key }
        if (what == "kernel") kern[key] = $col["median_ms"]
        if (what == "efficiency") eff[key] = $col["ratio"]
        if (what == "kernel_efficiency") keff[key] = $col["ratio"]
      }
      END {
        printf "%-9s %-10s %12s %5s %11s %10s %8s %6s %8s %11s\n", "exp.", "variant", "pixels", "ranks", "total_ms", "kernel_ms", "speedup", "eff", "kern.eff", "checked"
        for (i = 1; i <= n; i++) {
          split(order[i], k, SUBSEP)
          side = sqrt(k[3]); size = (side == int(side)) ? int(side) "^2" : k[3]
          printf "%-9s %-10s %12s %5s %11.3f %10.4f %8.2f %6.2f %8.2f %11s\n", k[1], k[2], size, k[4], total[order[i]], kern[order[i]], speed[order[i]], eff[order[i]], keff[order[i]], checked[order[i]]
        }
      }' "$csv"
    # the seed's Table 2 beside ours, as the run printed it
    log=${csv%.csv}.log
    [ -f "$log" ] && sed -n '/^== the seed.s Table 2/,/^(xCPU/p' "$log"
done | tee "$out/summary.txt"
# Charts where gnuplot is installed (else: plots/mpi_charts.sh OUTDIR/charts OUTDIR/*.csv later).
shopt -s nullglob
csvs=("$out"/gpu_*.csv "$out"/cpu_x*.csv)
if command -v gnuplot >/dev/null && ((${#csvs[@]})); then
    bash "$root/plots/mpi_charts.sh" "$out/charts" "${csvs[@]}" 2>&1 | tail -3
fi
echo "mpi_session: $((SECONDS - start)) s, exit $status"
exit $status

#!/usr/bin/env bash
# lab05_mpi_gpu.sh MPIRUN EXE NCCL: Lab 05 part 2 on the GPUs, 2 ranks (on a one-GPU machine both
# ranks share it; the results must still be bit-identical): every experiment of haar_mpi --quick,
# every multi-rank result compared bit for bit with one GPU over the whole image inside (exit 1 on
# a difference). NCCL: 1 if haar_mpi was built with NCCL; its nccl experiment then runs where each
# rank has a GPU of its own. 77 (skipped) without a usable GPU.
set -u
mpirun=$1 exe=$2 nccl=${3:-0}
export NCCL_NVLS_ENABLE=0 # NVLink multicast stays off (haar_mpi sets it too)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
timeout 500 "$mpirun" --oversubscribe -x NCCL_NVLS_ENABLE -np 2 "$exe" --quick --io-dir "$tmp" --csv "$tmp/out.csv" >"$tmp/log" 2>&1
rc=$?
cat "$tmp/log"
grep -q "no usable CUDA GPU" "$tmp/log" && [ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || { echo "FAIL: haar_mpi --quick on 2 ranks exited $rc"; exit 1; }
grep -qF "all multi-rank results verified" "$tmp/log" || { echo "FAIL: no verification line"; exit 1; }
# every experiment ran on 1 and 2 ranks, each total row verified
n=$(awk -F, '/^#/ { next } !hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }
  $col["variant"] ~ /^gpu\/(k[0-9]+\/)?total$/ && $col["checked"] > 0' "$tmp/out.csv" | wc -l)
echo "$n verified GPU total rows"
# seed, io, device, born, compress x2 at 2 sizes on 1 and 2 ranks, weak on 1 and 2; nccl and
# nccl_compress x2 at 2 sizes on 1 and 2 ranks where each rank has a GPU of its own
want=26
if [ "$nccl" = 1 ] && ! grep -qF "== nccl: not run" "$tmp/log"; then want=38; fi
[ "$n" -ge "$want" ] || { echo "FAIL: expected at least $want verified GPU total rows"; exit 1; }

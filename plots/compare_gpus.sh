#!/usr/bin/env bash
# compare_gpus.sh - one chart per lab with its headline figures from every GPU folder side by side
# (plots/data/<gpu>/NN_name.csv), beside the seed's original hardware where the seed document
# published the same figure.
#
#   plots/compare_gpus.sh --out DIR [--data-root DIR] [--data DIR]...
#
# --data-root: the folder of GPU folders (default plots/data); --data adds one more folder (e.g. a
# student's own run, build/charts/data). Writes DIR/NN_compare.png and .svg per lab that at least
# one folder has, and DIR/NN_compare.dat (the figures). GNUPLOT picks the gnuplot to use.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gnuplot=${GNUPLOT:-gnuplot}
die() { echo "compare_gpus: $*" >&2; exit 1; }
out="" data_root=$root/plots/data extra=()
while (($#)); do
    case $1 in
        --out) (($# > 1)) || die "--out needs a folder"; out=$2; shift 2 ;;
        --data-root) (($# > 1)) || die "--data-root needs a folder"; data_root=$2; shift 2 ;;
        --data) (($# > 1)) || die "--data needs a folder"; extra+=("$2"); shift 2 ;;
        *) die "usage: $0 --out DIR [--data-root DIR] [--data DIR]..." ;;
    esac
done
[[ -n $out ]] || die "usage: $0 --out DIR [--data-root DIR] [--data DIR]..."
command -v "$gnuplot" >/dev/null || die "gnuplot not found (install gnuplot-nox, or set GNUPLOT)"
mkdir -p "$out"
folders=()
for d in "$data_root"/*/ "${extra[@]}"; do [[ -d $d ]] && folders+=("${d%/}"); done
((${#folders[@]})) || die "no GPU folders under $data_root"

# headlines LAB CSV: three lines "value" (empty if the CSV lacks the row), in the order of TITLES.
headlines() {
    awk -F, -v lab="$1" '
      /^#/ { next }
      !hdr { for (i = 1; i <= NF; i++) c[$i] = i; hdr = 1; next }
      { e = $c["experiment"]; v = $c["variant"]; n = $c["size"]; p = $c["param"] }
      lab == "01_coalescing" && e == "seed" && v == "noncoalesced" && n == 4194304 { h1 = $c["ratio"] }
      lab == "01_coalescing" && e == "stream" && v == "copy_vec4" { h2 = $c["pct_of_copy"] }
      lab == "01_coalescing" && e == "stream" && v == "copy" { h3 = $c["pct_of_copy"] }
      lab == "02_divergence" && e == "seed" && v == "warp_divergence" && n == 4194304 { h1 = $c["ratio"] }
      lab == "02_divergence" && e == "paths" && v == "paths_lanes" && p == 32 { h2 = $c["ratio"] }
      lab == "02_divergence" && e == "data" && v == "unsorted" && p == 32 { h3 = $c["ratio"] }
      lab == "03_occupancy" && e == "seed" && n == 4096 { t[v] = $c["median_ms"] }
      lab == "03_occupancy" && e == "latency" && v == "stream_vec4_ilp4" && p == 16 { h2 = $c["pct_of_copy"] }
      lab == "03_occupancy" && e == "tail" && v == "chunks" { if (!w) w = p + 0; if (p + 0 == w + 1) h3 = $c["ratio"] }
      lab == "04_convolution" && e == "ladder" { t[v] = $c["median_ms"] }
      lab == "04_convolution" && e == "sizes" && p == 16384 { s[v] = $c["median_ms"]
        if (v != "NPP" && $c["pct_of_copy"] + 0 > h2) { h2 = $c["pct_of_copy"] + 0; fast = $c["median_ms"] + 0 } }
      lab == "04_cnn" && e == "cnn" { split(v, a, "@"); m = $c["median_ms"] + 0; if (m <= 0) next
        if (a[1] == "cudnn") cu[a[2]] = m; if (a[1] == "cudnn_bf16") cb[a[2]] = m
        if (a[1] ~ /^ours/ && a[1] !~ /tf32|bf16|fp16/ && (!(a[2] in best) || m < best[a[2]])) best[a[2]] = m
        # like for like with cuDNN (NCHW in, its layout change timed): the rows that change the x layout
        # untimed in their prepare hook (mma3, wgmma, wgmma2, wgmma_tma) are left out; their _t twins count
        if (a[1] == "ours_bf16_wgmma_tma_t") twin = 1
        if (a[1] ~ /^ours_bf16/ && a[1] !~ /^ours_bf16_(mma3|wgmma|wgmma2|wgmma_tma)$/ && (!(a[2] in bb) || m < bb[a[2]])) bb[a[2]] = m
        # the best direct FP32 rung on E4 (Winograd does fewer multiplications: left out of a % of peak)
        if (a[1] ~ /^ours[0-9]/ && a[2] == "E4" && $c["pct_of_peak"] + 0 > h2) h2 = $c["pct_of_peak"] + 0 }
      lab == "05_haar" && e == "sizes" && n == 268435456 && p == 4 { t[v] = $c["median_ms"]; if (v == "single_pass") h2 = $c["pct_of_copy"]; if (v == "single_pass_inv") h3 = $c["pct_of_copy"] }
      END {
        if (lab == "03_occupancy" && t["S2"]) h1 = t["S1"] / t["S2"]
        if (lab == "05_haar" && t["single_pass"]) h1 = t["seed"] / t["single_pass"]
        if (lab == "04_cnn" && best["E3_N32"]) h1 = cu["E3_N32"] / best["E3_N32"]
        # only where the --all rows ran (ours_bf16_wgmma_tma_t: the layout change timed, as in the NCHW cuDNN call)
        if (lab == "04_cnn" && bb["E4"] && twin) h3 = cb["E4"] / bb["E4"]
        if (lab == "04_convolution") {
          if (t["CM_CF12_Vec"]) h1 = t["GM"] / t["CM_CF12_Vec"]
          if (fast && s["NPP"]) h3 = s["NPP"] / fast
        }
        printf "%s\n%s\n%s\n", h1, h2, h3
      }' "$2"
}

for lab in 01_coalescing 02_divergence 03_occupancy 04_convolution 04_cnn 05_haar; do
    case $lab in
        01_coalescing) titles=("non-coalesced / coalesced time, 4M" "copy_vec4, % of memcpy" "copy (4-byte loads), % of memcpy")
                       seed=("Tesla K40" 52.3 "" "") ;;
        02_divergence) titles=("divergent / non-divergent time, 4M" "32 paths across the lanes: T(32) / T(1)" "random / sorted keys, p = 1/2")
                       seed=("Tesla K40" 3.10 "" "") ;;
        03_occupancy) titles=("seed, 4096 elements: S1 time / S2 time" "16-byte loads x 4, 16 warps/SM: % of memcpy" "one block past a wave: time / whole wave")
                      seed=("Tesla K40" 1.04 "" "") ;;
        04_convolution) titles=("3072^2: GM time / CM_CF12_Vec time" "16384^2, best rung: % of memcpy" "16384^2: NPP time / best rung time")
                        seed=("GTX 1660 Ti" 3.22 "" "") ;;
        04_cnn) titles=("E3 batch 32: cuDNN FP32 time / best FP32 ours time" "E4: best direct FP32 rung, % of the FP32 peak" "E4: cuDNN BF16 time / best BF16 ours time (x layout change timed; --all rows)")
                seed=("RTX 3060" "" "" "") ;;  # the seed timed other kernels: no comparable figure
        05_haar) titles=("16384^2, 4 levels: seed rung time / single pass time" "single pass: % of memcpy (8 bytes/pixel)" "single-pass inverse: % of memcpy")
                 seed=("GTX 780" "" "" "") ;;  # the seed published no comparable figure
    esac
    name=${lab%%_*} file=$lab
    [[ $lab == 04_cnn ]] && name=04_cnn file=04_convolution.cnn  # part 2 of Lab 04 has its own CSV
    dat=$out/${name}_compare.dat
    : >"$dat"
    rows=0
    for f in "${folders[@]}"; do
        csv=$f/$file.csv
        [[ -f $csv || $lab != 04_cnn ]] || csv=$f/04_convolution.csv  # the cnn rows in the lab's own CSV
        [[ -f $csv ]] || continue
        gpu=$(sed -n 's/^# gpu=//p' "$csv" | head -1 | sed 's/NVIDIA //; s/ 80GB HBM3//')
        mapfile -t v < <(headlines "$lab" "$csv")
        printf '"%s (%s)"\t%s\t%s\t%s\n' "$gpu" "$(basename "$f")" "${v[0]:-NaN}" "${v[1]:-NaN}" "${v[2]:-NaN}" >>"$dat"
        rows=$((rows + 1))
    done
    ((rows)) || continue
    [[ -n ${seed[1]}${seed[2]}${seed[3]} ]] &&
        printf '"%s (seed document)"\t%s\t%s\t%s\n' "${seed[0]}" "${seed[1]:-NaN}" "${seed[2]:-NaN}" "${seed[3]:-NaN}" >>"$dat"
    for fmt in png svg; do
        chart=$out/${name}_compare
        err=$("$gnuplot" -e "set loadpath '$root/plots'; out='$chart'; fmt='$fmt'; dat='$dat'; lab='$lab'" \
            -e "t1='${titles[0]}'; t2='${titles[1]}'; t3='${titles[2]}'" "$root/plots/compare.gp" 2>&1) ||
            die "gnuplot failed on $dat:"$'\n'"$err"
        [[ -s $chart.$fmt ]] || die "no $chart.$fmt written"
    done
    echo "$lab: $rows GPU folder(s) -> $out/${name}_compare.png"
done

#!/usr/bin/env bash
# mpi_charts.sh OUTDIR CSV...: Lab 05 part 2's charts from haar_mpi CSVs (e.g. the gpu_*.csv and
# cpu_x*.csv of tools/mpi_session.sh). For every experiment of each CSV: the scaling chart
# (speedup and efficiency against ranks, end to end and kernel phase, one line per size) and the
# phase chart (each phase's share of the time per size and rank count), PNG and SVG:
# OUTDIR/mpi_CSVNAME_EXPERIMENT_{scaling,phases}.{png,svg}. Compress: its 10% rows.
# GNUPLOT (environment) names the gnuplot to use; default: gnuplot on PATH.
set -euo pipefail
plots=$(cd "$(dirname "$0")" && pwd)
gnuplot=${GNUPLOT:-gnuplot}
out=${1:?usage: mpi_charts.sh OUTDIR CSV...}
shift
(($#)) || { echo "usage: mpi_charts.sh OUTDIR CSV..."; exit 2; }
command -v "$gnuplot" >/dev/null || { echo "mpi_charts: gnuplot not found (install gnuplot-nox, or set GNUPLOT)"; exit 1; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${MPI_CHARTS_KEEP:-}" ] && trap - EXIT

# rows CSV EXP: "size ranks phase median_ms" for the experiment's own rows (gpu/... or cpu/...,
# compress: the 10% ones).
rows() {
    awk -F, -v e="$2" '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        $c["experiment"] == e && $c["variant"] ~ /^(gpu|cpu)(\/k10)?\/[a-z0-9]+$/ {
            n = split($c["variant"], v, "/"); print $c["size"], $c["param"], v[n], $c["median_ms"] }' "$1"
}
label() { awk -v s="$1" 'BEGIN { r = int(sqrt(s) + 0.5); if (r * r == s) print r "^2"; else print s "px" }'; }

written=0
for csv in "$@"; do
    [ -s "$csv" ] || { echo "mpi_charts: $csv: missing or empty"; exit 1; }
    grep -q '^# lab=05_haar_mpi' "$csv" || { echo "mpi_charts: $csv is not a haar_mpi CSV"; exit 1; }
    name=$(basename "$csv" .csv)
    gpu=$(sed -n 's/^# gpu=//p' "$csv" | head -1 | tr -d "'\\\\")
    [[ $gpu == none* ]] && gpu="CPU cores, the C reference"
    note="$gpu; $(sed -n 's/^# ranks=//p' "$csv" | head -1) ranks; $(sed -n 's/^# date=//p' "$csv" | head -1)"
    for exp in $(awk -F, '/^#/ { next } !h { h = 1; next } $3 ~ /\/total$/ { print $2 }' "$csv" | sort -u); do
        rows "$csv" "$exp" >"$tmp/rows"
        # scaling: one block per size; speedups against that size's 1-rank run
        labels=""
        : >"$tmp/scaling.dat"
        for size in $(awk '$3 == "total" { print $1 }' "$tmp/rows" | sort -nu); do
            labels="$labels $(label "$size")"
            awk -v s="$size" '$1 == s && ($3 == "total" || $3 == "kernel") { t[$2, $3] = $4; r[$2] = 1 }
                END { for (k in r) print k, t[k, "total"], t[k, "kernel"] }' "$tmp/rows" | sort -n |
                awk -v weak="$([ "$exp" = weak ] && echo 1 || echo 0)" 'NR == 1 { t1 = $2; k1 = $3 }
                    { sp = t1 / $2; ks = ($3 > 0) ? k1 / $3 : 0
                      print $1, sp, weak ? sp : sp / $1, ks, weak ? ks : ks / $1 }' >>"$tmp/scaling.dat"
            printf '\n\n' >>"$tmp/scaling.dat"
        done
        # weak scaling: one picture per rank count, so one line across sizes
        if [ "$exp" = weak ]; then
            awk '($3 == "total" || $3 == "kernel") { t[$2, $3] = $4; r[$2] = 1 } END { for (k in r) print k, t[k, "total"], t[k, "kernel"] }' \
                "$tmp/rows" | sort -n | awk 'NR == 1 { t1 = $2; k1 = $3 } { print $1, t1 / $2, t1 / $2, k1 / $3, k1 / $3 }' >"$tmp/scaling.dat"
            labels="per-rank-part"
        fi
        # phases: shares of the phases' sum per size / ranks
        awk 'BEGIN { n = split("read scatter h2d kernel d2h gather assemble write select psnr", P, " ") }
            { key = $1 " " $2; if (!(key in seen)) { seen[key] = 1; order[++m] = key } t[key, $3] = $4 }
            END { for (j = 1; j <= m; j++) { sum = 0; for (p = 1; p <= n; p++) sum += t[order[j], P[p]]
                split(order[j], k, " "); r = int(sqrt(k[1]) + 0.5); printf "%s/%s", (r * r == k[1] ? r "^2" : k[1]), k[2]
                for (p = 1; p <= n; p++) printf " %.3f", (sum > 0 ? 100 * t[order[j], P[p]] / sum : 0); printf "\n" } }' \
            "$tmp/rows" >"$tmp/phases.dat"
        for chart in scaling phases; do
            for fmt in png svg; do
                file=$out/mpi_${name}_${exp}_$chart
                err=$("$gnuplot" -e "set loadpath '$plots'; dat='$tmp/$chart.dat'; labels='${labels# }'" \
                    -e "out='$file'; fmt='$fmt'; exp='$exp'; chart='$chart'; note='$note'" "$plots/mpi_scaling.gp" 2>&1) ||
                    { echo "mpi_charts: gnuplot failed on $csv ($exp, $chart):"; echo "$err"; exit 1; }
                [ -z "$err" ] || { echo "mpi_charts: $csv ($exp, $chart): $err"; exit 1; }
                [ -s "$file.$fmt" ] || { echo "mpi_charts: no $file.$fmt"; exit 1; }
                written=$((written + 1))
            done
        done
    done
done
echo "mpi_charts: $written charts in $out"

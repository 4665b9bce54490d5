#!/usr/bin/env bash
# make_charts.sh - run every lab (or take committed reference results) and render all charts.
#
#   plots/make_charts.sh --build BUILDDIR --out OUTDIR [--reference] [--data DIR] [--quick] [--no-gpu-seen]
#
# Default: run each lab executable BUILDDIR/labs/NN_name/<exe> with --csv OUTDIR/data/NN_name.csv.
# A lab that exits with 77 (no usable GPU) falls back to the reference CSV DIR/NN_name.csv.
# --reference: run nothing, render every DIR/NN_*.csv. DIR defaults to plots/data/h100.
# --no-gpu-seen: `meson setup` found no NVIDIA driver (-Dplots-labs=auto), so the plots targets built no lab:
# each lab of BUILDDIR takes its reference CSV DIR/NN_name.csv, as a lab that exits 77 does, and the
# run says so (on a CPU-only machine the first `meson compile -C build plots` takes seconds).
# Each CSV is rendered by every plots/NN_*.gp with the same NN, as PNG and SVG into OUTDIR.
# GNUPLOT (environment) names the gnuplot to use; default: gnuplot on PATH. Without one, the labs
# still run and write their CSVs and logs; the last line then says the charts were not drawn and
# the command that draws them from those CSVs (here once gnuplot is installed, or on any machine).
# Prints each lab's wall time (`time NN_name: N s`) and the whole run's (`full run (plots): N s`).
# Last, OUTDIR/index.html: the instructor's page (plots/report.py), the run beside the committed GPUs.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
plots=$root/plots
gnuplot=${GNUPLOT:-gnuplot}

die() { echo "make_charts: $*" >&2; exit 1; }
usage() { die "usage: $0 --build BUILDDIR --out OUTDIR [--reference] [--data DIR] [--quick] [--no-gpu-seen]"; }

build="" out="" data=$plots/data/h100 reference=0 quick="" no_gpu_seen=0
while (($#)); do
    case $1 in
        --build) (($# > 1)) || usage; build=$2; shift 2 ;;
        --out) (($# > 1)) || usage; out=$2; shift 2 ;;
        --data) (($# > 1)) || usage; data=$2; shift 2 ;;
        --reference) reference=1; shift ;;
        --quick) quick=--quick; shift ;;
        --no-gpu-seen) no_gpu_seen=1; shift ;;
        *) usage ;;
    esac
done
[[ -n $out ]] || usage
((reference)) || [[ -n $build ]] || usage
have_gnuplot=1
command -v "$gnuplot" >/dev/null || have_gnuplot=0
((have_gnuplot || !reference)) || die "gnuplot not found (install gnuplot-nox, or set GNUPLOT): no charts drawn"
mkdir -p "$out"
out=$(cd "$out" && pwd)
run_start=$SECONDS

csvs=() sources=()   # one entry per lab: the CSV to render, and where it came from
measured=0           # labs that ran on this machine's GPU (exit 0)
use() { csvs+=("$1"); sources+=("$(basename "$1" .csv): $2"); }

if ((reference)); then
    for csv in "$data"/[0-9][0-9]_*.csv; do
        [[ $(basename "$csv" .csv) == *.* ]] && continue   # a companion file (NAME.timeline.csv)
        [[ -f $csv ]] && use "$csv" "committed reference results $csv"
    done
    ((${#csvs[@]})) || die "no reference results NN_name.csv in $data"
else
    mkdir -p "$out/data"
    labdirs=("$build"/labs/[0-9][0-9]_*/)
    total=${#labdirs[@]} done_labs=0 start=$SECONDS
    for dir in "${labdirs[@]}"; do
        [[ -d $dir ]] || continue
        lab=$(basename "$dir")
        # Progress: lab i of N, time so far, and the rest estimated at the pace so far.
        elapsed=$((SECONDS - start))
        eta=""
        ((done_labs > 0)) && eta=", about $((elapsed * (total - done_labs) / done_labs)) s left at this pace"
        echo "[$((done_labs + 1))/$total] $lab (${elapsed} s so far$eta)"
        done_labs=$((done_labs + 1))
        if ((no_gpu_seen)); then   # not built: meson setup found no NVIDIA driver
            csv=$data/$lab.csv
            [[ -f $csv ]] || die "$lab: not built (meson setup found no NVIDIA driver) and no reference results $csv"
            echo "$lab: not built for this run (meson setup found no NVIDIA driver): the charts come from committed reference results $csv"
            use "$csv" "committed reference results $csv (no NVIDIA driver when meson setup ran; the lab was not built)"
            continue
        fi
        # The lab executable: the one executable file without a dot (meson's own files have one).
        mapfile -t exes < <(find "$dir" -maxdepth 1 -type f -executable ! -name '*.*')
        if ((${#exes[@]} == 0)); then   # a lab in its first stage (e.g. a CPU reference only)
            echo "$lab: no executable yet: nothing to run"
            continue
        fi
        ((${#exes[@]} == 1)) || die "expected one lab executable in $dir, found ${#exes[@]}"
        csv=$out/data/$lab.csv log=$out/$lab.log
        echo "running ${exes[0]} --csv $csv${quick:+ $quick} (log: $log)"
        rm -f "$csv"
        rc=0 lab_start=$SECONDS
        "${exes[0]}" --csv "$csv" $quick >"$log" 2>&1 || rc=$?
        echo "time $lab: $((SECONDS - lab_start)) s"
        if ((rc == 0)); then
            measured=$((measured + 1))
            use "$csv" "measured on this machine by ${exes[0]}"
        elif ((rc == 77)); then
            csv=$data/$lab.csv
            [[ -f $csv ]] || die "$lab: no usable GPU (exit 77) and no reference results $csv"
            echo "$lab: no usable GPU (exit 77): the charts come from committed reference results $csv"
            use "$csv" "committed reference results $csv (no usable GPU here)"
        else
            tail -n 20 "$log" >&2
            die "$lab failed with exit code $rc (full log: $log)"
        fi
    done
    ((${#csvs[@]})) || die "no lab executables in $build/labs/NN_*/ (build first, or use --reference)"
fi

# The run's wall time: every lab and, when drawn, the charts.
run_time() {
    if ((reference)); then return; fi
    if ((no_gpu_seen)); then
        echo "no lab ran here (meson setup found no NVIDIA driver, so the plots target built none; -Dplots-labs=enabled" \
             "builds and runs them): the charts come from the committed reference results in $data" \
             "($((SECONDS - run_start)) s)"
        return
    fi
    if ((measured == 0)); then  # every lab exited 77: say so, not a run's time
        echo "no lab ran on a GPU here (every lab exited 77, no usable GPU): $out/data/ holds no CSV; the" \
             "charts come from the committed reference results in $data ($((SECONDS - run_start)) s)"
        return
    fi
    if [[ -n $quick ]]; then echo "quick run (plots-quick): $((SECONDS - run_start)) s"
    else echo "full run (plots): $((SECONDS - run_start)) s"; fi
}

# The instructor's page (plots/report.py): index.html beside the charts, this run's figures beside the
# committed GPU folders. Written with or without gnuplot (without it: the tables, no charts).
report() {
    local dir=$data src=reference
    if ((!reference && measured > 0)); then dir=$out/data src=measured; fi
    if command -v python3 >/dev/null; then
        python3 "$plots/report.py" --charts "$out" --data "$dir" --source "$src" ||
            die "report.py failed: no $out/index.html"
    else
        echo "make_charts: python3 not found: no $out/index.html (the instructor's page)"
    fi
}

if ((!have_gnuplot)); then
    report
    echo "data:"
    printf '  %s\n' "${sources[@]}"
    run_time
    csv_dir=$data   # where the CSVs are: this run's, or (no usable GPU) the committed ones
    [[ ${csvs[0]} == "$out/data/"* ]] && csv_dir=$out/data
    echo "make_charts: charts not drawn: '$gnuplot' not found; the CSVs are in $csv_dir, the logs in $out." \
         "To draw them, install gnuplot (gnuplot-nox) and run: $plots/make_charts.sh --reference --data $csv_dir" \
         "--out $out (or copy $csv_dir to a machine with gnuplot and run the same there with its path;" \
         "plots/compare_gpus.sh --out DIR --data $csv_dir draws them beside the committed GPUs)"
    exit 0
fi

meta() { sed -n "s/^# $1=//p" "$2" | head -n 1; }   # value of a '# key=value' comment line

written=()
for csv in "${csvs[@]}"; do
    lab=$(basename "$csv" .csv)
    l2=$(meta l2_bytes "$csv") copy=$(meta copy_gbs "$csv") gpu=$(meta gpu "$csv" | tr -d "'\\\\")
    [[ -n $l2 && -n $copy && -n $gpu ]] || die "$csv lacks a '# gpu=', '# l2_bytes=' or '# copy_gbs=' line"
    scripts=("$plots/${lab%%_*}"_*.gp)
    [[ -f ${scripts[0]} ]] || { echo "$lab: no chart scripts plots/${lab%%_*}_*.gp"; continue; }
    for gp in "${scripts[@]}"; do
        for fmt in png svg; do
            chart=$out/$(basename "$gp" .gp)
            rm -f "$chart.$fmt"
            err=$("$gnuplot" -e "set loadpath '$plots'; csv='$csv'; out='$chart'; fmt='$fmt'" \
                -e "l2_bytes=$l2; copy_gbs=$copy; gpu='$gpu'" "$gp" 2>&1) ||
                die "gnuplot failed on $gp with $csv:"$'\n'"$err"
            [[ -z $err ]] || sed "s|^|$(basename "$gp") ($fmt, $(basename "$csv")): |" <<<"$err" >&2
            [[ $err != *"no column with header"* ]] || die "$csv lacks a column that $gp reads"
            [[ $err != *"no valid points"* ]] || die "$gp plots a series that $csv has no rows for"
            [[ -s $chart.$fmt ]] || die "$gp wrote no $chart.$fmt (or an empty one)"
            written+=("$chart.$fmt")
        done
    done
done

echo "charts written:"
printf '  %s\n' "${written[@]}"
report
echo "data:"
printf '  %s\n' "${sources[@]}"
run_time

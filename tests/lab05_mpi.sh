#!/usr/bin/env bash
# lab05_mpi.sh MPIRUN EXE NCCL: Lab 05 part 2 (haar_mpi) in CPU mode (--cpu: the C reference on every
# rank, no GPU), on 1, 2, 3 and 4 ranks (oversubscribed on a small machine). haar_mpi compares
# every multi-rank result with the single-process one bit for bit and exits 1 on a difference;
# this script also checks the CSV (every row verified, the counts of compared elements, the same
# PSNR on every rank count), the unequal splits, the errors that must stop every rank with exit 2
# (too many ranks, a missing or malformed input file, on all ranks or on one), and that an
# injected one-bit fault is caught (exit 1), in the seed mode and in the born-distributed one.
# NCCL: 1 if this haar_mpi was built with NCCL (its nccl experiment needs GPUs), else 0 (--only
# nccl must then stop with exit 2, naming what is missing).
set -u
mpirun=$1 exe=$2 nccl=${3:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Containers often forbid the cross-process memory copy of Open MPI's shared-memory transport.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run NAME CODE TEXT -- MPIRUN-ARGS...: the job must exit CODE and its output contain TEXT.
run() {
    local name=$1 code=$2 text=$3
    shift 4
    timeout 120 "$mpirun" --oversubscribe "$@" >"$tmp/$name.log" 2>&1
    local rc=$?
    if [ "$rc" -ne "$code" ]; then fail "$name: exit $rc, expected $code"; tail -30 "$tmp/$name.log"; return 1; fi
    if ! grep -qF -- "$text" "$tmp/$name.log"; then fail "$name: output lacks: $text"; tail -30 "$tmp/$name.log"; return 1; fi
    echo "ok: $name (exit $rc)"
}

# The CSV of a run on NP ranks: every experiment's total rows on 1, 2, 4 .. NP ranks, each with
# the number of elements it compared; the PSNR the same on every rank count.
check_csv() {
    local csv=$1 np=$2
    awk -F, -v np="$np" '
      /^#/ { next }
      !hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }
      {
        e = $col["experiment"]; v = $col["variant"]; n = $col["size"] + 0; k = $col["param"] + 0
        if (v ~ /\/total$/) {
          want = (e == "io" || e == "born") ? n : 2 * n   # forward (+ inverse, or + reconstruction)
          if ($col["checked"] + 0 != want) { printf "%s %s %d px %d ranks: checked %s, expected %d\n", e, v, n, k, $col["checked"], want; bad++ }
          if ($col["median_ms"] + 0 <= 0) { printf "%s %s: no time\n", e, v; bad++ }
          totals[e " " n " " v] = totals[e " " n " " v] " " k
        }
        if (v ~ /psnr_db$/) {
          key = n " " v
          if (key in psnr && psnr[key] != $col["ratio"]) { printf "PSNR differs across rank counts: %s %s vs %s\n", key, psnr[key], $col["ratio"]; bad++ }
          psnr[key] = $col["ratio"]
        }
      }
      END {
        expect = ""
        for (r = 1; r < np; r *= 2) expect = expect " " r
        expect = expect " " np
        for (t in totals) {
          split(t, parts, " ")
          if (parts[1] == "weak") continue
          if (totals[t] != expect) { printf "%s: rank counts%s, expected%s\n", t, totals[t], expect; bad++ }
          seen[parts[1]] = 1
        }
        if (!("cpu" in seen) || !("io" in seen) || !("born" in seen) || !("compress" in seen)) { print "missing experiments"; bad++ }
        if (length(psnr) == 0) { print "no PSNR rows"; bad++ }
        exit bad > 0
      }' "$csv" || fail "CSV of the $np-rank run ($csv)"
}

# 1. 1..4 ranks, every experiment (64x64 and 96x96, 4 levels: 4 and 6 strips of 16 rows).
for np in 1 2 3 4; do
    run "np$np" 0 "all multi-rank results verified" -- -np "$np" "$exe" --cpu --quick --io-dir "$tmp" \
        --csv "$tmp/np$np.csv" && check_csv "$tmp/np$np.csv" "$np"
done
# The unequal splits the runs above used: 96 rows over 4 ranks, 64 rows over 3.
grep -qF "strips of the 4-rank run (rows): 32 32 16 16" "$tmp/np4.log" || fail "96 rows over 4 ranks: not 32 32 16 16"
grep -qF "strips of the 3-rank run (rows): 32 16 16" "$tmp/np3.log" || fail "64 rows over 3 ranks: not 32 16 16"
grep -qF "strips of the 3-rank run (rows): 32 32 32" "$tmp/np3.log" || fail "96 rows over 3 ranks: not 32 32 32"

# 2. The other convention, 3 levels, a non-power-of-two size split 5 ways unequally (80 rows of
#    8-row units: 10 units -> 2 each; 88 rows: 11 units -> 3 2 2 2 2).
run average 0 "strips of the 5-rank run (rows): 24 16 16 16 16" -- -np 5 "$exe" --cpu --quick --size 88 \
    --levels 3 --convention average --only cpu,compress --io-dir "$tmp"

# 3. Many ties at the threshold, split across ranks: a picture of flat 8x8 blocks (most detail
#    coefficients are exactly 0), so "keep the first ties in global index order" decides.
python3 - "$tmp/blocks.pgm" <<'EOF'
import sys
w, h = 64, 96
px = bytes(((x // 8) * 37 + (y // 8) * 91) % 256 if (x // 8 + y // 8) % 3 else 128 for y in range(h) for x in range(w))
open(sys.argv[1], "wb").write(b"P5\n%d %d\n255\n" % (w, h) + px)
EOF
for np in 2 3 4; do
    run "ties$np" 0 "all multi-rank results verified" -- -np "$np" "$exe" --cpu --quick --image "$tmp/blocks.pgm" \
        --only cpu,io,compress --io-dir "$tmp" || continue
    grep -qE "keep 10%: threshold 0 \([0-9]+ equal to it, [0-9]+ of them kept\)" "$tmp/ties$np.log" ||
        fail "ties$np: the 10% threshold of the block picture is not 0 with ties"
done

# 4. Too many ranks: 32 rows make 2 strips of 16 rows; 3 ranks -> every rank says so, exit 2.
if run toomany 2 "use at most 2 rank(s)" -- -np 3 "$exe" --cpu --quick --size 32 --io-dir "$tmp"; then
    n=$(grep -c "use at most 2 rank(s)" "$tmp/toomany.log")
    [ "$n" -eq 3 ] || fail "toomany: the error came from $n rank(s), expected all 3"
fi

# 5. Input files: missing on every rank; missing on one rank only (mpirun's MPMD form gives rank 1
#    its own arguments); not a PGM. Exit 2, the file named, no rank left waiting.
run missing 2 "--image '/no/such.pgm': No such file or directory" -- -np 2 "$exe" --cpu --image /no/such.pgm
run missing_one 2 "[rank 1] haar_mpi: --image '$tmp/nothere.pgm': No such file or directory" -- \
    -np 1 "$exe" --cpu --quick --image "$tmp/blocks.pgm" : -np 1 "$exe" --cpu --quick --image "$tmp/nothere.pgm"
grep -qF "stopping: the command line is invalid on another rank" "$tmp/missing_one.log" ||
    fail "missing_one: rank 0 did not say why it stops"
printf 'P5\n64 64\n255\n' >"$tmp/short.pgm"
run truncated 2 "truncated" -- -np 2 "$exe" --cpu --image "$tmp/short.pgm"

# 6. Usage errors reach every rank the same way; --help is printed once.
run levels 2 "--levels '16' is invalid: allowed integers 1..15" -- -np 2 "$exe" --cpu --levels 16
run convention 2 "--convention 'haar' is invalid: allowed average, orthonormal" -- -np 2 "$exe" --cpu --convention haar
run iodir 2 "--io-dir '/no/such/dir': needs an existing, writable directory" -- -np 2 "$exe" --cpu --io-dir /no/such/dir
run flush 2 "--flush-l2 does not apply" -- -np 2 "$exe" --cpu --flush-l2
run levels_size 2 "4 level(s) need both sides to be multiples of 2^4" -- -np 2 "$exe" --cpu --size 40
run sms 2 "--sms '9x' is invalid: allowed integers 1..4096" -- -np 2 "$exe" --cpu --sms 9x
GL_SMS=0 run sms_env 2 "GL_SMS '0' is invalid: allowed integers 1..4096" -- -x GL_SMS -np 2 "$exe" --cpu
if run help 0 "--convention C" -- -np 2 "$exe" --help; then
    n=$(grep -c "^usage:" "$tmp/help.log")
    [ "$n" -eq 1 ] || fail "help printed $n times on 2 ranks"
fi

# 7. The comparison can fail: one flipped bit on the last rank -> exit 1 with the first mismatch.
HAAR_MPI_INJECT_FAULT=1 run fault 1 "VERIFICATION FAILED: cpu, 2 rank(s), forward" -- -x HAAR_MPI_INJECT_FAULT \
    -np 2 "$exe" --cpu --quick --only cpu --io-dir "$tmp"
HAAR_MPI_INJECT_FAULT=1 run fault_born 1 "VERIFICATION FAILED: born, 2 rank(s), forward (every rank's own file)" -- \
    -x HAAR_MPI_INJECT_FAULT -np 2 "$exe" --cpu --quick --only born --io-dir "$tmp"

# 7b. The nccl experiment: without NCCL in the build, --only nccl stops every rank with exit 2 and
#     says how to build it; with NCCL, a CPU run says it needs GPUs and runs nothing else.
if [ "$nccl" = 1 ]; then
    run nccl_cpu 0 "== nccl: not run with --cpu (it needs GPUs)" -- -np 2 "$exe" --cpu --quick --only nccl --io-dir "$tmp"
    run nccl_compress_cpu 0 "== nccl_compress: not run with --cpu (it needs GPUs)" -- -np 1 "$exe" --cpu --quick \
        --only nccl_compress --io-dir "$tmp"
else
    if run nccl_missing 2 "--only nccl: this haar_mpi was built without NCCL" -- -np 2 "$exe" --cpu --quick --only nccl; then
        n=$(grep -c "built without NCCL" "$tmp/nccl_missing.log")
        [ "$n" -eq 2 ] || fail "nccl_missing: the error came from $n rank(s), expected both"
    fi
    run nccl_compress_missing 2 "--only nccl_compress: this haar_mpi was built without NCCL" -- -np 1 "$exe" --cpu \
        --quick --only nccl_compress
fi

# 8. --save: the reconstructions of the largest run (2 sizes x 10% and 1%), whole 8-bit PGMs.
mkdir -p "$tmp/save"
if run save 0 "saved $tmp/save/haar_mpi_96x96_keep01_orthonormal.pgm" -- -np 2 "$exe" --cpu --quick --only compress \
    --save "$tmp/save" --io-dir "$tmp"; then
    n=$(find "$tmp/save" -name 'haar_mpi_*_keep*.pgm' | wc -l)
    [ "$n" -eq 4 ] || fail "save: $n pictures, expected 4"
    size=$(stat -c %s "$tmp/save/haar_mpi_96x96_keep10_orthonormal.pgm")
    [ "$size" -eq $((96 * 96 + 13)) ] || fail "save: 96x96 picture of $size bytes, expected $((96 * 96 + 13))"
fi

# 9. The charts of a run (plots/mpi_charts.sh): 5 experiments x (scaling, phases) x (PNG, SVG).
if command -v "${GNUPLOT:-gnuplot}" >/dev/null && [ -s "$tmp/np4.csv" ]; then
    root=$(cd "$(dirname "$0")/.." && pwd)
    if bash "$root/plots/mpi_charts.sh" "$tmp/charts" "$tmp/np4.csv" >"$tmp/charts.log" 2>&1; then
        n=$(find "$tmp/charts" -name 'mpi_np4_*' -size +1k | wc -l)
        [ "$n" -eq 20 ] && echo "ok: charts ($n files)" || fail "charts: $n non-empty files, expected 20"
    else
        fail "charts: $(tail -5 "$tmp/charts.log")"
    fi
else
    echo "note: gnuplot not found, charts not checked"
fi

# Nothing left behind in the I/O directory.
left=$(find "$tmp" -name 'haar_mpi.*' | wc -l)
[ "$left" -eq 0 ] || fail "$left file(s) left in the I/O directory: $(find "$tmp" -name 'haar_mpi.*' | head -3)"

[ "$fails" -eq 0 ] && echo "all haar_mpi checks passed" || { echo "$fails check(s) failed"; exit 1; }

#!/usr/bin/env bash
# tests/fuzz/run.sh [SECONDS]: coverage-guided fuzzing of the picture readers (fuzz_image.c) and
# the command-line parser (fuzz_cli.c) with libFuzzer. Builds each target with clang
# (-fsanitize=fuzzer,address,undefined; no nvcc: the CUDA headers only), then runs each for
# SECONDS (default $FUZZ_SECONDS or 40) from the seed corpus in tests/fuzz/corpus/, in a
# temporary work folder (the committed corpus is not changed). Exit 0 if no target found
# anything; 1 on any finding (the input is kept as OUT/TARGET_crash-* and named, OUT being
# $FUZZ_OUT or a new temporary folder, removed when nothing was found; fix the code and add the
# input to the cpu tests as a fixed vector); 77 if clang or libFuzzer is missing.
# Last line: "fuzz: N targets, N runs in N s, N findings".
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds="${1:-${FUZZ_SECONDS:-40}}"
cc="${FUZZ_CC:-$(command -v clang-14 || command -v clang || true)}"
[ -n "$cc" ] || { echo "fuzz: clang not found (apt-get install clang libclang-rt-14-dev); skipped"; exit 77; }
nvcc="$(command -v nvcc || true)"
cuda_inc="${CUDA_INCLUDE:-$([ -n "$nvcc" ] && cd "$(dirname "$nvcc")/../include" 2>/dev/null && pwd || echo /usr/local/cuda/include)}"
[ -f "$cuda_inc/cuda_runtime_api.h" ] || { echo "fuzz: no cuda_runtime_api.h in $cuda_inc (set CUDA_INCLUDE)"; exit 1; }
out="${FUZZ_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/gl_fuzz.XXXXXX")}"
mkdir -p "$out"
png_flags="$(pkg-config --cflags --libs libpng 2>/dev/null || echo -lpng)"

targets=(image cli)
findings=0 runs_total=0 t0=$SECONDS
for t in "${targets[@]}"; do
    exe="$out/fuzz_$t"
    # shellcheck disable=SC2086
    if ! "$cc" -g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra \
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
            -I"$root/common" -I"$cuda_inc" "$here/fuzz_$t.c" $png_flags -o "$exe" 2>"$out/build_$t.log"; then
        if grep -q "libclang_rt.fuzzer\|fsanitize=fuzzer" "$out/build_$t.log"; then
            echo "fuzz: clang cannot link libFuzzer (install libclang-rt-14-dev); skipped"
            cat "$out/build_$t.log"
            exit 77
        fi
        echo "fuzz_$t: build failed:"
        cat "$out/build_$t.log"
        exit 1
    fi
    work="$out/corpus_$t"
    mkdir -p "$work"
    max_len=8192
    [ "$t" = cli ] && max_len=1024
    # -timeout: one input taking 10 s is a hang (a finding); -rss_limit_mb: so is 2 GiB.
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
        TMPDIR="$out" "$exe" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
        -dict="$here/$t.dict" -artifact_prefix="$out/${t}_" -print_final_stats=1 \
        "$work" "$here/corpus/$t" >"$out/run_$t.log" 2>&1
    rc=$?
    runs=$(awk '/stat::number_of_executed_units:/ {print $2}' "$out/run_$t.log" | tail -1)
    runs_total=$((runs_total + ${runs:-0}))
    crashes=$(ls "$out/${t}_"* 2>/dev/null)
    if [ "$rc" -ne 0 ] || [ -n "$crashes" ]; then
        findings=$((findings + 1))
        echo "fuzz_$t: FINDING (exit $rc); input: ${crashes:-none saved}"
        grep -E -A30 "^==[0-9]+==ERROR|runtime error|fuzz_(image|cli): |ERROR: libFuzzer" "$out/run_$t.log" | head -60
    else
        echo "fuzz_$t: ${runs:-?} runs in ${seconds} s, corpus $(ls "$work" | wc -l) + $(ls "$here/corpus/$t" | wc -l) seeds, no finding"
    fi
done
if [ "$findings" -eq 0 ] && [ -z "${FUZZ_OUT:-}" ]; then
    rm -rf "$out"
    out="removed"
fi
echo "fuzz: ${#targets[@]} targets, $runs_total runs in $((SECONDS - t0)) s, $findings findings (logs: $out)"
[ "$findings" -eq 0 ]

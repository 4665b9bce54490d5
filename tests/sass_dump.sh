# sass_dump.sh (sourced by the SASS tests, with $exe set): writes `cuobjdump -sass $exe` to a temporary
# file $sass (removed on exit). cuobjdump from the CUDA toolkit, PATH, or the nvidia-cuda-cuobjdump wheel
# where pip or .ci/run put it; none found: the test is skipped (exit 77); cuobjdump failing: it fails (exit 1).
find_cuobjdump() {
    local d
    for d in "${CUOBJDUMP_DIR:-}" "$(dirname "$(command -v cuobjdump 2>/dev/null || echo /nonexistent/x)")" \
             /usr/local/cuda/bin "$(dirname "$(command -v nvcc 2>/dev/null || echo /nonexistent/x)")" \
             "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)/nvidia/cu13/bin" \
             "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.ci-tools/nvidia/cu13/bin"; do
        [ -n "$d" ] && [ -x "$d/cuobjdump" ] && { echo "$d"; return 0; }
    done
    return 1
}
dump_sass() {  # dump_sass EXE OUT
    local dir
    dir=$(find_cuobjdump) || { echo "cuobjdump not found (CUDA toolkit bin, PATH, or pip nvidia-cuda-cuobjdump): skipped"; exit 77; }
    PATH=$dir:$PATH cuobjdump -sass "$1" >"$2" 2>&1 || { cat "$2"; echo "FAIL: cuobjdump -sass $1"; exit 1; }
}
sass=$(mktemp)
trap 'rm -f "$sass"' EXIT
dump_sass "$exe" "$sass"

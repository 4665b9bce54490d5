#!/usr/bin/env bash
# exercise_compile.sh NVCC SOURCE_ROOT FILE...: compile every "Your turn" file given (the student
# starters and the instructors' solutions, paths relative to SOURCE_ROOT) for every architecture
# of the default cuda-arch list in meson_options.txt, whatever this build was configured with, so
# a starter or a solution that stops compiling on one of them fails the cpu suite.
set -u
nvcc=$1 root=$2
shift 2
archs=$(sed -n "s/^option('cuda-arch'.*value: '\([^']*\)'.*/\1/p" "$root/meson_options.txt")
[ -n "$archs" ] || { echo "FAIL: no default cuda-arch in $root/meson_options.txt"; exit 1; }
gencode=()
for a in ${archs//;/ }; do gencode+=("-gencode=arch=compute_$a,code=sm_$a"); done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
for f in "$@"; do
  lab=$(cut -d/ -f1-2 <<<"$f")          # labs/NN_x
  incs=(-I "$root/common" -I "$root")
  while IFS= read -r d; do incs+=(-I "$d"); done < <(find "$root/$lab" -type d)
  if "$nvcc" -c "${gencode[@]}" "${incs[@]}" -o "$tmp/out.o" "$root/$f" >"$tmp/log" 2>&1; then
    echo "ok: $f (sm ${archs//;/, })"
  else
    echo "FAIL: $f does not compile for sm ${archs//;/, }:"; cat "$tmp/log"; bad=1
  fi
done
exit $bad

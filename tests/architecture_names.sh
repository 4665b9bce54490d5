#!/usr/bin/env bash
# architecture_names.sh ROOT: ARCHITECTURE.md names every common/ header and every lab and part
# folder (labs/NN_x/ and the folders inside them, two levels down), so that the map of the house stays complete: a
# new header or folder fails this test until the page says what it is.
set -u
root=$1 page=$1/ARCHITECTURE.md missing=0
for f in "$root"/common/*.h "$root"/common/*.cuh "$root"/common/*.h.in; do
    [ -e "$f" ] || continue
    b=$(basename "$f")
    grep -qF -- "$b" "$page" || { echo "FAIL: ARCHITECTURE.md does not name common/$b"; missing=1; }
done
for d in "$root"/labs/*/ "$root"/labs/*/*/ "$root"/labs/*/*/*/; do
    b=$(basename "$d")
    grep -qF -- "$b/" "$page" || grep -qF -- "\`$b\`" "$page" ||
        { echo "FAIL: ARCHITECTURE.md does not name the folder ${d#$root/}"; missing=1; }
done
[ $missing -eq 0 ] && echo "ok: every common/ header and lab folder is on the page"
exit $missing

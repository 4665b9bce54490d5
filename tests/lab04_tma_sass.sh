#!/usr/bin/env bash
# lab04_tma_sass.sh EXE: the proof from SASS (EXE: the convolution executable, or 05_wgmma_tma's sm_90a
# object) that each of Lab 04's TMA kernels (tm_conv, sm_90a) keeps a k-tile's wgmma instructions
# together: exactly one WARPGROUP.ARRIVE (the wgmma.fence the kernel writes before each k-tile's MMAs)
# and no dummy HGMMA (RZ operands, !UPT: what ptxas makes of an empty wgmma.commit_group). A branch
# between two wgmma groups makes ptxas insert a second WARPGROUP.ARRIVE (its note C7519): dbb0e36's
# kernels had two each. At least one real HGMMA a kernel. Exit 77 (skipped) when no cuobjdump is found
# or EXE has no sm_90a code. --show prints every kernel's counts.
set -u
exe=$1 show=${2:-}
. "$(dirname "$0")/sass_dump.sh" # $sass: the SASS of $exe
grep -q 'arch = sm_90a' "$sass" || { echo "no sm_90a code in $exe (built without 90 in -Dcuda-arch): skipped"; exit 77; }
# One line a tm_conv kernel of sm_90a: "NAME ARRIVES DUMMIES HGMMAS".
kernels=$(awk '
    /arch = sm_/ { arch = $3 }
    /Function :/ { if (on) print name, a, d, h; on = (arch == "sm_90a" && $3 ~ /^_Z7tm_conv/); name = $3; a = d = h = 0; next }
    on && /WARPGROUP\.ARRIVE/ { a++ }
    on && /HGMMA/ { if ($0 ~ /RZ, !UPT/) d++; else h++ }
    END { if (on) print name, a, d, h }
' "$sass")
n=$(grep -c . <<<"$kernels")
[ "$n" -gt 0 ] || { echo "FAIL: no tm_conv kernel in the sm_90a SASS of $exe"; exit 1; }
[ "$show" = --show ] && echo "$kernels"
bad=$(awk '$2 != 1 || $3 != 0 || $4 < 1' <<<"$kernels")
if [ -n "$bad" ]; then
    echo "FAIL: kernels (name, WARPGROUP.ARRIVE, dummy HGMMA, HGMMA) not one fence a k-tile:"; echo "$bad" | head -20
    exit 1
fi
echo "ok: $n tm_conv kernels (sm_90a): one WARPGROUP.ARRIVE each, no dummy HGMMA, $(awk '{s += $4} END {print s}' <<<"$kernels") HGMMA in all"

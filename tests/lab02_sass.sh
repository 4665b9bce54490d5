#!/usr/bin/env bash
# lab02_sass.sh EXE: the proof from SASS that Lab 02's kernels are what the handout says they are.
# Disassembles EXE with cuobjdump (CUDA toolkit, or the nvidia-cuda-cuobjdump and -nvdisasm
# wheels) and checks every timed kernel in every architecture it was built for:
#   real branches    BSSY ... BSYNC (a reconvergence barrier) and BRA/BRX/CALL: the divergent
#                    kernels and their uniform baselines
#   predicated code  no BSSY/BSYNC/BRX/CALL, and @P / @!P predicated arithmetic: pred_*
# Exit 77 (skipped) only when no cuobjdump can be found. --show prints the lines that decide.
set -u
exe=$1 show=${2:-}
. "$(dirname "$0")/sass_dump.sh" # $sass: the SASS of $exe

# Instructions of one kernel in one architecture, one per line: "ARCH<TAB>OPCODE LINE".
body() {  # body NAME
    awk -v name="$1" '
        /arch = sm_/ { arch = $3 }
        /Function :/ { on = ($3 ~ ("^_Z[0-9]+" name "[0-9]")) ; next }
        on && /^ +\/\*[0-9a-f]+\*\/ +[A-Z@]/ { sub(/^ +\/\*[0-9a-f]+\*\/ +/, ""); sub(/ *;.*$/, ""); print arch "\t" $0 }
    ' "$sass"
}
fail=0
check() {  # check NAME KIND: KIND = branch | predicated
    local name=$1 kind=$2 archs a lines n
    archs=$(body "$name" | cut -f1 | sort -u)
    [ -n "$archs" ] || { echo "FAIL: kernel $name not found in the SASS of $exe"; fail=1; return; }
    for a in $archs; do
        lines=$(body "$name" | awk -F'\t' -v a="$a" '$1 == a { print $2 }')
        n=$(wc -l <<<"$lines")
        local bssy bsync bra call brx pred
        bssy=$(grep -c '^BSSY' <<<"$lines"); bsync=$(grep -c '^BSYNC' <<<"$lines")
        bra=$(grep -cE '^(@!?P[0-9] )?BRA' <<<"$lines"); brx=$(grep -cE '^(@!?P[0-9] )?BRX' <<<"$lines")
        call=$(grep -cE '^(@!?P[0-9] )?CALL' <<<"$lines")
        pred=$(grep -cE '^@!?P[0-6] F(FMA|ADD|MUL)' <<<"$lines")
        if [ "$kind" = branch ]; then
            if [ "$bssy" -gt 0 ] && [ "$bsync" -gt 0 ] && [ $((bra + brx + call)) -gt 0 ]; then
                echo "ok: $name ($a, $n instructions): a real branch: $bssy BSSY, $bsync BSYNC, $bra BRA, $brx BRX, $call CALL"
            else
                echo "FAIL: $name ($a): expected a real branch (BSSY/BSYNC and BRA/BRX/CALL), found $bssy BSSY, $bsync BSYNC, $bra BRA, $brx BRX, $call CALL"; fail=1
            fi
        else
            if [ $((bssy + bsync + brx + call)) -eq 0 ] && [ "$pred" -gt 0 ]; then
                echo "ok: $name ($a, $n instructions): predicated, no branch around the bodies: $pred predicated FP instructions, 0 BSSY/BSYNC/BRX/CALL ($bra BRA: loop and exit)"
            else
                echo "FAIL: $name ($a): expected predicated code, found $bssy BSSY, $bsync BSYNC, $brx BRX, $call CALL, $pred predicated FP instructions"; fail=1
            fi
        fi
        if [ "$show" = --show ]; then
            grep -nE 'BSSY|BSYNC|BRA|BRX|CALL|^@!?P[0-6] F' <<<"$lines" | head -12 | sed 's/^/    /'
        fi
    done
}
for k in warp_no_divergence warp_divergence paths_by_lanes paths_by_warps data_branch branch_uniform branch_divergent; do
    check "$k" branch
done
for k in pred_uniform pred_divergent; do check "$k" predicated; done
exit $fail

#!/usr/bin/env bash
# nvidia_wheel_test.sh HELPER: tools/nvidia_wheel.py on made-up site folders (cpu suite): it prints a
# wheel's folder, refuses a cuDNN wheel built for another CUDA major, and fails without the package.
set -u
helper=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
site() { # folder [distribution name]
    mkdir -p "$tmp/$1/nvidia/cudnn" && touch "$tmp/$1/nvidia/cudnn/__init__.py"
    [ -z "${2:-}" ] || { mkdir -p "$tmp/$1/$2.dist-info" && printf 'Metadata-Version: 2.1\nName: %s\nVersion: 9.0\n' "$2" >"$tmp/$1/$2.dist-info/METADATA"; }
}
check() { # name site expected-rc expected-output args...
    local name=$1 dir=$2 rc=$3 want=$4
    shift 4
    out=$(PYTHONPATH="$tmp/$dir" python3 -S "$helper" "$@") # -S: only the made-up site, not this machine's
    got=$?
    [ "$got" -eq "$rc" ] && [ "$out" = "$want" ] || { echo "FAIL: $name: rc $got, output '$out'"; exit 1; }
    echo "ok: $name"
}
site plain; site cu13 nvidia-cudnn-cu13; site cu12 nvidia-cudnn-cu12; mkdir -p "$tmp/empty"
check 'no distribution metadata' plain 0 "$tmp/plain/nvidia/cudnn" cudnn 13
check 'the wheel for nvcc'\''s major' cu13 0 "$tmp/cu13/nvidia/cudnn" cudnn 13
check 'a wheel for another major' cu12 1 '' cudnn 13
check 'no major asked' cu12 0 "$tmp/cu12/nvidia/cudnn" cudnn
check 'no such package' empty 1 '' nosuchlib

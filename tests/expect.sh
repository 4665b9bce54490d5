#!/usr/bin/env bash
# expect.sh CODE TEXT CMD [ARGS...]: run CMD; pass if it exits with CODE and its output (stdout and
# stderr together) contains TEXT. A command that exits 77 (no GPU) when CODE is not 77 is a skip.
set -u
want=$1 text=$2
shift 2
out=$("$@" 2>&1)
rc=$?
if [ "$rc" -eq 77 ] && [ "$want" -ne 77 ]; then echo "$out"; exit 77; fi
if [ "$rc" -ne "$want" ]; then
  printf 'FAIL: exit code %s, expected %s\n--- output ---\n%s\n' "$rc" "$want" "$out"; exit 1
fi
if ! grep -qF -- "$text" <<<"$out"; then
  printf 'FAIL: output lacks: %s\n--- output ---\n%s\n' "$text" "$out"; exit 1
fi
echo "ok: exit $rc, output contains: $text"

#!/usr/bin/env bash
# pdl_graphs_test.sh: tests/quick/04_pdl_graphs.awk on small CSVs (cpu suite): it passes a
# consistent one and names each kind of wrong one, so the gpu test that runs it can fail.
set -u
awkf="$(dirname "$0")/quick/04_pdl_graphs.awk"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head='# lab=04_convolution
lab,experiment,variant,batch,median_ms'
check() { # name expected-rc expected-text csv-body
    printf '%s\n%s\n' "$head" "$4" >"$tmp/$1.csv"
    out=$(awk -F, -f "$awkf" "$tmp/$1.csv")
    rc=$?
    [ "$rc" -eq "$2" ] && grep -qF "$3" <<<"$out" || { echo "FAIL: $1: rc $rc, output: $out"; exit 1; }
    echo "ok: $1 (rc $rc): $(tail -1 <<<"$out")"
}
check consistent 0 '2 tuned rows, 1 with a pdl_ tile, 0 wrong' '# cnn_tuned variant=cnn/a@T3C tile=pdl_halo_128x64 ms=0.003
04_convolution,cnn,a@T3C,45,0.003
# graph variant=cnn/a@T3C batch=45 programmatic_edges=44
# cnn_tuned variant=cnn/b@T3C tile=halo_128x64 ms=0.004
04_convolution,cnn,b@T3C,40,0.004'
check missing_edges 1 'should have batch - 1 programmatic edges: cnn/a@T3C (batch 45, 0 edges)' '# cnn_tuned variant=cnn/a@T3C tile=pdl_ks8_128x64 ms=0.003
04_convolution,cnn,a@T3C,45,0.003'
check wrong_count 1 '(batch 45, 12 edges)' '# cnn_tuned variant=cnn/a@T3C tile=pdl_ks8_128x64 ms=0.003
04_convolution,cnn,a@T3C,45,0.003
# graph variant=cnn/a@T3C batch=45 programmatic_edges=12'
check edges_without_pdl 1 'a row tuned to a tile without PDL has programmatic edges: cnn/b@T3C' '# cnn_tuned variant=cnn/b@T3C tile=halo_128x64 ms=0.004
04_convolution,cnn,b@T3C,40,0.004
# graph variant=cnn/b@T3C batch=40 programmatic_edges=39'
check no_rows 77 'skip: no tuned row' '04_convolution,ceiling,memcpy_d2d,1,0.1'
check one_launch 0 '1 tuned rows, 1 with a pdl_ tile, 0 wrong' '# cnn_tuned variant=cnn/a@E3_N32 tile=pdl_pp_halo_128x128 ms=0.6
04_convolution,cnn,a@E3_N32,1,0.6'

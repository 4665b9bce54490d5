# csv.awk: read first by every lab's quick checks (tests/lab_quick.sh; awk -F,). The lab's CSV
# header gives col[name] = field number, its "# key=value" lines meta[key]; the checks' own
# rules then see only the data rows.
/^#/ { if (match($0, /^# [a-z_0-9]+=/)) meta[substr($0, 3, RLENGTH - 3)] = substr($0, RLENGTH + 1); next }
!hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }

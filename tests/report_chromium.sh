#!/usr/bin/env bash
# report_chromium.sh ROOT: the instructor's page opened in headless Chromium, as a person would see
# it. The page is rendered from the committed H200 data (plots/report.py, as plots-reference does);
# --dump-dom must show every chart loaded (each <img> sets data-loaded=1 on load, 0 on error), and
# --screenshot must not be blank. Exit 77 when no Chromium is installed (chromium-headless-shell or
# chromium), unless GL_REQUIRE_CHROMIUM=1 (.ci/run sets it): then that is a failure.
set -u
root=$1
browser=$(command -v chromium-headless-shell || command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    [ "${GL_REQUIRE_CHROMIUM:-0}" = 1 ] && { echo "FAIL: no Chromium, and GL_REQUIRE_CHROMIUM=1"; exit 1; }
    echo "Chromium not found (apt-get install chromium-headless-shell): skipped"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/charts" "$tmp/profile"
cp "$root"/plots/charts/h200/*.png "$root"/plots/charts/h200/*.svg "$tmp/charts/"
python3 "$root/plots/report.py" --charts "$tmp/charts" --data "$root/plots/data/h200" --source reference \
    --root "$root" >/dev/null || { echo "FAIL: report.py"; exit 1; }
flags=(--headless --no-sandbox --disable-dev-shm-usage --disable-gpu --user-data-dir="$tmp/profile"
       --virtual-time-budget=5000)
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$tmp/charts/index.html" >"$tmp/dom.html" 2>"$tmp/err.log" ||
    { tail -5 "$tmp/err.log"; echo "FAIL: $browser --dump-dom"; exit 1; }
imgs=$(grep -o '<img ' "$tmp/dom.html" | wc -l)
loaded=$(grep -o 'data-loaded="1"' "$tmp/dom.html" | wc -l)
failed=$(grep -o 'data-loaded="0"' "$tmp/dom.html" | wc -l)
echo "dom: $imgs images, $loaded loaded, $failed failed"
[ "$imgs" -gt 0 ] && [ "$loaded" -eq "$imgs" ] && [ "$failed" -eq 0 ] || { echo "FAIL: not every chart loaded"; exit 1; }
timeout 120 "$browser" "${flags[@]}" --window-size=1200,1600 --screenshot="$tmp/shot.png" \
    "file://$tmp/charts/index.html" >/dev/null 2>>"$tmp/err.log" || { tail -5 "$tmp/err.log"; echo "FAIL: --screenshot"; exit 1; }
python3 - "$tmp/shot.png" "${GL_REPORT_SCREENSHOT:-}" <<'PY' || exit 1
import struct, sys, zlib, shutil
png = open(sys.argv[1], "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", png[16:24])
data, i = b"", 8
while i < len(png):
    n, kind = struct.unpack(">I4s", png[i:i + 8])
    if kind == b"IDAT":
        data += png[i + 8:i + 8 + n]
    i += 12 + n
raw = zlib.decompress(data)
values = len(set(raw[::97]))  # a sample of the bytes: a blank page has a handful of values
print(f"screenshot: {w} x {h}, {values} distinct byte values in a sample")
if values < 20:
    print("FAIL: the screenshot looks blank")
    sys.exit(1)
if sys.argv[2]:
    shutil.copy(sys.argv[1], sys.argv[2])
PY
echo "ok: the page shows every chart in Chromium"

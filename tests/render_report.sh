#!/usr/bin/env bash
# Renders the HTML report of `autotune compare` in a real browser (headless
# Chromium) and checks that the screenshot is not blank: the page parses,
# its inline SVG charts are drawn, nothing needed the network.
#
#   tests/render_report.sh [PROFILE...]      default: profiles/*.ini
#
# The binary is $ATUNE_BINARY, else build/release/autotune. Writes
# report.html and report.png into $REPORT_DIR (default: a new directory
# under /tmp) and prints their paths. $REPORT_HEIGHT sets the window height
# (default 2400). Exit 0 ok, 1 blank or broken rendering, 77 (skip) when
# Chromium is not installed (Debian: apt-get install chromium).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${ATUNE_BINARY:-$src/build/release/autotune}
height=${REPORT_HEIGHT:-2400}

browser=
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
  echo "render_report: skipped: no chromium (apt-get install chromium)"
  exit 77
fi
if [ ! -x "$bin" ]; then
  echo "render_report: no autotune binary at $bin (set ATUNE_BINARY)" >&2
  exit 1
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
out=${REPORT_DIR:-$(mktemp -d /tmp/autotune-report.XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The committed profiles by their short paths, which the report shows.
if [ $# -eq 0 ]; then
  (cd "$src" && "$bin" compare --quiet --html "$out/report.html" \
    profiles/*.ini >"$out/report.txt")
else
  "$bin" compare --quiet --html "$out/report.html" "$@" >"$out/report.txt"
fi

# A profile of its own keeps Chromium from touching $HOME; --no-sandbox
# because CI containers run as root.
rm -f "$out/report.png"
timeout 180 "$browser" --headless --no-sandbox --disable-gpu \
  --hide-scrollbars --no-first-run --user-data-dir="$out/chromium-profile" \
  --window-size=1200,"$height" --screenshot="$out/report.png" \
  "file://$out/report.html" >"$out/chromium.log" 2>&1 || {
  echo "render_report: chromium failed:" >&2
  tail -5 "$out/chromium.log" >&2
  exit 1
}
rm -rf "$out/chromium-profile"

# Decodes the PNG with zlib alone (no PIL) and checks it: enough distinct
# colours, enough non-white pixels, and the tuned bars' exact colour.
python3 - "$out/report.png" <<'PY'
import struct, sys, zlib

def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    channels = {2: 3, 6: 4, 0: 1, 4: 2}.get(ctype)
    if depth != 8 or channels is None or interlace:
        sys.exit("unsupported PNG (depth %d, colour type %d)" % (depth, ctype))
    raw, stride, bpp = zlib.decompress(idat), w * channels, channels
    prev, rows, i = bytearray(stride), [], 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, channels, rows

w, h, ch, rows = decode(sys.argv[1])
colours, ink, tuned = set(), 0, 0
for row in rows:
    for x in range(0, len(row), ch):
        px = tuple(row[x:x + 3]) if ch >= 3 else (row[x],) * 3
        colours.add(px)
        ink += px != (255, 255, 255)
        tuned += px == (0x2b, 0x6c, 0xb0)
print("render_report: %dx%d, %d colours, %.1f%% non-white, %d tuned-bar pixels"
      % (w, h, len(colours), 100.0 * ink / (w * h), tuned))
ok = len(colours) >= 32 and ink >= 0.02 * w * h and tuned >= 500
sys.exit(0 if ok else "render_report: the screenshot looks blank or has no charts")
PY
echo "render_report: $out/report.html"
echo "render_report: $out/report.png"

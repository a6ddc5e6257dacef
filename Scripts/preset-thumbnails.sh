#!/usr/bin/env bash
# The explorer's preset thumbnails (Documentation/Explorer.md, "Using it"): each built-in view
# (`fathom presets`) at 96x54, written as one JSON object, name -> {"view": the FNV-1a hash of
# the view the image shows, "jpeg": a JPEG data URL}, into
# Sources/FathomCLI/Explore/Page/preset-thumbnails.json, which the EmbedPage plugin embeds in
# `fathom`. The view is read from the PNG's `fathom-location` chunk before it becomes a JPEG
# (a deep view's chunk holds 100,000-digit numbers). Run it again when a preset changes:
# PresetThumbnailTests checks each hash against its preset's view.
#
# A preset with a full render in Documentation/images (NAME.png: e1000, e8000, e22522, e52465)
# is that render scaled down by ffmpeg (Lanczos), its location chunk kept (PresetThumbnailTests
# checks that it is the preset's view): e52465's reference orbit alone takes 15 minutes here.
# Every other preset is rendered by `fathom render --preset NAME --size 96x54`.
#
#     Scripts/preset-thumbnails.sh [FATHOM]   (default .build/release/fathom)
set -euo pipefail
cd "$(dirname "$0")/.."
fathom=${1:-.build/release/fathom}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
names=$("$fathom" presets | awk 'NR > 1 { print $1 }')
for name in $names; do
    start=$(date +%s)
    image=Documentation/images/$name.png
    if [ -f "$image" ]; then
        ffmpeg -loglevel error -y -i "$image" -vf scale=96:54:flags=lanczos -pix_fmt rgb24 "$work/scaled.png"
        # The scaled PNG with the original's text chunks after its header.
        python3 - "$image" "$work/scaled.png" "$work/$name.png" <<'PYTHON'
import sys
def chunks(data):
    at, out = 8, []
    while at < len(data):
        n = int.from_bytes(data[at:at + 4], "big")
        out.append((data[at + 4:at + 8], data[at:at + 12 + n]))
        at += 12 + n
    return out
original, scaled = (open(p, "rb").read() for p in sys.argv[1:3])
text = [raw for kind, raw in chunks(original) if kind in (b"tEXt", b"iTXt", b"zTXt")]
parts = chunks(scaled)
body = parts[0][1] + b"".join(text) + b"".join(raw for kind, raw in parts[1:] if kind not in (b"tEXt", b"iTXt", b"zTXt"))
open(sys.argv[3], "wb").write(scaled[:8] + body)
PYTHON
        echo "$name: from $image, $(( $(date +%s) - start )) s" >&2
    else
        "$fathom" render --preset "$name" --size 96x54 --output "$work/$name.png" --quiet
        echo "$name: rendered, $(( $(date +%s) - start )) s" >&2
    fi
done
for name in $names; do
    "$fathom" info --json "$work/$name.png" > "$work/$name.json"
    ffmpeg -loglevel error -y -i "$work/$name.png" -q:v 3 "$work/$name.jpg"
done
python3 - "$work" $names > "$work/thumbnails.json" <<'PYTHON'
import base64, json, sys
folder, names = sys.argv[1], sys.argv[2:]
def fnv(text):
    h = 0xcbf29ce484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h
def part(v):
    return "" if v is None else ",".join(v) if isinstance(v, list) else str(v)
out = {}
for name in names:
    view = json.load(open("%s/%s.json" % (folder, name)))
    # PresetThumbnailTests.viewText builds the same text from the preset.
    text = "|".join(part(view.get(k)) for k in ("family", "center", "radius", "maxIterations", "power", "juliaC", "newton"))
    with open("%s/%s.jpg" % (folder, name), "rb") as f:
        out[name] = {"view": fnv(text), "jpeg": "data:image/jpeg;base64," + base64.b64encode(f.read()).decode()}
print(json.dumps(out, indent=0, sort_keys=True))
PYTHON
mv "$work/thumbnails.json" Sources/FathomCLI/Explore/Page/preset-thumbnails.json
echo "wrote Sources/FathomCLI/Explore/Page/preset-thumbnails.json ($(echo $names | wc -w) presets)" >&2

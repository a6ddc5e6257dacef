#!/usr/bin/env bash
# Opens the built documentation site (Scripts/docs.sh) in headless Chromium, as a reader would:
# the site is served over HTTP on a free local port, Chromium renders Fathom's main page
# (DocC's pages are drawn by JavaScript from JSON, so the DOM after rendering is what counts),
# and the check fails unless the page shows its title and its articles, and every link on it
# into the documentation resolves: the page's own HTML and the JSON DocC draws it from.
set -euo pipefail
cd "$(dirname "$0")/.."
site=.build/docs/site
[ -f "$site/index.html" ] || { echo "docs-check: no site in $site: run Scripts/docs.sh"; exit 1; }
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "docs-check: no chromium (apt-get install chromium)"; exit 1; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 -d "$site" >/dev/null 2>&1 &
server=$!
work=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break; sleep 0.1; done
"$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" --virtual-time-budget=15000 \
    --dump-dom "http://127.0.0.1:$port/documentation/fathom" >"$work/dom.html" 2>"$work/chromium.log" || {
    cat "$work/chromium.log"; echo "docs-check: chromium failed"; exit 1; }
python3 - "$work/dom.html" "$port" <<'PY'
import re, sys, urllib.request
dom = open(sys.argv[1]).read()
base = "http://127.0.0.1:" + sys.argv[2]
failures = []
for text in ["Fathom", "Getting started", "Locations and precision", "Perturbation and verification",
             "Colouring", "Sequences", "LocationFile", "Verifier"]:
    if text not in dom:
        failures.append("the rendered page does not show " + repr(text))
links = sorted(set(h.split("#")[0] for h in re.findall(r'href="(/documentation/[^"]*)"', dom)))
if len(links) < 20:
    failures.append(f"the rendered page has {len(links)} links into the documentation (expected its topics)")
for link in links:
    path = link.rstrip("/")
    for url in (base + path + "/index.html", base + "/data" + path.lower() + ".json"):
        try:
            urllib.request.urlopen(url).read()
        except Exception as error:
            failures.append(f"{link}: {url} does not resolve ({error})")
if failures:
    print("docs-check: " + "\ndocs-check: ".join(failures))
    sys.exit(1)
print(f"docs-check: the main page renders in Chromium; its {len(links)} documentation links resolve")
PY

#!/usr/bin/env python3
"""Issue 46's check "e1000 at 1280x720 fully refined within its CLI render time plus 20%":
a location asked for from `fathom explore` as the page asks for it (the 1/8 preview naming the
full size, the middle fifth at full resolution, then the full image) against `fathom render
--location FILE --size WxH`, whole process, alternating runs; the settled PNG must be the CLI's.

    Scripts/explore-timing.py [--runs N] [--size WxH] [--no-middle] [--backend B] [--preset NAME | LOCATION.json]
    (default: the e1000 preset; --no-middle: without the middle step, as the page asked before it;
    --backend: both with that backend, e.g. cuda on a GPU machine)

Plain Python 3 (Tests/Browser/explore_server.py, no browser); FATHOM names the binary (default
.build/release/fathom)."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "Browser"))
os.environ.setdefault("FATHOM", ".build/release/fathom")
import explore_server as t  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("location", nargs="?")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--preset", default="e1000", help="the preset to time when no location file is given")
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--no-middle", action="store_true", help="ask as the page did before the middle step")
    parser.add_argument("--backend", help="the backend of both (fathom explore --backend, fathom render --backend)")
    options = parser.parse_args()
    width, height = map(int, options.size.split("x"))
    folder = tempfile.mkdtemp(prefix="fathom-explore-timing-")
    if options.location:
        with open(options.location) as f:
            location = json.load(f)
    else:
        server = t.Server(os.path.join(folder, "state-presets"))  # the presets' list alone
        try:
            _, _, body = server.request("GET", "/api/presets", headers={"X-Fathom-Token": server.token})
        finally:
            server.stop()
        location = next(p["location"] for p in json.loads(body) if p["name"] == options.preset)
    for key in ("width", "height", "supersample"):
        location.pop(key, None)
    # The middle as the page asks for it: a fifth of each side, centered (with the full size's
    # parity), rendered as the full image renders it (`window=`).
    mw, mh = width // 5 + (width // 5 + width) % 2, height // 5 + (height // 5 + height) % 2
    window = "%d,%d,%d,%d" % ((width - mw) // 2, (height - mh) // 2, mw, mh)
    print("| run | CLI | preview | middle | settled (full render alone) | settled / CLI | same PNG |")
    print("|---|---|---|---|---|---|---|")
    for run in range(1, options.runs + 1):
        start = time.time()
        backend = ["--backend", options.backend] if options.backend else []
        cli_png, _ = t.cli_render(location, width, height, folder, "cli", backend)
        cli = time.time() - start
        server = t.Server(os.path.join(folder, "state-%d" % run), backend)
        try:
            start = time.time()
            status, _, _ = server.render(location, width // 8, height // 8, client="c", view=1, full=(width, height))
            preview = time.time() - start
            assert status == 200, status
            middle_time = float("nan")
            if not options.no_middle:
                status, _, _ = server.request(
                    "POST", "/api/render?width=%d&height=%d&window=%s&client=c&view=1" % (width, height, window),
                    json.dumps(location), {"X-Fathom-Token": server.token, "Content-Type": "application/json"})
                assert status == 200, status
                middle_time = time.time() - start
            status, headers, png = server.render(location, width, height, client="c", view=1)
            settled = time.time() - start
            full_seconds = float(headers.get("X-Fathom-Seconds", "nan"))
            assert status == 200, status
        finally:
            server.stop()
        print("| %d | %.2f s | %.2f s | %.2f s | %.2f s (%.2f s) | %.2f | %s |" % (
            run, cli, preview, middle_time, settled, full_seconds, settled / cli, png == cli_png))


if __name__ == "__main__":
    main()

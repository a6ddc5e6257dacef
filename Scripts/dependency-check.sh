#!/usr/bin/env bash
# Every target names, as its own dependencies, every target it can reach through them.
# SwiftPM recompiles a module when a module it lists has changed, not when one it reaches only
# through another has: the client keeps the old struct layouts compiled in, and the binary
# corrupts memory (Documentation/Reliability.md, "Stale objects"). Exit 1 on a missing edge.
set -euo pipefail
cd "$(dirname "$0")/.."
"${SWIFT:-swift}" package dump-package | python3 -c '
import json, sys
targets = {t["name"]: t for t in json.load(sys.stdin)["targets"]}
def direct(t):
    return {next(iter(d.values()))[0] for d in t.get("dependencies", [])}
def reach(name, seen):
    for d in direct(targets[name]):
        if d in targets and d not in seen:
            seen.add(d)
            reach(d, seen)
    return seen
bad = 0
for name, t in targets.items():
    if t["type"] == "plugin":
        continue
    missing = sorted(reach(name, set()) - direct(t))
    if missing:
        bad += 1
        print(f"dependency-check: {name} reaches {missing} only through other targets: list them")
n = sum(1 for t in targets.values() if t["type"] != "plugin")
print(f"dependency-check: {n} targets, {bad} with a missing edge")
sys.exit(1 if bad else 0)
'

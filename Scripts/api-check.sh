#!/usr/bin/env bash
# The public API of Fathom's library modules against its committed baseline, API/<Module>.json:
# the toolchain's swift-api-digester dumps each module of the release build (`swift build -c
# release` first) and compares the dump with the baseline. Removed, renamed or retyped
# declarations, changed generic signatures, conformances or attributes fail the check; added
# declarations pass. `Scripts/api-check.sh baseline` rewrites the baseline from the build: the
# deliberate step a breaking change takes (recorded in CHANGELOG.md under a new version), and
# the step that keeps new declarations from then on.
# Source locations are blanked in both (they name the checkout's path). Linux only: the
# baseline is Linux's (its imports, Glibc); elsewhere the check says so and passes.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-check}
if [ "$(uname -s)" != Linux ]; then
    echo "api-check: the committed baseline is Linux's; skipped on $(uname -s)"
    exit 0
fi
source Scripts/library-modules.sh api-check
digester=$tools/swift-api-digester
[ -x "$digester" ] || { echo "api-check: no swift-api-digester beside $swift"; exit 1; }
flags=("${module_flags[@]}" -abort-on-module-fail)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
for m in $modules; do
    "$digester" -dump-sdk -module "$m" "${flags[@]}" -o "$work/$m.raw.json"
    # The dump also holds what inlinable code may reach (`@usableFromInline` and `package`
    # declarations, marked isInternal): not public API, so dropped; a public declaration made
    # `package` then reads as removed.
    python3 -c '
import json, sys
def public(node):
    node["children"] = [public(c) for c in node.get("children", []) if not c.get("isInternal")]
    if not node["children"]:
        del node["children"]
    return node
dump = json.load(open(sys.argv[1]))
public(dump["ABIRoot"])
dump["ABIRoot"].pop("tool_arguments", None)  # the command line (temporary paths): not API
json.dump(dump, sys.stdout, indent=2)
' "$work/$m.raw.json" | sed -E 's#"location": "[^"]*"#"location": ""#' >"$work/$m.json"
    if [ "$mode" = baseline ]; then
        mkdir -p API
        cp "$work/$m.json" "API/$m.json"
        continue
    fi
    [ -f "API/$m.json" ] || { echo "api-check: API/$m.json is missing (Scripts/api-check.sh baseline writes it)"; failed=1; continue; }
    "$digester" -diagnose-sdk -input-paths "API/$m.json" -input-paths "$work/$m.json" >"$work/$m.txt" 2>&1
    # The report's section headers are comments; any other line is a breaking change.
    if grep -v -E '^[[:space:]]*$|^/\*.*\*/$' "$work/$m.txt" >"$work/$m.breaks"; then
        echo "api-check: $m's public API breaks its baseline (API/$m.json):"
        sed 's/^/  /' "$work/$m.breaks"
        failed=1
    fi
done
if [ "$mode" = baseline ]; then
    echo "api-check: baseline written to API/ ($modules)"
elif [ $failed = 0 ]; then
    echo "api-check: the public API of $modules keeps its baseline"
fi
exit $failed

#!/usr/bin/env bash
# The DocC documentation of Fathom's library modules as one static site, with the toolchain's
# own tools and nothing else: swift-symbolgraph-extract reads the public symbols of each module
# of the release build (`swift build -c release` first), `docc convert` builds each module's
# archive from its catalog (Sources/<Module>/<Module>.docc) and symbol graph, and `docc merge`
# combines them into .build/docs/site, a folder any static web server can serve.
# Fails on any DocC warning and on any public symbol without a doc comment (DocC's coverage
# report: a symbol without an abstract). `make docs` runs it; Scripts/docs-check.sh then opens
# the site in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

source Scripts/library-modules.sh docs
for tool in docc swift-symbolgraph-extract; do
    [ -x "$tools/$tool" ] || { echo "docs: no $tool beside $swift"; exit 1; }
done
out=.build/docs
rm -rf "$out"
mkdir -p "$out/graphs" "$out/archives"

failed=0
for m in $modules; do
    mkdir -p "$out/graphs/$m"
    "$tools/swift-symbolgraph-extract" -module-name "$m" "${module_flags[@]}" -minimum-access-level public \
        -skip-synthesized-members -output-dir "$out/graphs/$m"
    "$tools/docc" convert "Sources/$m/$m.docc" --additional-symbol-graph-dir "$out/graphs/$m" \
        --fallback-display-name "$m" --fallback-bundle-identifier "org.fathom.$m" \
        --output-path "$out/archives/$m.doccarchive" --transform-for-static-hosting \
        --experimental-documentation-coverage --coverage-summary-level brief \
        >"$out/$m.log" 2>&1 || { cat "$out/$m.log"; echo "docs: docc convert failed for $m"; failed=1; continue; }
    if grep -E "^(warning|error):|: (warning|error):" "$out/$m.log" >"$out/$m.warnings"; then
        echo "docs: DocC warnings in $m:"
        sed 's/^/  /' "$out/$m.warnings"
        failed=1
    fi
    # Every public symbol has a doc comment: DocC's coverage lists the symbols without an
    # abstract. Members the compiler writes (a raw-value enum's init(rawValue:), a Codable
    # type's init(from:)) have no source location in the symbol graph and no comment to give.
    python3 - "$out/archives/$m.doccarchive/documentation-coverage.json" "$out/graphs/$m" <<'PY' >"$out/$m.undocumented"
import glob, json, re, sys
synthesized = set()
for path in glob.glob(sys.argv[2] + "/*.symbols.json"):
    graph = json.load(open(path))
    module = graph["module"]["name"]
    for symbol in graph["symbols"]:
        if "location" not in symbol:
            synthesized.add("/".join([module] + symbol["pathComponents"]))
for e in json.load(open(sys.argv[1])):
    if e["kind"].get("isSymbol") and not e.get("hasAbstract"):
        path = e["referencePath"].split("/documentation/", 1)[1]
        plain = "/".join(re.sub(r"-(swift\.[a-z.]+|[0-9a-z]{3,6})$", "", part) for part in path.split("/"))
        if plain not in synthesized:
            print(path)
PY
    if [ -s "$out/$m.undocumented" ]; then
        echo "docs: public symbols of $m without a doc comment:"
        sed 's/^/  /' "$out/$m.undocumented"
        failed=1
    else
        echo "docs: $m: every public symbol documented"
    fi
done
[ $failed = 0 ] || exit 1

archives=()
for m in $modules; do archives+=("$out/archives/$m.doccarchive"); done
"$tools/docc" merge "${archives[@]}" --synthesized-landing-page-name Fathom \
    --synthesized-landing-page-kind Package --output-path "$out/site" >"$out/merge.log" 2>&1 \
    || { cat "$out/merge.log"; echo "docs: docc merge failed"; exit 1; }
echo "docs: the site is in $out/site (serve it: python3 -m http.server -d $out/site, then open /documentation/fathom)"

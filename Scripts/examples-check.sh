#!/usr/bin/env bash
# An outside package that depends on Fathom by version: the working tree (tracked and untracked
# files, as git would add them) committed into a bare repository of its own and tagged with
# FathomInfo.version; Examples/ copied beside it, README.md's library example added to it as
# `readme-example`, and built with `.package(url: "file://...", from: VERSION)` (Examples/
# Package.swift), which SwiftPM refuses for a package with unsafe flags. Then each tool is run
# on files of the repository, checking what it promises: readme-example writes its view.png;
# each DocC article's code (its blocks in order, as one program) builds and runs without error;
# render-location writes the PNG, and on Ctrl-C (SIGINT) cancels and writes nothing (exit 130);
# recolor colours the field of a `fathom render --npy` again to the same size; verify-view
# finds the rendered pixels equal to direct MPFR. `make test` runs it after the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
fixtures=$PWD/Tests/FathomTests/Fixtures
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "examples-check: $*"; exit 1; }

# The working tree as a commit (a temporary index, so the real one is untouched), tagged.
version=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/Fathom/FathomInfo.swift)
[ -n "$version" ] || fail "no version in Sources/Fathom/FathomInfo.swift"
index=$work/index
cp "$(git rev-parse --git-path index)" "$index"
GIT_INDEX_FILE=$index git add -A
tree=$(GIT_INDEX_FILE=$index git write-tree)
commit=$(GIT_AUTHOR_NAME=examples-check GIT_AUTHOR_EMAIL=check@localhost GIT_COMMITTER_NAME=examples-check \
    GIT_COMMITTER_EMAIL=check@localhost git commit-tree "$tree" -p HEAD -m "examples-check: the working tree")
git init -q --bare "$work/fathom.git"
git push -q "$work/fathom.git" "$commit:refs/heads/main"
git -C "$work/fathom.git" tag "$version" "$commit"

# The client: Examples/ and README.md's library example, depending on that tag.
mkdir -p "$work/client/Sources/readme-example"
cp -R Examples/Package.swift Examples/Sources Examples/StandIns "$work/client/"
awk '/^## Library example/ { on = 1 } on && /^```swift/ { code = 1; next } code && /^```/ { exit } code' README.md \
    > "$work/client/Sources/readme-example/main.swift"
grep -q "import Fathom" "$work/client/Sources/readme-example/main.swift" || fail "no library example in README.md"
# Each DocC article's code, its blocks in order as one program (a package manifest left out).
snippets=()
for article in Sources/*/*.docc/*.md; do
    name=snippet-$(basename "$article" .md | tr 'A-Z' 'a-z')
    code=$(awk '/^```swift/ { c = 1; block = ""; next } c && /^```/ { c = 0; if (block !~ /PackageDescription/) printf "%s", block; next } c { block = block $0 "\n" }' "$article")
    [ -n "$code" ] || continue
    mkdir -p "$work/client/Sources/$name"
    printf '%s\n' "$code" > "$work/client/Sources/$name/main.swift"
    snippets+=("$name")
done
[ ${#snippets[@]} -ge 6 ] || fail "found the code of only ${#snippets[@]} DocC articles"
(cd "$work/client" && FATHOM_URL="file://$work/fathom.git" FATHOM_VERSION="$version" "$swift" build -c release -q)
bin=$work/client/.build/release

# Each article's program runs in a folder of its own, with the e1000 location file it reads.
.build/release/fathom render --preset e1000 --size 16x9 --output "$work/e1000.png" >/dev/null
.build/release/fathom info --json "$work/e1000.png" > "$work/e1000.json"
for name in "${snippets[@]}"; do
    mkdir -p "$work/run-$name"
    cp "$work/e1000.json" "$work/run-$name/"
    (cd "$work/run-$name" && "$bin/$name" > output.txt 2>&1) || fail "$name failed: $(tail -3 "$work/run-$name/output.txt")"
done

# README's example, as written: view.png, 1280 x 720.
(cd "$work" && "$bin/readme-example")
python3 - "$work/view.png" <<'PY' || fail "README's example did not write a 1280x720 PNG"
import struct, sys
data = open(sys.argv[1], "rb").read(24)
assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24]) == (1280, 720)
PY

"$bin/render-location" "$fixtures/pub_b_e14.json" "$work/e14.png" 320x180 2>"$work/progress.txt"
[ -s "$work/e14.png" ] || fail "render-location wrote no PNG"
grep -q "100%" "$work/progress.txt" || fail "render-location reported no progress"

# Ctrl-C a render that takes several seconds: exit 130, no file.
"$bin/render-location" "$fixtures/pub_e_e318.json" "$work/e318.png" 1280x720 2>"$work/cancel.txt" &
pid=$!
sleep 2
kill -INT $pid
status=0
wait $pid || status=$?
[ $status = 130 ] || fail "render-location exited $status on SIGINT, not 130: $(tail -1 "$work/cancel.txt")"
[ ! -e "$work/e318.png" ] || fail "a cancelled render-location left $work/e318.png"
ls "$work" | grep -q "\.tmp\|fathom-" && fail "a cancelled render left a staged file: $(ls "$work")"

.build/release/fathom render --location "$fixtures/pub_b_e14.json" --size 160x90 --npy "$work/e14.npy" \
    --output "$work/fathom.png" >/dev/null
"$bin/recolor" "$work/e14.npy" "$work/gray.png" gray | grep -q "160x90, gray" || fail "recolor"
[ -s "$work/gray.png" ] || fail "recolor wrote no PNG"

"$bin/alongside-numerics" | grep -q "point-symmetric" || fail "alongside-numerics"

"$bin/verify-view" "$fixtures/pub_c_e55.json" 3 | tail -1 | grep -q "9 of 9 pixels checked: all match" \
    || fail "verify-view did not find 9 of 9 pixels equal to MPFR"
echo "examples-check: Fathom $version by tag from a bare clone; readme-example, ${#snippets[@]} DocC articles' code, render-location (with Ctrl-C), recolor, alongside-numerics and verify-view behave"

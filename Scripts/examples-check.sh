#!/usr/bin/env bash
# Builds the example package (Examples/, which depends on Fathom by path) and runs its three
# tools on files of the repository, checking what each promises: render-location writes the
# PNG, and on Ctrl-C (SIGINT) cancels and writes nothing (exit 130); recolor colours the field
# of a `fathom render --npy` again to the same size; verify-view finds the rendered pixels
# equal to direct MPFR. `make test` runs it after the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
(cd Examples && "$swift" build -c release)
bin=Examples/.build/release
fixtures=Tests/FathomTests/Fixtures
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "examples-check: $*"; exit 1; }

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

"$bin/verify-view" "$fixtures/pub_c_e55.json" 3 | tail -1 | grep -q "9 of 9 pixels checked: all match" \
    || fail "verify-view did not find 9 of 9 pixels equal to MPFR"
echo "examples-check: render-location (with Ctrl-C), recolor and verify-view behave"

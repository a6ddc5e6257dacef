#!/usr/bin/env bash
# The md5 of the PNG and the .npy of a fixed set of renders: run before and after a change
# that must not change output (issue 14's check), and compare the two lists.
# Usage: Scripts/output-digests.sh [FATHOM]   (default .build/release/fathom)
set -euo pipefail
F=${1:-.build/release/fathom}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
run() {
    local name=$1; shift
    "$F" render "$@" --output "$W/$name.png" --npy "$W/$name.npy" --quiet
    echo "$name png $(md5sum < "$W/$name.png" | cut -c1-32) npy $(md5sum < "$W/$name.npy" | cut -c1-32)"
}
run flake-800 --preset flake --size 800x800
run e318-640 --preset e318 --size 640x360
run e1000-640 --preset e1000 --size 640x360
run julia --preset julia --size 640x360
run multibrot4 --preset multibrot --power 4 --size 640x360
run newton --preset newton --size 640x360
run glitch1-detect --preset glitch_test_1 --size 320x180 --glitches detect
run e1000-emulated --preset e1000 --size 640x360 --backend emulated
run e50-rotated --preset e50 --rotation 30 --size 320x180

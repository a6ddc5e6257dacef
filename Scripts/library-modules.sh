# Sourced by Scripts/api-check.sh and Scripts/docs.sh: what both read of the release build.
# Sets `modules` (the library modules), `tools` (the toolchain's bin folder, beside `swift`),
# `build` and `module_flags` (the search paths and C module maps that load a module of the
# build in swift-api-digester or swift-symbolgraph-extract). $1 names the caller in messages.
modules="ArbitraryPrecision FractalNumerics FractalEngine FractalImaging FathomGPU Fathom"
swift=$(command -v "${SWIFT:-swift}")
tools=$(dirname "$(readlink -f "$swift")")
build=.build/release
[ -d "$build/Modules" ] || { echo "$1: no release build in $build: run swift build -c release"; exit 1; }
module_flags=(-I "$build/Modules" -I Sources/CMPFR -target "$(uname -m)-unknown-linux-gnu")
for c in CPNG CEXR CFathomGPU; do module_flags+=(-Xcc "-fmodule-map-file=$build/$c.build/module.modulemap"); done

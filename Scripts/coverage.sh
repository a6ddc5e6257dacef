#!/usr/bin/env bash
# Line coverage of the test suite per module: `swift test --enable-code-coverage` in a build
# folder of its own (.build/coverage, release mode as `make test`), then the toolchain's
# llvm-cov over the test bundle and the `fathom` executable, summed per module folder of
# Sources/. Prints a table; the numbers are recorded in Documentation/Testing.md.
# COVERAGE_REPORT_ONLY=1 reports the last run's profiles without running the suite again.
# A GPU machine's run adds its own (Documentation/Testing.md, "On a GPU machine"):
# COVERAGE_EXTRA_PROFILES (llvm-profdata files or raw profiles) and COVERAGE_EXTRA_OBJECTS (the
# instrumented binaries that wrote them), each a space-separated list.
set -euo pipefail
cd "$(dirname "$0")/.."
swift=$(command -v "${SWIFT:-swift}")
bin=$(dirname "$(readlink -f "$swift")")
scratch=.build/coverage
if [ -z "${COVERAGE_REPORT_ONLY:-}" ]; then
    find "$scratch" -path "*/codecov/*.profraw" -delete 2>/dev/null || true
    "$swift" test -c release --enable-code-coverage --scratch-path "$scratch" >"$scratch.log" 2>&1 \
        || { tail -20 "$scratch.log"; echo "coverage: the tests failed (log: $scratch.log)"; exit 1; }
fi
# Every process's raw profile (the test runner's and each `fathom` the CLI tests ran), merged
# here: the runner's own merge is not always there.
profile=$scratch/merged.profdata
find "$scratch" -path "*/codecov/*.profraw" >"$scratch/profiles.txt"
[ -s "$scratch/profiles.txt" ] || { echo "coverage: no raw profiles under $scratch"; exit 1; }
"$bin/llvm-profdata" merge -o "$profile" --input-files="$scratch/profiles.txt"
binary=$(ls -d "$scratch"/release/*PackageTests.xctest 2>/dev/null | head -1 || true)
[ -n "$binary" ] || { echo "coverage: no test bundle under $scratch"; exit 1; }
# Each line's hit count (lcov's DA records), the test suite's: the test bundle and the CLI's own
# lines (the CLI tests run the instrumented `fathom` of this build).
ignore='(\.build|Tests|Benchmarks)/'
"$bin/llvm-cov" export -format=lcov "$binary" -object "$scratch/release/fathom" -instr-profile="$profile" \
    -ignore-filename-regex="$ignore" >"$scratch/suite.lcov"
lcovs=("$scratch/suite.lcov")
# Another build's run (a GPU machine's): its own binaries against its own profiles, since a
# build's coverage map belongs to that build; a line counts as covered where either run hit it.
if [ -n "${COVERAGE_EXTRA_PROFILES:-}" ]; then
    "$bin/llvm-profdata" merge -o "$scratch/extra.profdata" $COVERAGE_EXTRA_PROFILES
    extra=()
    for o in ${COVERAGE_EXTRA_OBJECTS:-}; do extra+=(-object "$o"); done
    [ ${#extra[@]} -gt 0 ] || { echo "coverage: COVERAGE_EXTRA_PROFILES needs COVERAGE_EXTRA_OBJECTS (the binaries that wrote them)"; exit 1; }
    "$bin/llvm-cov" export -format=lcov "${extra[@]:1}" -instr-profile="$scratch/extra.profdata" \
        -ignore-filename-regex="$ignore" >"$scratch/extra.lcov"
    lcovs+=("$scratch/extra.lcov")
fi
# Per module (the first folder under Sources/): lines with code, lines no run hit.
python3 - "${lcovs[@]}" <<'PY'
import sys
hit = {}
for path in sys.argv[1:]:
    source = None
    for line in open(path):
        if line.startswith("SF:"):
            source = line[3:].strip()
            source = source[source.index("/Sources/") + 9:] if "/Sources/" in source else None
        elif line.startswith("DA:") and source:
            number, count = line[3:].split(",")[:2]
            key = (source, int(number))
            hit[key] = hit.get(key, False) or int(count) > 0
modules = {}
for (source, _), covered in hit.items():
    m = modules.setdefault(source.split("/")[0], [0, 0])
    m[0] += 1
    m[1] += 0 if covered else 1
rows = sorted(modules.items()) + [("(all)", [sum(v[0] for v in modules.values()), sum(v[1] for v in modules.values())])]
print(f"{'module':<22} {'lines':>8} {'missed':>8} {'cover':>7}")
for name, (lines, missed) in rows:
    print(f"{name:<22} {lines:8d} {missed:8d} {100 * (lines - missed) / lines:6.1f}%")
PY

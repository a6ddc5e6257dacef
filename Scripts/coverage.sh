#!/usr/bin/env bash
# Line coverage of the test suite per module: `swift test --enable-code-coverage` in a build
# folder of its own (.build/coverage, release mode as `make test`), then the toolchain's
# llvm-cov over the test bundle and the `fathom` executable, summed per module folder of
# Sources/. Prints a table; the numbers are recorded in Documentation/Testing.md.
# COVERAGE_PROFILE=FILE reports a profile merged by hand (llvm-profdata merge) instead.
set -euo pipefail
cd "$(dirname "$0")/.."
swift=$(command -v "${SWIFT:-swift}")
bin=$(dirname "$(readlink -f "$swift")")
scratch=.build/coverage
"$swift" test -c release --enable-code-coverage --scratch-path "$scratch" >"$scratch.log" 2>&1 \
    || { tail -20 "$scratch.log"; echo "coverage: the tests failed (log: $scratch.log)"; exit 1; }
# The runner merges the profiles only when every test passes.
profile=${COVERAGE_PROFILE:-$(find "$scratch" -name default.profdata | head -1)}
binary=$(find "$scratch/release" -maxdepth 1 -name "*PackageTests.xctest" | head -1)
[ -n "$profile" ] && [ -n "$binary" ] || { echo "coverage: no profile or test bundle under $scratch"; exit 1; }
# llvm-cov names the files relative to Sources/ (their common folder): the first part is the module.
# The CLI's own lines too: the CLI tests run the instrumented `fathom` of this build.
"$bin/llvm-cov" report "$binary" -object "$scratch/release/fathom" -instr-profile="$profile" -ignore-filename-regex='(\.build|Tests|Benchmarks)/' \
    | awk '
        $1 ~ /\// && $1 !~ /^-/ {
            split($1, parts, "/"); m = parts[1]
            lines[m] += $8; missed[m] += $9; total += $8; totalMissed += $9
        }
        END {
            for (m in lines) printf "%-22s %8d %8d %6.1f%%\n", m, lines[m], missed[m], 100 * (lines[m] - missed[m]) / lines[m]
            printf "%-22s %8d %8d %6.1f%%\n", "(all)", total, totalMissed, 100 * (total - totalMissed) / total
        }' | sort | { printf "%-22s %8s %8s %7s\n" module lines missed cover; cat; }

#!/usr/bin/env bash
# Runs the libFuzzer targets of Fuzz/ (built by `make fuzz`), each for SECONDS, on a copy of
# its seed corpus in .build/fuzz-runs/TARGET (the repository's Fuzz/corpus is never written).
# Exits 1 if any target crashed, hung (-timeout), ran out of memory (-rss_limit_mb) or found
# a leak; prints one line a target and writes them to .build/fuzz-runs/summary.txt.
# Usage: Scripts/fuzz.sh SECONDS [TARGET...]   (targets: location kfr png gradient orbit)
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: Scripts/fuzz.sh SECONDS [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(location kfr png gradient orbit)
bin=.build/fuzz/release
runs=.build/fuzz-runs
mkdir -p "$runs"
: > "$runs/summary.txt"
failed=0
for t in "${targets[@]}"; do
    case $t in
        location) exe=FuzzLocation ;; kfr) exe=FuzzKFR ;; png) exe=FuzzPNG ;;
        gradient) exe=FuzzGradient ;; orbit) exe=FuzzOrbit ;;
        *) echo "unknown fuzz target '$t' (known: location kfr png gradient orbit)"; exit 64 ;;
    esac
    [ -x "$bin/$exe" ] || { echo "$bin/$exe is missing: run 'make fuzz'"; exit 66; }
    work=$runs/$t
    rm -rf "$work"
    mkdir -p "$work/corpus" "$work/artifacts"
    cp Fuzz/corpus/"$t"/* "$work/corpus/"
    dict=()
    [ -f "Fuzz/dictionaries/$t.dict" ] && dict=(-dict="Fuzz/dictionaries/$t.dict")
    start=$(date +%s)
    "$bin/$exe" "$work/corpus" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=16384 -artifact_prefix="$work/artifacts/" -print_final_stats=1 > "$work/log" 2>&1
    rc=$?
    ran=$(( $(date +%s) - start ))
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log" | grep -o '[0-9]*$' || echo "?")
    found=$(ls "$work/artifacts" | wc -l)
    line="$t: $ran s, ${execs:-?} executions, corpus $(ls "$work/corpus" | wc -l) files, exit $rc, $found artifacts"
    if [ $rc -ne 0 ] || [ "$found" -ne 0 ]; then
        failed=1
        line="$line: FAILED (see $work/log and $work/artifacts)"
    fi
    echo "$line" | tee -a "$runs/summary.txt"
done
exit $failed

#!/usr/bin/env bash
# FathomGPU's driver paths run on a Linux machine with an NVIDIA GPU, by the instrumented
# portable binaries (`make portable-coverage`), for `make coverage` (Documentation/Testing.md,
# "On a GPU machine"). DIR holds fathom and fathom-bench from dist/coverage (or .xz of them),
# oracle/*.json (../shared/oracle) and locations/e1000.json (../shared/locations). Writes
# OUT/profiles.tar: one raw profile a process.
# Usage: Scripts/gpu-coverage.sh DIR OUT. Exit status: 1 when any run failed.
set -u
[ $# -eq 2 ] || { echo "usage: $0 DIR OUT" >&2; exit 2; }
OUT=$(mkdir -p "$2" && cd "$2" && pwd) || exit 2
cd "$1" || exit 2
for b in fathom fathom-bench; do
    if [ -f $b.xz ] && [ ! -x $b ]; then xz -dc $b.xz > $b && chmod +x $b; fi
done
profiles=$(mktemp -d) || exit 2
step=$(mktemp) || exit 2
export LLVM_PROFILE_FILE=$profiles/cov-%p.profraw FATHOM_CUDA_CACHE=/tmp/fathom-cuda-cache
failures=0
# One raw profile a process (%p): online merging (%m) left a corrupted profile here once.
run() {
    echo "== $*"
    local s=$SECONDS
    "$@" >"$step" 2>&1
    local rc=$?
    tail -4 "$step"
    echo "rc=$rc ($((SECONDS - s)) s)"
    [ $rc -eq 0 ] || failures=$((failures + 1))
}
e1000=(--location locations/e1000.json --size 640x360 --backend cuda)
run ./fathom verify --backend cuda oracle/*.json
run ./fathom verify --backend cuda --gpu-exact on --orbit streamed oracle/*.json
run ./fathom verify --backend cuda --approximation bla --glitches detect --estimate product oracle/*.json
run ./fathom render "${e1000[@]}" --output /tmp/a.png --verbose
run ./fathom render "${e1000[@]}" --gpu-exact on --output /tmp/b.png --npy /tmp/b.npy
run ./fathom render "${e1000[@]}" --approximation both --orbit decoded --output /tmp/d.png
run ./fathom sequence --zoom-out 4 --location locations/e1000.json --size 160x90 --backend cuda --output-dir /tmp/seq
run ./fathom expmap --location locations/e1000.json --width 64 --backend cuda --npy /tmp/m.npy
run ./fathom render --preset julia --size 320x180 --backend cuda --output /tmp/j.png
run ./fathom render --preset multibrot --size 320x180 --backend cuda --output /tmp/m.png
run ./fathom-bench device-orbit --device cuda --runs 1 --locations locations --steps 2000
run ./fathom-bench device-orbit --device cuda --runs 1 --locations locations --steps 2000 --host-settle --global-scratch
tar -C "$profiles" -cf "$OUT/profiles.tar" . && echo "profiles: $OUT/profiles.tar ($(ls "$profiles" | wc -l) processes)"
[ $failures -eq 0 ] || { echo "gpu-coverage: $failures runs failed"; exit 1; }

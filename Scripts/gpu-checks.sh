#!/usr/bin/env bash
# The GPU checks of Documentation/GPU.md, on a Linux machine with an NVIDIA GPU and no Swift
# toolchain. Prepare on a build machine (see Documentation/GPU.md, "Checking a GPU machine"):
#   make portable                      # dist/fathom, dist/fathom-bench
#   DIR/fathom, DIR/fathom-bench       # the portable binaries (or .xz of them)
#   DIR/oracle/*.json                  # ../shared/oracle
#   DIR/locations/*.json               # ../shared/locations (for fathom-bench)
#   DIR/cpu_e50.npy, cpu_e318.npy, cpu_e1000.npy
#                                      # `fathom render --preset P --size 640x360 --backend cpu
#                                      #  --npy` (the CPU's defaults: LA, which the CUDA renders
#                                      #  compared take too)
# Usage: Scripts/gpu-checks.sh DIR OUT [quick]
# Exit status: 0 when every check passed; 1 when any render or verify failed or any field
# differs from the CPU's (each such check prints a line starting "MISMATCH"); 2 on bad usage.
set -u
[ $# -ge 2 ] || { echo "usage: $0 DIR OUT [quick]" >&2; exit 2; }
DIR=$1
OUT=$2
mkdir -p "$OUT"
cd "$DIR" || exit 2
for b in fathom fathom-bench; do
    if [ -f $b.xz ] && [ ! -x $b ]; then xz -dc $b.xz > $b && chmod +x $b; fi
done
export FATHOM_CUDA_CACHE=/tmp/fathom-cuda-cache
log() { echo "== $*"; }
failures=0
mismatch() { echo "MISMATCH: $*"; failures=$((failures + 1)); }
# Runs a command with its output in /tmp/step.out; a non-zero exit is a mismatch.
checked() { local what=$1; shift; "$@" > /tmp/step.out 2>&1; local rc=$?; [ $rc -eq 0 ] || mismatch "$what (exit $rc)"; return $rc; }
# Whether two files are identical; a missing file counts as a difference.
same() { [ -f "$1" ] && [ -f "$2" ] && cmp -s "$1" "$2"; }
finish() { if [ $failures -gt 0 ]; then echo "== $failures check(s) failed"; exit 1; fi; echo "== all checks passed"; exit 0; }
TIMEFORMAT='%R s wall'
# Runs a command, prints its output without the long reference lines, then its wall time.
timed() { { time "$@" > /tmp/timed.out 2>&1; } 2> /tmp/timed.time; local rc=$?; grep -v "^reference 0" /tmp/timed.out | cut -c1-400; cat /tmp/timed.time; return $rc; }

log "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
nproc
ldd ./fathom | awk '{print $1}' | tr '\n' ' '; echo

log "first CUDA render (opens the driver, compiles the kernels with NVRTC, caches the CUBIN)"
if ! timed ./fathom render --preset e50 --size 64x36 --backend cuda --output /tmp/first.png --verbose; then
    mismatch "first CUDA render failed"
    if command -v nvcc >/dev/null; then
        log "nvcc's view of the kernel source"
        nvcc -arch=sm_90 -std=c++17 --fmad=false -c kernels.cu -o /tmp/k.o 2>&1 | head -30
    fi
fi
log "second CUDA render (the cached CUBIN)"
timed ./fathom render --preset e50 --size 64x36 --backend cuda --output /tmp/second.png --quiet || mismatch "second CUDA render failed"

log "verify against the oracle on CUDA (default: contracted multiply-adds)"
# verify exits non-zero when a file does not match the oracle or could not be verified.
checked "verify on CUDA" ./fathom verify --backend cuda oracle/*.json
grep -E "PASS|FAIL|NOT|verify:|backend|warning" /tmp/step.out
log "verify against the oracle on CUDA, exact mode"
checked "verify on CUDA, exact mode" ./fathom verify --backend cuda --gpu-exact on oracle/*.json
grep -E "PASS|FAIL|NOT|verify:|warning" /tmp/step.out

log "exact mode: CUDA's iteration fields against the CPU's (computed on the build machine)"
for p in e50 e318 e1000; do
    rm -f "$OUT/cuda_$p.npy"
    checked "$p render on CUDA" ./fathom render --preset $p --size 640x360 --backend cuda --gpu-exact on --approximation la --output /tmp/$p.png --npy "$OUT/cuda_$p.npy" --verbose
    grep -E "^wrote|^perturbation|^backend" /tmp/step.out | cut -c1-400
    if same "$OUT/cuda_$p.npy" cpu_$p.npy; then echo "$p: identical to the CPU's field"; else mismatch "$p: DIFFERS from the CPU's field"; cmp "$OUT/cuda_$p.npy" cpu_$p.npy 2>&1 | head -2; fi
done
log "the CPU on this machine (e1000 640x360): the same field as the build machine's CPU"
rm -f /tmp/cpu_here.npy
checked "e1000 render on this CPU" ./fathom render --preset e1000 --size 640x360 --backend cpu --output /tmp/c.png --npy /tmp/cpu_here.npy --quiet
if same /tmp/cpu_here.npy cpu_e1000.npy; then echo "e1000: identical"; else mismatch "e1000 on this CPU: DIFFERS"; fi
rm -f "$OUT"/cuda_*.npy

[ "${3:-}" = quick ] && finish

log "fathom-bench gpu on CUDA (3 runs each, medians)"
./fathom-bench gpu --backend cuda --runs 3 --locations locations || mismatch "fathom-bench gpu on CUDA (exit $?)"
log "fathom-bench gpu on CUDA, exact mode"
./fathom-bench gpu --backend cuda --gpu-exact --runs 3 --locations locations || mismatch "fathom-bench gpu on CUDA, exact mode (exit $?)"
log "the large renders through the CLI (the whole process), with phase times (FATHOM_TRACE)"
for args in "--preset e1000 --size 1920x1080" "--preset e1086 --size 1024x1024"; do
    FATHOM_TRACE=1 timed ./fathom render $args --backend cuda --output /tmp/big.png --verbose || mismatch "render $args on CUDA failed"
done
log "fathom-bench gpu on this machine's CPU cores, for comparison"
./fathom-bench gpu --backend cpu --runs 1 --locations locations --filter 1920 || mismatch "fathom-bench gpu on the CPU (exit $?)"
finish

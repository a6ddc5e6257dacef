#!/usr/bin/env bash
# The GPU checks of Documentation/GPU.md, on a Linux machine with an NVIDIA GPU and no Swift
# toolchain. Prepare on a build machine (see Documentation/GPU.md, "Checking a GPU machine"):
#   make portable                      # dist/fathom, dist/fathom-bench
#   DIR/fathom, DIR/fathom-bench       # the portable binaries (or .xz of them)
#   DIR/oracle/*.json                  # ../shared/oracle
#   DIR/locations/*.json               # ../shared/locations (for fathom-bench)
#   DIR/cpu_e50.npy, cpu_e318.npy, cpu_e1000.npy
#                                      # `fathom render --preset P --size 640x360 --backend cpu --npy`
#   DIR/cpu_e1000_rescaled.npy         # the same with --delta rescaled
# Usage: Scripts/gpu-checks.sh DIR OUT [quick]
set -u
DIR=$1
OUT=$2
mkdir -p "$OUT"
cd "$DIR" || exit 1
for b in fathom fathom-bench; do
    if [ -f $b.xz ] && [ ! -x $b ]; then xz -dc $b.xz > $b && chmod +x $b; fi
done
export FATHOM_CUDA_CACHE=/tmp/fathom-cuda-cache
log() { echo "== $*"; }
TIMEFORMAT='%R s wall'
# Runs a command, prints its output without the long reference lines, then its wall time.
timed() { { time "$@" > /tmp/timed.out 2>&1; } 2> /tmp/timed.time; local rc=$?; grep -v "^reference 0" /tmp/timed.out | cut -c1-400; cat /tmp/timed.time; return $rc; }

log "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
nproc
ldd ./fathom | awk '{print $1}' | tr '\n' ' '; echo

log "first CUDA render (opens the driver, compiles the kernels with NVRTC, caches the CUBIN)"
if ! timed ./fathom render --preset e50 --size 64x36 --backend cuda --output /tmp/first.png --verbose && command -v nvcc >/dev/null; then
    log "nvcc's view of the kernel source"
    nvcc -arch=sm_90 -std=c++17 --fmad=false -c kernels.cu -o /tmp/k.o 2>&1 | head -30
fi
log "second CUDA render (the cached CUBIN)"
timed ./fathom render --preset e50 --size 64x36 --backend cuda --output /tmp/second.png --quiet

log "verify against the oracle on CUDA (default: contracted multiply-adds)"
./fathom verify --backend cuda oracle/*.json 2>&1 | grep -E "PASS|FAIL|NOT|verify:|backend|warning"
log "verify against the oracle on CUDA, exact mode"
./fathom verify --backend cuda --gpu-exact on oracle/*.json 2>&1 | grep -E "PASS|FAIL|NOT|verify:|warning"

log "exact mode: CUDA's iteration fields against the CPU's (computed on the build machine)"
for p in e50 e318 e1000; do
    ./fathom render --preset $p --size 640x360 --backend cuda --gpu-exact on --output /tmp/$p.png --npy "$OUT/cuda_$p.npy" --verbose 2>&1 \
        | grep -E "^wrote|^perturbation|^backend" | cut -c1-400
    if cmp -s "$OUT/cuda_$p.npy" cpu_$p.npy; then echo "$p: identical to the CPU's field"; else echo "$p: DIFFERS from the CPU's field"; cmp "$OUT/cuda_$p.npy" cpu_$p.npy | head -2; fi
done
log "the CPU on this machine (e1000 640x360): the same field as the build machine's CPU"
./fathom render --preset e1000 --size 640x360 --backend cpu --output /tmp/c.png --npy /tmp/cpu_here.npy --quiet
cmp -s /tmp/cpu_here.npy cpu_e1000.npy && echo "e1000: identical" || echo "e1000: DIFFERS"
./fathom render --preset e1000 --size 640x360 --delta rescaled --backend cuda --gpu-exact on --output /tmp/r.png --npy "$OUT/cuda_r.npy" --quiet
cmp -s "$OUT/cuda_r.npy" cpu_e1000_rescaled.npy && echo "e1000 rescaled: identical to the CPU's field" || echo "e1000 rescaled: DIFFERS"
rm -f "$OUT"/cuda_*.npy

[ "${3:-}" = quick ] && exit 0

log "fathom-bench gpu on CUDA (3 runs each, medians)"
./fathom-bench gpu --backend cuda --runs 3 --locations locations
log "fathom-bench gpu on CUDA, exact mode"
./fathom-bench gpu --backend cuda --gpu-exact --runs 3 --locations locations
log "the large renders through the CLI (the whole process), with phase times (FATHOM_TRACE)"
for args in "--preset e1000 --size 1920x1080" "--preset e1086 --size 1024x1024" \
            "--preset e1000 --size 1920x1080 --delta rescaled" "--preset e1086 --size 1024x1024 --delta rescaled"; do
    FATHOM_TRACE=1 timed ./fathom render $args --backend cuda --output /tmp/big.png --verbose
done
log "fathom-bench gpu on this machine's CPU cores, for comparison"
./fathom-bench gpu --backend cpu --runs 1 --locations locations --filter 1920

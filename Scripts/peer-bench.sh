#!/usr/bin/env bash
# Side by side with fractalshades 1.2.1 (issue 4): its four cases at 800x800, alternating
# the two renderers, several runs each; prints every run and the medians.
#   fractalshades: the second render inside one process (--repeat 2, "rep 2" total: JIT
#                  compiled, nothing else cached), from its render.py
#   Fathom:        the whole `fathom render` process (wall time from /usr/bin/time); FATHOM
#                  (environment) names the binary (default .build/release/fathom)
# Usage: Scripts/peer-bench.sh FS_DIR [RUNS] [CASES...]
#   FS_DIR: a copy of ../shared/peers/fractalshades with its .venv installed (see its README)
#   F3_DIR (environment): a copy of ../shared/peers/fraktaler3 with Fraktaler-3 built in it
#   (see its README): adds Fraktaler-3's batch render of cases b, c and c2 with the wisdom file
#   F3_WISDOM (default wisdom/ocl.toml, its faster backend here: OpenCL on the CPU via PoCL),
#   its wall time from /usr/bin/time -v, alternating with the other two
#   Case d (fs_deepmini_e433, a minibrot, 4e8 iterations) runs fractalshades with interior
#   detection on (its run_bench.sh arguments) and Fathom with its default reference placement
#   (which takes the minibrot's nucleus).
#   FS_ARGS (environment): extra arguments for render.py, e.g. "--bla-eps 9.094947017729282e-13"
#   (BLA at Fathom's 2^-40) for a comparison at the same BLA epsilon
set -euo pipefail
FS=$(cd "$1" && pwd); RUNS=${2:-3}; shift || true; shift || true
CASES=("$@"); [ ${#CASES[@]} -eq 0 ] && CASES=(a b c c2 d)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FATHOM=${FATHOM:-$ROOT/.build/release/fathom}
OUT=$(mktemp -d)
xy() { sed -n "$2p" "$FS/coords/$1.xy"; }

for case in "${CASES[@]}"; do
  case "$case" in
    a)  LOC=fs_a_shallow;      ARGS=(--x -0.75 --y 0.1 --dx 0.05 --max-iter 2000) ;;
    b)  LOC=fs_b_flake_e50;    ARGS=(--x "$(xy flake_e157 1)" --y "$(xy flake_e157 2)" --dx 1e-50 --max-iter 1000000) ;;
    c)  LOC=fs_c_flake_e157;   ARGS=(--x "$(xy flake_e157 1)" --y "$(xy flake_e157 2)" --dx 1.7e-157 --precision 165 --max-iter 1000000) ;;
    c2) LOC=fs_c2_tlaloc_e213; ARGS=(--x "$(xy tlaloc_e213 1)" --y "$(xy tlaloc_e213 2)" --dx 3.226224123547768e-213 --precision 224 --max-iter 350000) ;;
    d)  LOC=fs_d_deepmini_e433; ARGS=(--x "$(xy deepmini_e433 1)" --y "$(xy deepmini_e433 2)" --dx 5.06722630e-433 --precision 550 --max-iter 400000000 --M-divergence 100 --interior-detect) ;;
    *) echo "unknown case $case" >&2; exit 2 ;;
  esac
  fs_times=(); fathom_times=(); f3_times=()
  for run in $(seq 1 "$RUNS"); do
    rm -rf "$OUT/fs"
    t=$(cd "$FS" && .venv/bin/python render.py "${ARGS[@]}" ${FS_ARGS:-} --nx 800 --repeat 2 --out "$OUT/fs" --name "$case" 2>&1 \
        | sed -n 's/^\[rep 2\] .*total: \([0-9.]*\) s.*/\1/p')
    fs_times+=("$t")
    f=$( { /usr/bin/time -f "%e %M" "$FATHOM" render --location "$ROOT/Benchmarks/Locations/$LOC.json" --quiet \
           --output "$OUT/$case.png" >/dev/null; } 2>&1 | tail -1)
    fathom_times+=("${f% *}")
    f3=""
    if [ -n "${F3_DIR:-}" ] && [[ " b c c2 " == *" $case "* ]]; then
      f3=$("$F3_DIR/run_case.sh" "$case" "peerbench$run" "${F3_WISDOM:-wisdom/ocl.toml}" \
        | sed -n 's/.* wall=\([0-9:.]*\) .*/\1/p' | awk -F: '{print (NF == 3) ? $1 * 3600 + $2 * 60 + $3 : (NF == 2) ? $1 * 60 + $2 : $1}')
      [ -n "$f3" ] && f3_times+=("$f3")
    fi
    echo "$case run $run: fractalshades warm total ${t} s, fathom process ${f% *} s (peak RSS ${f#* } KB)${f3:+, fraktaler-3 ${f3} s}"
  done
  median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
  mf=$(median "${fs_times[@]}"); mt=$(median "${fathom_times[@]}")
  echo "$case median: fractalshades ${mf} s, fathom ${mt} s, ratio $(awk -v a="$mf" -v b="$mt" 'BEGIN {printf "%.2f", a / b}')x"
  if [ ${#f3_times[@]} -gt 0 ]; then
    m3=$(median "${f3_times[@]}")
    echo "$case median: fraktaler-3 ${m3} s, fathom ${mt} s, ratio $(awk -v a="$m3" -v b="$mt" 'BEGIN {printf "%.2f", a / b}')x"
  fi
done
rm -rf "$OUT"

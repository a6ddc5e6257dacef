#!/usr/bin/env bash
# `make slurm-check`: a zoom-out rendered on a real single-node Slurm (Documentation/Sequences.md,
# "On a cluster"). As root: installs Slurm and munge from Debian when missing, starts a private
# munged, slurmctld and slurmd from a temporary folder (no systemd), and stops them at the end.
# Checks: `fathom sequence --slurm DIR --submit` renders a 40-frame zoom-out of e1000 at 320x180
# as a 4-task array whose frames equal a local `fathom sequence` byte for byte, and whose video
# ffprobe counts 40 frames; a second run with one array task cancelled while it runs, then the
# frames job resubmitted, renders only the missing frames (counted from the tasks' logs).
# Pitfalls (from the team's recipe): the munge socket folder must be a+x; every client needs
# SLURM_CONF; RealMemory above the node's makes it INVAL; no cgroup plugins here; fixed ports.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FATHOM=${FATHOM:-$ROOT/.build/release/fathom}
FRAMES=${FRAMES:-40}; TASKS=4; SIZE=320x180
[ "$(id -u)" = 0 ] || { echo "slurm-check: needs root (it starts munged, slurmctld and slurmd)" >&2; exit 2; }
[ -x "$FATHOM" ] || { echo "slurm-check: $FATHOM is missing (make release)" >&2; exit 2; }
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null || ! command -v ffprobe >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    slurmctld slurmd slurm-client munge ffmpeg >/dev/null
fi
T=$(mktemp -d); chmod 755 "$T"
H=$(hostname -s); MEM=$(( $(free -m | awk '/^Mem:/{print $2}') - 512 ))
mkdir -p "$T"/{munge,run,state,spool}
chmod 700 "$T/munge"; chmod 755 "$T/run"
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]:1}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]:1}"; do while kill -0 "$p" 2>/dev/null; do sleep 0.2; done; done
  if [ ${#PIDS[@]} -gt 0 ]; then
    kill "${PIDS[0]}" 2>/dev/null || true
    while kill -0 "${PIDS[0]}" 2>/dev/null; do sleep 0.2; done
  fi
  rm -rf "$T"
}
trap cleanup EXIT
waitpidfile() { for _ in $(seq 1 100); do [ -s "$1" ] && return; sleep 0.1; done; return 1; }
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$T/munge/munge.key"
munged --key-file="$T/munge/munge.key" --socket="$T/run/munge.sock" \
       --pid-file="$T/munged.pid" --log-file="$T/munged.log" --seed-file="$T/munge/munged.seed"
waitpidfile "$T/munged.pid"; PIDS+=("$(cat "$T/munged.pid")")
cat > "$T/slurm.conf" <<CONF
ClusterName=fathom
SlurmctldHost=$H
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/run/munge.sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
NodeName=$H NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$MEM State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$T/slurm.conf"
slurmctld -i; waitpidfile "$T/slurmctld.pid"; PIDS+=("$(cat "$T/slurmctld.pid")")
slurmd;       waitpidfile "$T/slurmd.pid";    PIDS+=("$(cat "$T/slurmd.pid")")
for _ in $(seq 1 100); do [ "$(sinfo -h -n "$H" -o %t)" = idle ] && break; sleep 0.2; done
fail() { echo "slurm-check: FAILED: $*" >&2; for f in "$T"/*/logs/*; do echo "== $f" >&2; tail -3 "$f" >&2; done; exit 1; }
# Waits until the queue is empty; a run that hangs fails after 5 minutes instead.
idle() {
  local k=0
  while [ -n "$(squeue -h -o %i)" ]; do
    k=$((k + 1)); [ $k -lt 600 ] || fail "the queue did not drain in 5 minutes: $(squeue -h -o '%i %T %R' | head -3)"
    sleep 0.5
  done
}
start=$(date +%s)

# 1. The whole zoom-out through Slurm, against a local run.
"$FATHOM" sequence --zoom-out "$FRAMES" --preset e1000 --size $SIZE --slurm "$T/zoom" --tasks $TASKS --fps 24 --submit
idle
"$FATHOM" sequence --zoom-out "$FRAMES" --preset e1000 --size $SIZE --output-dir "$T/local" --quiet
n=0
for f in "$T"/local/frame-*.png; do
  cmp -s "$f" "$T/zoom/frames/$(basename "$f")" || fail "$(basename "$f") differs from the local render"
  n=$((n + 1))
done
[ "$n" = "$FRAMES" ] || fail "the local run made $n frames, not $FRAMES"
[ -f "$T/zoom/zoom.mp4" ] || fail "no video"
count=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$T/zoom/zoom.mp4")
[ "$count" = "$FRAMES" ] || fail "the video has $count frames, not $FRAMES"
echo "slurm-check: $FRAMES frames through a $TASKS-task array identical to the local run, video of $count frames"

# 2. One array task cancelled while it runs, then the frames job resubmitted: only the missing frames.
"$FATHOM" sequence --zoom-out "$FRAMES" --preset e1000 --size $SIZE --slurm "$T/again" --tasks $TASKS --quiet
cd "$T/again"
reference=$(sbatch --parsable reference.sbatch)
frames=$(sbatch --parsable --dependency=afterok:$reference frames.sbatch)
k=0
until [ "$(squeue -h -j "${frames}_2" -o %T 2>/dev/null)" = RUNNING ]; do
  k=$((k + 1)); [ $k -lt 1200 ] || fail "task 2 was not seen running within 2 minutes"
  sleep 0.1
done
sleep 1
scancel "${frames}_2"; idle
present=$(ls "$T/again/frames" | grep -c '^frame-.*\.png$' || true)
missing=$((FRAMES - present))
[ "$missing" -gt 0 ] || fail "cancelling task 2 left no frame missing"
again=$(sbatch --parsable frames.sbatch); idle
rendered=$(cat "$T"/again/logs/frames-"$again"-*.out | sed -n 's/^sequence: \([0-9]*\) of .*/\1/p' | awk '{s += $1} END {print s + 0}')
[ "$rendered" = "$missing" ] || fail "the resubmitted array rendered $rendered frames for $missing missing"
for f in "$T"/local/frame-*.png; do
  cmp -s "$f" "$T/again/frames/$(basename "$f")" || fail "$(basename "$f") differs after the resubmission"
done
echo "slurm-check: task 2 cancelled with $missing of its frames missing; the resubmitted array rendered exactly those $rendered"
echo "slurm-check: all checks passed in $(( $(date +%s) - start )) s"

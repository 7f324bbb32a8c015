#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# footprint.sh: pmutop at scale and at rest: CPU (% of one core) with 1024 simulated CPUs at
# 1 Hz (batch CSV, batch JSON and the screen), and the screen's resident memory at 1 Hz on this
# machine's CPUs (VmRSS and VmHWM from /proc/PID/status, in KiB, after the warm-up).
# usage: bench/footprint.sh [SECONDS_PER_ROUND [SIM_CPUS [INTERVAL_MS [ROUNDS]]]]
#        defaults: 30 s, 1024, 1000 (the interval of the simulated runs), 1 round
#   FOOTPRINT_RUNS="csv json screen live"  the runs to make (default all four)
#   PMUTOP_BINS="before=PATH after=PATH"   several binaries, one after the other in each round
# With several rounds or binaries, a summary per run and binary follows: % of a core and us
# per CPU and tick (sim runs), median (min-max) over the rounds.
# The screen runs in a detached tmux server (200x60) started with `exec`, so the pane's PID is
# pmutop's. CPU time is the on-CPU ns of every thread (/proc/PID/task/*/schedstat) between 1 s
# after the start and 1 s before the end. See bench/README.md for recorded figures.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
secs=${1:-30}
ncpu=${2:-1024}
ms=${3:-1000}
rounds=${4:-1}
runs=${FOOTPRINT_RUNS:-"csv json screen live"}
bin=$(bench_bin)
bench_min_secs "$secs"
bins=${PMUTOP_BINS:-"pmutop=$bin"}
sock=pmutop-footprint-$$
tmux_up=0
results=$(mktemp)
cleanup() {
  [ "$tmux_up" = 0 ] || tmux -L "$sock" kill-server 2>/dev/null || true
  rm -f "$results"
}
trap cleanup EXIT


status_kib() { # PID FIELD: a VmXXX line of /proc/PID/status, kB
  awk -v f="$2:" '$1 == f { print $2 }' /proc/"$1"/status
}

measure() { # LABEL PID: % of a core over secs - 2 seconds
  local label=$1 pid=$2
  sleep 1
  local a1 t1 a2 t2
  a1=$(cpu_ns "$pid"); t1=$(date +%s%N)
  sleep $((secs - 2))
  a2=$(cpu_ns "$pid"); t2=$(date +%s%N)
  awk -v a=$((a2 - a1)) -v w=$((t2 - t1)) -v l="$label" -v r="$(status_kib "$pid" VmRSS)" \
    -v h="$(status_kib "$pid" VmHWM)" -v name="$name" -v ms="$ms" -v n="$ncpu" -v res="$results" 'BEGIN {
    printf "%-34s %6.3f%% of a core  %8.1f us/s  RSS %6d KiB  HWM %6d KiB\n", l, a / w * 100, a / (w / 1e9) / 1000, r, h
    # us per CPU and tick: the sim runs only
    printf "%s|%s|%.4f|%.4f\n", l, name, a / w * 100, l ~ /^sim/ ? a / 1000 / (w / (ms * 1e6)) / n : 0 >> res }'
}

batch() { # FORMAT
  "$bin" -b --backend sim --sim-cpus "$ncpu" -i "$ms" -n $(((secs + 1) * 1000 / ms)) -f "$1" >/dev/null 2>&1 &
  local p=$!
  measure "sim $ncpu CPUs, $ms ms, batch $1" $p
  kill $p 2>/dev/null || true
  wait $p 2>/dev/null || true
}

screen() { # LABEL ARGS...: the screen in tmux
  local label=$1
  shift
  tmux -L "$sock" kill-server 2>/dev/null || true
  TERM=xterm-256color tmux -L "$sock" -f /dev/null new-session -d -x 200 -y 60 \
    "exec $bin --no-rc $*"
  tmux_up=1
  local p
  p=$(tmux -L "$sock" display-message -p '#{pane_pid}')
  measure "$label" "$p"
  tmux -L "$sock" kill-server 2>/dev/null || true
  tmux_up=0
}

echo "pmutop $("$bin" --version | head -1 | cut -d' ' -f2); $(nproc) CPUs; ${secs}s per round"
for round in $(seq "$rounds"); do
  for nb in $bins; do
    name=${nb%%=*}
    bin=$(realpath "${nb#*=}")
    [ "$rounds" = 1 ] && [ "$name" = pmutop ] || echo "round $round: $name ($bin)"
    for run in $runs; do
      case $run in
      csv | json) batch "$run" ;;
      screen) screen "sim $ncpu CPUs, $ms ms, screen" --backend sim --sim-cpus "$ncpu" -i "$ms" ;;
      live) screen "screen, 1 Hz, $(nproc) CPUs (live)" -i 1000 ;;
      *) echo "unknown run $run (csv json screen live)"; exit 2 ;;
      esac
    done
  done
done
if [ "$rounds" -gt 1 ] || [ "$bins" != "pmutop=$bin" ]; then
  echo "summary, median (min-max) over $rounds round(s):"
  sort -t'|' -k1,1 -k2,2 -s "$results" | awk -F'|' '
  function isort(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
  function med(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  function flush() {
    if (!key) return
    isort(p, n); isort(u, n)
    printf "  %-34s %-8s %6.3f%% of a core (%.3f-%.3f)", l, b, med(p, n), p[1], p[n]
    if (u[n] > 0) printf "  %5.2f us per CPU and tick (%.2f-%.2f)", med(u, n), u[1], u[n]
    printf "\n"
    delete p; delete u; n = 0
  }
  { k = $1 "|" $2; if (k != key) { flush(); key = k; l = $1; b = $2 }; n++; p[n] = $3; u[n] = $4 }
  END { flush() }'
fi

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# overhead.sh: pmutop's own CPU time per tick against perf stat counting the same events,
# both running side by side (same noise), per interval and batch format. Prints the ratio.
# usage: bench/overhead.sh [SECONDS_PER_ROUND [INTERVALS_MS [FORMATS]]]
#        defaults: 30 s, "1000 100 10", "csv json"
#   PMUTOP_BIN=path           the binary (default ./build/pmutop)
#   PMUTOP_BINS="a=path b=.." several binaries in the same rounds (before/after comparisons)
# The reference is always `perf stat -a -A -x, -I MS` (CSV) on the sw mode's events: the same
# work of the kernel, so the ratio shows what pmutop adds on top of reading the counters.
# CPU time is the on-CPU ns of every thread (/proc/PID/task/*/schedstat), sampled after a
# 0.5 s warm-up and 1.5 s before the end. See bench/README.md for recorded figures.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
intervals=${2:-"1000 100 10"}
formats=${3:-"csv json"}
bins=${PMUTOP_BINS:-"pmutop=${PMUTOP_BIN:-./build/pmutop}"}
first_bin=${bins%% *}
first_bin=${first_bin#*=}
[ -x "$first_bin" ] || bash scripts/build.sh >/dev/null
command -v perf >/dev/null || { echo "perf is not installed (apt-get install linux-perf)"; exit 1; }
[ "$secs" -ge 4 ] || { echo "rounds need at least 4 s"; exit 2; }
# the sw mode's events, as perf stat spells them
events="cpu-clock,context-switches,cpu-migrations,page-faults"
perf_events="$events"
if perf stat -a -e msr/tsc/ true >/dev/null 2>&1; then perf_events="$events,msr/tsc/"; fi

source bench/lib.sh # (the working directory is the repository)

round() { # INTERVAL_MS FORMAT
  local ms=$1 fmt=$2
  local ticks=$((secs * 1000 / ms))
  local labels=() pids=() a1=() a2=()
  for lb in $bins; do
    "${lb#*=}" -b -m sw -i "$ms" -n "$ticks" -f "$fmt" >/dev/null &
    pids+=($!)
    labels+=("${lb%%=*}")
  done
  perf stat -a -A -x, -I "$ms" -e "$perf_events" -o /dev/null -- sleep "$secs" &
  local pp=$!
  sleep 0.5
  local b1 b2
  for p in "${pids[@]}"; do a1+=("$(cpu_ns "$p")"); done
  b1=$(cpu_ns $pp)
  sleep $((secs - 2))
  for p in "${pids[@]}"; do a2+=("$(cpu_ns "$p")"); done
  b2=$(cpu_ns $pp)
  wait "${pids[@]}" $pp 2>/dev/null || true
  local span_ticks=$(( (secs - 2) * 1000 / ms ))
  for i in "${!pids[@]}"; do
    awk -v a=$((a2[i] - a1[i])) -v b=$((b2 - b1)) -v t=$span_ticks -v ms="$ms" -v s=$((secs - 2)) \
      -v f="$fmt" -v l="${labels[i]}" 'BEGIN {
      printf "%5d ms %-4s %-8s: pmutop %7.1f us/tick (%.3f%% of a core)  perf stat %7.1f us/tick (%.3f%%)  ratio pmutop/perf = %.2f\n",
        ms, f, l, a / t / 1000, a / (s * 1e9) * 100, b / t / 1000, b / (s * 1e9) * 100, (b > 0 ? a / b : 0) }'
  done
}

echo "pmutop $("$first_bin" --version | cut -d' ' -f2) vs $(perf --version); events: $perf_events; $(nproc) CPUs; ${secs}s per round; load $(cut -d' ' -f1-3 /proc/loadavg)"
for ms in $intervals; do
  for fmt in $formats; do
    round "$ms" "$fmt"
  done
done

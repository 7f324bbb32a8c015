#!/usr/bin/env bash
# overhead.sh: pmutop's own CPU time per tick against perf stat counting the same events,
# both running side by side (same noise), per interval and batch format. Prints the ratio.
# usage: bench/overhead.sh [SECONDS_PER_ROUND [INTERVALS_MS [FORMATS]]]
#        defaults: 30 s, "1000 100 10", "csv json"
# The reference is always `perf stat -a -A -x, -I MS` (CSV) on the sw mode's events: the same
# work of the kernel, so the ratio shows what pmutop adds on top of reading the counters.
# CPU time is the on-CPU ns of every thread (/proc/PID/task/*/schedstat), sampled after a
# 0.5 s warm-up and 1.5 s before the end. See bench/README.md for recorded figures.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
intervals=${2:-"1000 100 10"}
formats=${3:-"csv json"}
bin=${PMUTOP_BIN:-./build/pmutop}
[ -x "$bin" ] || bash scripts/build.sh >/dev/null
command -v perf >/dev/null || { echo "perf is not installed (apt-get install linux-perf)"; exit 1; }
[ "$secs" -ge 4 ] || { echo "rounds need at least 4 s"; exit 2; }
# the sw mode's events, as perf stat spells them
events="cpu-clock,context-switches,cpu-migrations,page-faults"
perf_events="$events"
if perf stat -a -e msr/tsc/ true >/dev/null 2>&1; then perf_events="$events,msr/tsc/"; fi

cpu_ns() { # on-CPU time of a process and its threads, ns (schedstat)
  local pid=$1 total=0
  for t in /proc/"$pid"/task/*/schedstat; do
    read -r ns _ < "$t" && total=$((total + ns))
  done
  echo "$total"
}

round() { # INTERVAL_MS FORMAT
  local ms=$1 fmt=$2
  local ticks=$((secs * 1000 / ms))
  "$bin" -b -m sw -i "$ms" -n "$ticks" -f "$fmt" >/dev/null &
  local p1=$!
  perf stat -a -A -x, -I "$ms" -e "$perf_events" -o /dev/null -- sleep "$secs" &
  local p2=$!
  sleep 0.5
  local a1 a2 b1 b2
  a1=$(cpu_ns $p1); b1=$(cpu_ns $p2)
  sleep $((secs - 2))
  a2=$(cpu_ns $p1); b2=$(cpu_ns $p2)
  wait $p1 $p2 2>/dev/null || true
  local span_ticks=$(( (secs - 2) * 1000 / ms ))
  awk -v a=$((a2 - a1)) -v b=$((b2 - b1)) -v t=$span_ticks -v ms="$ms" -v s=$((secs - 2)) -v f="$fmt" 'BEGIN {
    printf "%5d ms %-4s: pmutop %7.1f us/tick (%.3f%% of a core)  perf stat %7.1f us/tick (%.3f%%)  ratio pmutop/perf = %.2f\n",
      ms, f, a / t / 1000, a / (s * 1e9) * 100, b / t / 1000, b / (s * 1e9) * 100, (b > 0 ? a / b : 0) }'
}

echo "pmutop $("$bin" --version | cut -d' ' -f2) vs $(perf --version); events: $perf_events; $(nproc) CPUs; ${secs}s per round"
for ms in $intervals; do
  for fmt in $formats; do
    round "$ms" "$fmt"
  done
done

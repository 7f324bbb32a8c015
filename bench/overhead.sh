#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# overhead.sh: pmutop's own CPU time per tick against perf stat counting the same events,
# both running side by side (same noise), per interval and batch format. Prints the ratio.
# usage: bench/overhead.sh [SECONDS_PER_ROUND [INTERVALS_MS [FORMATS [ROUNDS]]]]
#        defaults: 30 s, "1000 100 10", "csv json", 3 rounds (min/median/max of the ratios)
#   PMUTOP_BIN=path           the binary (default ./build/pmutop)
#   PMUTOP_BINS="a=path b=.." several binaries in the same rounds (before/after comparisons)
#   BENCH_AWAKE=1             an idle-class busy loop on every CPU, so no CPU halts (bench/lib.sh)
# The reference is `perf stat -a -A -I MS` on the sw mode's events writing the same format:
# `-x,` for CSV, `-j` for JSON (CSV for any other format): the same work of the kernel, so the
# ratio shows what pmutop adds on top of reading the counters.
# CPU time is the on-CPU ns of every thread (/proc/PID/task/*/schedstat), sampled after a
# 0.5 s warm-up and 1.5 s before the end. See bench/README.md for recorded figures.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
secs=${1:-30}
intervals=${2:-"1000 100 10"}
formats=${3:-"csv json"}
rounds=${4:-3}
bins=${PMUTOP_BINS:-"pmutop=${PMUTOP_BIN:-./build/pmutop}"}
first_bin=$(bench_first_bin "$bins")
bench_need perf "perf is not installed (apt-get install linux-perf)"
bench_min_secs "$secs"
# the sw mode's events, as perf stat spells them
events="cpu-clock,context-switches,cpu-migrations,page-faults"
perf_events="$events"
if perf stat -a -e msr/tsc/ true >/dev/null 2>&1; then perf_events="$events,msr/tsc/"; fi


round() { # INTERVAL_MS FORMAT: one line per binary into $tmp/ratios
  local ms=$1 fmt=$2 pfmt=(-x,)
  [ "$fmt" = json ] && pfmt=(-j)
  local ticks=$((secs * 1000 / ms))
  local labels=() pids=() a1=() a2=()
  for lb in $bins; do
    "${lb#*=}" -b -m sw -i "$ms" -n "$ticks" -f "$fmt" >/dev/null 2>&1 &
    pids+=($!)
    labels+=("${lb%%=*}")
  done
  perf stat -a -A "${pfmt[@]}" -I "$ms" -e "$perf_events" -o /dev/null -- sleep "$secs" &
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
    echo "$ms $fmt ${labels[i]} $((a2[i] - a1[i])) $((b2 - b1)) $span_ticks" >>"$tmp/ratios"
  done
}

tmp=$(mktemp -d)
trap 'bench_awake_stop; rm -rf "$tmp"' EXIT
echo "pmutop $("$first_bin" --version | head -1 | cut -d' ' -f2) vs $(perf --version | head -1);" \
  "events: $perf_events; $(nproc) CPUs; ${secs}s per round, $rounds rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
bench_awake_start
for rd in $(seq "$rounds"); do
  for ms in $intervals; do
    for fmt in $formats; do
      round "$ms" "$fmt"
    done
  done
done
# per interval, format and binary: us per tick (medians) and the ratio's min/median/max
sort -k1,1nr -k2,2 -k3,3 "$tmp/ratios" | ratio_table perf

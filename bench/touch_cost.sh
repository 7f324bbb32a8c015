#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# touch_cost.sh: what touching memory costs a tick after the sleep, on this machine, beside the
# same load as bench/floor.sh (pmutop's batch CSV, JSON and OpenMetrics at the same interval):
# the floor (bench/floor.c) with --touch 0 and with --touch KIB for each of SIZES, all at the
# same time; prints per size the extra CPU time a tick over the floor's and the time per
# 64-byte line touched. Calibrates bench/tick_touch.sh's line counts in microseconds.
# usage: bench/touch_cost.sh [SECONDS [INTERVAL_MS [SIZES_KIB [ROUNDS]]]]   defaults: 12, 10, "48 96", 3
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
secs=${1:-12}
ms=${2:-10}
sizes=${3:-"48 96"}
rounds=${4:-3}
bench_min_secs "$secs"
bin=$(bench_first_bin "pmutop=./build/pmutop")
bin=$(realpath "$bin")
cmake --build build --target bench_floor >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ticks=$(((secs + 2) * 1000 / ms))
echo "touch cost: $(nproc) CPUs, $ms ms, ${secs}s x $rounds rounds, beside pmutop csv/json/openmetrics;" \
  "load $(cut -d' ' -f1-3 /proc/loadavg)"
for rd in $(seq "$rounds"); do
  pids=()
  for kib in 0 $sizes; do
    ./build/bench_floor -i "$ms" -n "$ticks" --touch "$kib" 2>/dev/null &
    pids+=($!)
  done
  for fr in csv json openmetrics; do
    "$bin" --no-rc -b -m sw -i "$ms" -n "$ticks" -f "$fr" >/dev/null 2>&1 &
  done
  sleep 1
  a=()
  for p in "${pids[@]}"; do a+=("$(cpu_ns "$p")"); done
  sleep $((secs - 2))
  i=0
  for kib in 0 $sizes; do
    echo "$kib $(($(cpu_ns "${pids[i]}") - a[i]))" >>"$tmp/r$rd"
    i=$((i + 1))
  done
  wait 2>/dev/null || true
done
t=$(((secs - 2) * 1000 / ms))
for rd in $(seq "$rounds"); do
  awk -v t="$t" 'NR == 1 { base = $2 / t } NR > 1 {
      extra = $2 / t - base; printf "%s %.0f %.1f %.2f\n", $1, base / 1000, extra / 1000, extra / ($1 * 16) }' "$tmp/r$rd"
done | sort -k1,1n -k3,3n | awk '
  function flush() { if (n) { m = int((n + 1) / 2); printf "  touch %5d KiB: the floor %s us a tick, +%s us (median of %d rounds: +%s..+%s), %s ns a line\n", k, b[m], e[m], n, e[1], e[n], l[m] } n = 0 }
  $1 != k { flush(); k = $1 }
  { n++; b[n] = $2; e[n] = $3; l[n] = $4 }
  END { flush() }'

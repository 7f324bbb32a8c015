#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# touch_cost.sh: what touching memory costs a tick after the sleep, on this machine, beside the
# same load as bench/floor.sh (pmutop's batch CSV, JSON and OpenMetrics at the same interval):
# the floor (bench/floor.c) with --touch 0 and with --touch KIB for each of SIZES, all at the
# same time; prints per size the extra CPU time a tick over the floor's and the time per
# 64-byte line touched, then pmutop's own extra CPU time a tick over the same floor, per front end
# (so a size whose lines match pmutop's tick, bench/tick_touch.sh, says what its lines cost).
# Calibrates bench/tick_touch.sh's line counts in microseconds.
# usage: bench/touch_cost.sh [SECONDS [INTERVAL_MS [SIZES_KIB [ROUNDS]]]]   defaults: 12, 10, "48 96", 3
#   BENCH_AWAKE=1   an idle-class busy loop on every CPU, so no CPU halts (see bench/lib.sh)
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
trap 'bench_awake_stop; rm -rf "$tmp"' EXIT
ticks=$(((secs + 2) * 1000 / ms))
echo "touch cost: $(nproc) CPUs, $ms ms, ${secs}s x $rounds rounds, beside pmutop csv/json/openmetrics;" \
  "load $(cut -d' ' -f1-3 /proc/loadavg)"
bench_awake_start
for rd in $(seq "$rounds"); do
  floors=()
  for kib in 0 $sizes; do floors+=("--touch $kib"); done
  bench_start_batch "$ms" "$ticks" "pmutop=$bin" "csv json openmetrics" "${floors[@]}"
  pids=("${BENCH_PIDS[@]:0:${#floors[@]}}")
  pm=("${BENCH_PIDS[@]:${#floors[@]}}")
  sleep 1
  a=() b=()
  for p in "${pids[@]}" "${pm[@]}"; do a+=("$(cpu_ns "$p")"); done
  sleep $((secs - 2))
  for p in "${pids[@]}" "${pm[@]}"; do b+=("$(cpu_ns "$p")"); done
  i=0
  for kib in 0 $sizes; do
    echo "$kib $((b[i] - a[i]))" >>"$tmp/r$rd"
    i=$((i + 1))
  done
  for fr in csv json openmetrics; do
    echo "$fr $((b[i] - a[i])) $((b[0] - a[0]))" >>"$tmp/pm"
    i=$((i + 1))
  done
  wait "${pids[@]}" "${pm[@]}" 2>/dev/null || true # (not the busy loops of BENCH_AWAKE)
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
# pmutop's extra over the floor of the same round, per front end: median and range of the rounds
sort -k1,1 "$tmp/pm" | awk -v t="$t" '
  function isort(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
  function flush() { if (n) { isort(e, n); m = int((n + 1) / 2); printf "  pmutop %-11s: +%.1f us a tick over the floor (median of %d rounds: +%.1f..+%.1f)\n", k, e[m], n, e[1], e[n] } n = 0 }
  $1 != k { flush(); k = $1 }
  { n++; e[n] = ($2 - $3) / t / 1000 }
  END { flush() }'

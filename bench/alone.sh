#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# alone.sh: each program run alone, one after the other (nothing else of the benchmark running
# meanwhile): the floor (bench/floor.c), the floor that also touches TOUCH_KIB of memory a tick
# (--touch: as many 64-byte lines as pmutop's CSV tick, bench/tick_touch.sh), the same lines
# spread over 6 times the pages (--spread 6: ~11 lines a page, as a pmutop tick's data), the
# floor that also reads the sysfs online list a tick (--online: what following hotplug that way
# costs) and pmutop's batch CSV, at each interval; CPU time per tick from /proc/PID/schedstat between 1 s after the start
# and 1 s before the end; median (min-max) of ROUNDS. With BENCH_AWAKE=1 no CPU halts meanwhile
# (bench/lib.sh): the two runs side by side show what waking a halted CPU for the cross-CPU
# reads costs here, which floor.sh's ratios (every program at once) hide or exaggerate by turns.
# usage: bench/alone.sh [SECONDS [INTERVALS_MS [ROUNDS [TOUCH_KIB]]]]   defaults: 8, "10 100 1000", 3, 70
#   PMUTOP_BIN=PATH   the pmutop binary (default build/pmutop)
#   PMUTOP_BINS="LABEL=PATH ..."   several binaries, each run as its own row (before/after)
#   PMUTOP_ARGS="..."   what pmutop counts instead of "-m sw" (e.g. "-e cpu-clock,page-faults":
#                       events without /proc/stat, as a hardware mode's)
#   ALONE_TOUCH=0     only the plain floor, without its touch and online variants
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
secs=${1:-8}
intervals=${2:-"10 100 1000"}
rounds=${3:-3}
kib=${4:-70}
bench_min_secs "$secs"
bins=${PMUTOP_BINS:-"pmutop=$(bench_bin)"}
bin=$(bench_first_bin "$bins")
read -r -a pargs <<<"${PMUTOP_ARGS:--m sw}"
touch_too=${ALONE_TOUCH:-1}
cmake --build build --target bench_floor >/dev/null
tmp=$(mktemp -d)
trap 'bench_awake_stop; rm -rf "$tmp"' EXIT

alone() { # MS NAME COMMAND...: one run; appends "MS NAME US_PER_TICK" to $tmp/runs
  local ms=$1 name=$2 p a b
  shift 2
  "$@" >/dev/null 2>&1 &
  p=$!
  sleep 1
  a=$(cpu_ns "$p")
  sleep $((secs - 2))
  b=$(cpu_ns "$p")
  kill "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
  echo "$ms $name $(((b - a) / ((secs - 2) * 1000 / ms) / 1000))" >>"$tmp/runs"
}

echo "alone: $(nproc) CPUs, ${secs}s a run, $rounds rounds, $bins, pmutop ${pargs[*]};" \
  "load $(cut -d' ' -f1-3 /proc/loadavg)"
bench_awake_start
for rd in $(seq "$rounds"); do
  for ms in $intervals; do
    n=$((secs * 1000 / ms + 10))
    alone "$ms" floor ./build/bench_floor -i "$ms" -n "$n"
    if [ "$touch_too" = 1 ]; then
      alone "$ms" "floor+${kib}KiB" ./build/bench_floor -i "$ms" -n "$n" --touch "$kib"
      alone "$ms" "floor+${kib}KiB/6" ./build/bench_floor -i "$ms" -n "$n" --touch "$kib" --spread 6
      alone "$ms" floor+online ./build/bench_floor -i "$ms" -n "$n" --online
    fi
    for lb in $bins; do
      alone "$ms" "${lb%%=*}-csv" "${lb#*=}" --no-rc -b "${pargs[@]}" -i "$ms" -n "$n" -f csv
    done
  done
done
sort -k1,1n -k2,2 -s "$tmp/runs" | awk '
  function isort(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
  function flush() { if (n) { isort(v, n); printf "%6d ms %-14s %7d us a tick (min %d, max %d)\n", ms, k, v[int((n + 1) / 2)], v[1], v[n] } n = 0 }
  $1 " " $2 != key { flush(); key = $1 " " $2; ms = $1; k = $2 }
  { v[++n] = $3 }
  END { flush() }'

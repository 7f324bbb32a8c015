#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tickwait.sh: what the system calls of a batch tick cost on this machine (bench/tickwait.c,
# the caller's own CPU time): the three ways to wait for a tick, ROUNDS rounds interleaved
# (min/median/max), then one of each other call of a tick.
# usage: bench/tickwait.sh [TICKS [PERIOD_US [ROUNDS]]]     defaults: 1500, 2000, 5
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
ticks=${1:-1500}
period=${2:-2000}
rounds=${3:-5}
cmake --build build --target bench_tickwait >/dev/null
bin=./build/bench_tickwait
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "waiting for a tick of $period us, $ticks ticks, $rounds rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < rounds; r++)); do
  for how in 0 1 2; do "$bin" "$how" "$ticks" "$period" >>"$tmp"; done
done
for name in "timerfd after poll()" "timerfd read alone" "POSIX timer, signalfd read"; do
  grep -F "  $name " "$tmp" | awk '{ print $(NF - 1) }' | sort -n |
    awk -v name="$name" '{ v[NR] = $1 } END {
      printf "  %-28s median %6.2f us/tick (min %.2f, max %.2f)\n", name, v[int((NR + 1) / 2)], v[1], v[NR] }'
done
echo "the other calls of a tick, 20000 each:"
"$bin" CALLS 20000 1000

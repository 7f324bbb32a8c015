#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tick_touch.sh: the memory one batch tick touches (live sw mode on this machine's CPUs): the
# distinct 64-byte lines and 4 KiB pages of code and of data per tick, by valgrind's lackey
# (every load, store and instruction traced), then where the data lines lie and which functions
# the code lines belong to. After a sleep between ticks, with other programs run meanwhile, most
# of these lines are fetched again from a far cache: the count is what a tick's cache misses
# scale with, where instructions alone do not say it (bench/README.md, "The ninth round").
# usage: bench/tick_touch.sh [TICKS [FORMATS [TOP]]]   defaults: 60, "csv json openmetrics", 12
#   PMUTOP_BINS="before=PATH after=PATH"   several binaries (default pmutop=./build/pmutop)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
ticks=${1:-60}
formats=${2:-"csv json openmetrics"}
top=${3:-12}
bins=${PMUTOP_BINS:-"pmutop=./build/pmutop"}
bench_need valgrind "valgrind is not installed"
bench_need python3 "python3 is not installed"
bench_first_bin "$bins" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "memory touched per batch tick: live sw mode, $(nproc) CPUs, 20 ms, $ticks ticks under lackey;" \
  "load $(cut -d' ' -f1-3 /proc/loadavg)"
for lb in $bins; do
  bin=$(realpath "${lb#*=}")
  for fr in $formats; do
    echo "${lb%%=*} $fr:"
    valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/lk.txt" \
      "$bin" --no-rc -b -m sw -i 20 -n "$ticks" -f "$fr" >/dev/null 2>"$tmp/err" &
    pid=$!
    # the client's mappings: the last copy before the run ends holds every tick's mappings
    : >"$tmp/maps"
    while kill -0 "$pid" 2>/dev/null; do
      cp "/proc/$pid/maps" "$tmp/maps.new" 2>/dev/null && [ -s "$tmp/maps.new" ] &&
        mv "$tmp/maps.new" "$tmp/maps"
      sleep 0.5
    done
    wait "$pid" || { echo "  the run failed: $(tail -2 "$tmp/err")"; continue; }
    python3 bench/tick_touch.py "$tmp/lk.txt" "$tmp/maps" "$bin" "$ticks" "$top" | sed 's/^/  /'
  done
done

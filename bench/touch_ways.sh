#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# touch_ways.sh: whether a tick's cold lines can be made cheaper by the way they are held or
# fetched, on this machine: the floor (bench/floor.c) plain and touching KIB a tick (a shuffled
# chain, each load waiting for the one before, every SPREAD-th line: KIB x SPREAD of memory) on
# small pages, on 2 MiB huge pages (--huge) and asked for ahead with prefetch instructions before
# the reads (--prefetch), all four at the same time; per way the extra CPU time a tick over the
# plain floor, median (min-max) of ROUNDS. The defaults are a CSV tick's data (~470 lines on ~66
# pages, bench/tick_touch.sh) made worse: 480 lines, 16 lines apart (120 pages).
# usage: bench/touch_ways.sh [SECONDS [INTERVALS_MS [KIB [SPREAD [ROUNDS]]]]]
#   defaults: 15, "10 1000", 30, 16, 3; at 1000 ms a round lasts at least 30 s
#   BENCH_AWAKE=1   an idle-class busy loop on every CPU, so no CPU halts (see bench/lib.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
secs=${1:-15}
intervals=${2:-"10 1000"}
kib=${3:-30}
spread=${4:-16}
rounds=${5:-3}
bench_min_secs "$secs"
cmake --build build --target bench_floor >/dev/null
trap 'bench_awake_stop' EXIT
ways=("plain" "small pages" "huge pages" "prefetched")
opts=("" "--touch $kib --spread $spread" "--touch $kib --spread $spread --huge"
  "--touch $kib --spread $spread --prefetch")
echo "touch ways: $(nproc) CPUs, $kib KiB a tick ($((kib * 16)) lines) on every ${spread}th line," \
  "${secs}s x $rounds rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
bench_awake_start
for ms in $intervals; do
  s=$secs
  [ $((s * 1000 / ms)) -ge 30 ] || s=$((30 * ms / 1000))
  ticks=$(((s + 2) * 1000 / ms))
  out=""
  for _ in $(seq "$rounds"); do
    pids=()
    for o in "${opts[@]}"; do
      # shellcheck disable=SC2086 # the options are words
      ./build/bench_floor -i "$ms" -n "$ticks" $o 2>/dev/null &
      pids+=($!)
    done
    sleep 1
    a=() b=()
    for p in "${pids[@]}"; do a+=("$(cpu_ns "$p")"); done
    sleep $((s - 1))
    for p in "${pids[@]}"; do b+=("$(cpu_ns "$p")"); done
    wait "${pids[@]}" 2>/dev/null || true
    t=$(((s - 1) * 1000 / ms))
    for i in 1 2 3; do
      out+="$i $(((b[0] - a[0]) / t)) $(((b[i] - a[i] - b[0] + a[0]) / t))"$'\n'
    done
  done
  printf '%s' "$out" | sort -k1,1n -k3,3n | awk -v ms="$ms" -v w1="${ways[1]}" -v w2="${ways[2]}" \
    -v w3="${ways[3]}" '
    function flush() { if (n) { m = int((n + 1) / 2); split(w1 "," w2 "," w3, name, ",")
      printf "  %5d ms, %-11s: %+.1f us a tick over the floor (%.0f us) (%+.1f..%+.1f)\n", ms,
        name[k], e[m] / 1000, f[m] / 1000, e[1] / 1000, e[n] / 1000 } n = 0 }
    $1 != k { flush(); k = $1 }
    { n++; f[n] = $2; e[n] = $3 }
    END { flush() }'
done

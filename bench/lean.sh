#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# lean.sh: what printing the sw mode's CSV records costs at all, beside what pmutop's tick costs.
# Four programs at once (the same noise), per interval: the floor (bench/floor.c: the groups and
# /proc/stat read, nothing else), the lean program (bench/floor.c -f csv: the same reads, then
# the records pmutop's batch CSV prints, written by hand with pmutop's number formats: no mode
# tables, expressions, frame or observers), pmutop's batch CSV (-m sw) and `perf stat -a -A -I MS
# -x,` on the same events. CPU time per tick (/proc/PID/schedstat, 0.5 s after the start to
# 1.5 s before the end) and the ratios lean/floor, pmutop/floor, lean/perf, pmutop/perf and
# pmutop/lean: median (min-max) of ROUNDS. First checks that the lean program prints the records
# pmutop prints (CPU, kind, name and state of every line of 5 ticks); stops if not.
# usage: bench/lean.sh [SECONDS [INTERVALS_MS [ROUNDS]]]   defaults: 12, "1000 100 10", 3
#   PMUTOP_BIN=PATH   the pmutop binary (default build/pmutop)
#   BENCH_AWAKE=1     no CPU halts meanwhile (bench/lib.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
secs=${1:-12}
intervals=${2:-"1000 100 10"}
rounds=${3:-3}
bench_min_secs "$secs"
bin=$(bench_bin)
bench_need perf "perf is not installed (apt-get install linux-perf)"
cmake --build build --target bench_floor >/dev/null
lean=./build/bench_floor
events="cpu-clock,context-switches,cpu-migrations,page-faults"
if perf stat -a -e msr/tsc/ true >/dev/null 2>&1; then events="$events,msr/tsc/"; fi
tmp=$(mktemp -d)
trap 'bench_awake_stop; rm -rf "$tmp"' EXIT

# the same records: CPU, kind, name and state of each line
"$lean" -b -m sw -i 20 -n 5 -f csv 2>/dev/null | cut -d, -f3-5,8 >"$tmp/lean.keys"
"$bin" --no-rc -b -m sw -i 20 -n 5 -f csv | cut -d, -f3-5,8 >"$tmp/pmutop.keys"
if ! cmp -s "$tmp/lean.keys" "$tmp/pmutop.keys"; then
  echo "lean.sh: the lean program's records differ from pmutop's (diff lean pmutop):"
  diff "$tmp/lean.keys" "$tmp/pmutop.keys" | head -20
  exit 1
fi

round() { # MS: one line "MS FLOOR LEAN PMUTOP PERF" (ns a tick) into $tmp/runs
  local ms=$1 n=$(((secs * 1000) / ms + 10)) p=() a=() b=() i
  ./build/bench_floor -i "$ms" -n "$n" >/dev/null 2>&1 &
  p+=($!)
  "$lean" -b -m sw -i "$ms" -n "$n" -f csv >/dev/null 2>&1 &
  p+=($!)
  "$bin" --no-rc -b -m sw -i "$ms" -n "$n" -f csv >/dev/null 2>&1 &
  p+=($!)
  perf stat -a -A -x, -I "$ms" -e "$events" -o /dev/null -- sleep "$secs" &
  p+=($!)
  sleep 0.5
  for i in "${!p[@]}"; do a[i]=$(cpu_ns "${p[i]}"); done
  sleep $((secs - 2))
  for i in "${!p[@]}"; do b[i]=$(cpu_ns "${p[i]}"); done
  kill "${p[@]::3}" 2>/dev/null || true
  wait "${p[@]}" 2>/dev/null || true
  local ticks=$(((secs - 2) * 1000 / ms))
  echo "$ms $(((b[0] - a[0]) / ticks)) $(((b[1] - a[1]) / ticks)) $(((b[2] - a[2]) / ticks))" \
    "$(((b[3] - a[3]) / ticks))" >>"$tmp/runs"
}

echo "lean: $(nproc) CPUs, ${secs}s a round, $rounds rounds, $bin, $(perf --version);" \
  "events $events; load $(cut -d' ' -f1-3 /proc/loadavg)"
bench_awake_start
for rd in $(seq "$rounds"); do
  for ms in $intervals; do round "$ms"; done
done
sort -k1,1nr -s "$tmp/runs" | awk '
  function isort(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
  function med(a, n) { isort(a, n); return a[int((n + 1) / 2)] }
  function cell(name, a,   m) { m = med(a, n); return sprintf("%s %.2f (%.2f-%.2f)", name, m, a[1], a[n]) }
  function flush() {
    if (!n) return
    printf "%5d ms  us a tick: floor %.0f, lean %.0f, pmutop %.0f, perf stat %.0f\n", ms,
      med(f, n) / 1000, med(l, n) / 1000, med(p, n) / 1000, med(s, n) / 1000
    printf "          %s  %s  %s\n", cell("lean/floor", lf), cell("pmutop/floor", pf), cell("pmutop/lean", pl)
    printf "          %s  %s\n", cell("lean/perf", ls), cell("pmutop/perf", ps)
    n = 0
  }
  $1 != ms { flush(); ms = $1 }
  { n++; f[n] = $2; l[n] = $3; p[n] = $4; s[n] = $5
    lf[n] = $3 / $2; pf[n] = $4 / $2; pl[n] = $4 / $3; ls[n] = $3 / $5; ps[n] = $4 / $5 }
  END { flush() }'

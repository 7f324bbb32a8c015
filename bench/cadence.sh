#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# cadence.sh: how late pmutop's 10 ms ticks come with every CPU loaded, beside perf stat -I 10
# run at the same time: a busy loop per CPU (stress-ng --cpu N, nice 0), then pmutop -b -m sw
# -i 10 (CSV) and perf stat -a -I 10 -e cpu-clock for SECONDS each, together. From each
# program's own timestamps: the interval error (each interval's length - 10 ms; perf sleeps
# relative to its last wake, so this is the figure both have) as p50 / p99 / max, and for
# pmutop also its lateness against its absolute 10 ms grid. ROUNDS rounds.
# usage: bench/cadence.sh [SECONDS [ROUNDS [PMUTOP_ARGS...]]]  defaults: 20 s, 3, none
# e.g. bench/cadence.sh 20 3 --realtime
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
secs=${1:-20}
rounds=${2:-3}
shift $(($# > 2 ? 2 : $#))
bin=$(bench_bin)
bench_need stress-ng "stress-ng is needed (apt-get install stress-ng)" 2
bench_need perf "perf is needed (apt-get install linux-perf)" 2
tmp=$(mktemp -d)
load=
cleanup() { [ -z "$load" ] || kill "$load" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
ncpu=$(nproc)
ticks=$((secs * 100))

# stats LABEL: reads one number (ms) a line, prints p50 / p99 / max
stats() {
  sort -g | awk -v l="$1" '{ v[NR] = $1 } END {
    if (!NR) { printf "  %-34s (no data)\n", l; exit }
    printf "  %-34s p50 %6.3f  p99 %6.3f  max %6.3f ms  (%d ticks)\n", l,
      v[int(NR * 0.5) + (NR * 0.5 > int(NR * 0.5))], v[int(NR * 0.99) + (NR * 0.99 > int(NR * 0.99))], v[NR], NR }'
}

echo "pmutop $("$bin" --version | head -1 | cut -d' ' -f2); $ncpu CPUs, all loaded (stress-ng --cpu $ncpu); 10 ms; ${secs} s x $rounds; pmutop args: ${*:-none}"
for ((r = 1; r <= rounds; r++)); do
  stress-ng --cpu "$ncpu" --timeout $((secs + 5))s >/dev/null 2>&1 &
  load=$!
  sleep 1
  "$bin" -b --no-rc -m sw -i 10 -n "$ticks" -f csv "$@" >"$tmp/p.csv" 2>"$tmp/p.err" &
  p=$!
  perf stat -a -I 10 -e cpu-clock -x, -o "$tmp/perf.csv" -- sleep "$secs" 2>/dev/null &
  q=$!
  wait $p || { echo "pmutop failed: $(cat "$tmp/p.err")"; exit 1; }
  wait $q || true
  kill "$load" 2>/dev/null || true
  wait "$load" 2>/dev/null || true
  load=
  echo "round $r:"
  # pmutop: one timestamp per record (the first CSV column, the first CPU's lines)
  awk -F, 'NR > 1 && $1 != last { print $1; last = $1 }' "$tmp/p.csv" >"$tmp/p.t"
  awk 'NR > 1 { printf "%.6f\n", ($1 - prev) * 1000 - 10 } { prev = $1 }' "$tmp/p.t" |
    stats "pmutop interval error"
  # past the latest deadline of its 10 ms grid, as pmutop counts it (a deadline passed
  # without a tick is a missed tick)
  awk '{ t = $1 * 1000; printf "%.6f\n", t - 10 * int(t / 10) }' "$tmp/p.t" |
    stats "pmutop lateness (absolute grid)"
  awk '{ k = int($1 * 100) } NR > 1 && k > prev + 1 { m += k - prev - 1 } { prev = k }
    END { printf "  %-34s %d\n", "pmutop missed ticks", m }' "$tmp/p.t"
  awk -F, '$1 ~ /^ *[0-9]/ { print $1 }' "$tmp/perf.csv" >"$tmp/q.t"
  awk 'NR > 1 { printf "%.6f\n", ($1 - prev) * 1000 - 10 } { prev = $1 }' "$tmp/q.t" |
    stats "perf stat -I 10 interval error"
  awk 'END { printf "  %-34s %.1f ms behind its grid after %d intervals\n", "perf stat drift", ($1 - NR * 0.010) * 1000, NR }' "$tmp/q.t"
done

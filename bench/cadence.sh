#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# cadence.sh: how late pmutop's 10 ms ticks come with every CPU loaded, beside perf stat -I 10
# run at the same time: a busy loop per CPU (stress-ng --cpu N, nice 0), then pmutop -b -m sw
# -i 10 (CSV) and perf stat -a -I 10 -e cpu-clock for SECONDS each, together. From each
# program's own timestamps: the interval error (each interval's length - 10 ms; perf sleeps
# relative to its last wake, so this is the figure both have) as p50 / p99 / max, and for
# pmutop also its lateness against its absolute 10 ms grid. ROUNDS rounds.
# Beside them the floor (bench/floor.c: a timerfd loop with the same reads, -i 10) runs, and
# `perf sched record -a` takes the kernel's sched tracepoints meanwhile: `perf sched timehist`
# gives per wake-up of pmutop and of the floor the time from sched_waking (the timer's expiry
# wakes the task) to sched_switch onto a CPU ("wakeup to run") and the time it then ran ("run
# per switch in"), as p50 / p99 / max, and for the waits over 1 ms what that CPU ran meanwhile
# (the load, this benchmark's programs, other tasks, idle); /proc/stat gives the vCPUs' steal
# time. If the floor waits as long as pmutop, the lateness is the scheduler's, not pmutop's work.
# CADENCE_LOAD prefixes the load's command line (e.g. "setsid" for a session and so an autogroup
# of its own, "chrt -b 0" for SCHED_BATCH, "nice -n 19"); default none: the load runs in this
# script's session, as a user's shell would start it.
# usage: bench/cadence.sh [SECONDS [ROUNDS [PMUTOP_ARGS...]]]  defaults: 20 s, 3, none
# e.g. bench/cadence.sh 20 3 --realtime;  CADENCE_LOAD=setsid bench/cadence.sh 20 3
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
secs=${1:-20}
rounds=${2:-3}
shift $(($# > 2 ? 2 : $#))
bin=$(bench_bin)
cmake --build build --target bench_floor >/dev/null
floor=./build/bench_floor
read -r -a load_pre <<<"${CADENCE_LOAD:-}"
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

# steal: PREV_LINE NOW_LINE (the "cpu" lines of /proc/stat): % of the CPUs' time stolen
steal() { awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x); split(b, y); t = 0
  for (i = 2; i <= n; i++) t += y[i] - x[i]
  printf "  %-34s %.2f %% of the vCPU time\n", "steal (/proc/stat)", t ? 100 * (y[9] - x[9]) / t : 0 }'; }
# sched PID LABEL: wakeup-to-run and run-per-switch-in of PID from the kernel's sched
# tracepoints, and for the waits over 1 ms what the CPU that PID then ran on did meanwhile: the load
# (stress-ng), this benchmark's programs (perf, pmutop, the floor), other tasks, idle
sched() {
  perf sched timehist -i "$tmp/sched.data" -p "$1" 2>/dev/null | awk 'NR > 3 && $5 ~ /^[0-9.]+$/' >"$tmp/th"
  awk '{ print $5 }' "$tmp/th" | stats "$2 wakeup to run (sched)" | sed 's/ticks)$/switches in)/'
  awk '{ print $6 }' "$tmp/th" | stats "$2 run per switch in (sched)" | sed 's/ticks)$/switches in)/'
  awk -v pid="$1" -v l="$2 waits > 1 ms, CPU ran" '
  { cpu = $0; sub(/^.*\[/, "", cpu); sub(/\].*$/, "", cpu); cpu += 0
    t = $0; sub(/^.*\] +/, "", t); sub(/:.*$/, "", t); t += 0 }
  /sched_waking:/ { if (!w && $0 ~ ("pid=" pid " ")) { w = 1; t0 = t; delete acc } next }
  /sched_switch:/ {
    prev = $0; sub(/^.*prev_comm=/, "", prev); sub(/ prev_pid=.*$/, "", prev)
    pp = $0; sub(/^.*prev_pid=/, "", pp); sub(/ .*$/, "", pp)
    np = $0; sub(/^.*next_pid=/, "", np); sub(/ .*$/, "", np)
    k = pp == 0 ? "idle" : prev ~ /^stress-ng/ ? "load" : prev ~ /^(perf|pmutop|bench_floor)$/ ? "bench" : "other"
    if (w && (cpu in last)) acc[cpu, k] += t - (last[cpu] > t0 ? last[cpu] : t0)
    last[cpu] = t
    if (np == pid && w) {
      w = 0
      if (t - t0 > 0.001) { n++; for (x in acc) { split(x, a, SUBSEP); if (a[1] == cpu) s[a[2]] += acc[x] } }
    } }
  END { tot = s["load"] + s["bench"] + s["other"] + s["idle"]; d = tot ? tot : 1
    printf "  %-34s %d waits: the load %.0f %%, this benchmark %.0f %%, other tasks %.0f %%, idle %.0f %% of %.0f ms\n",
      l, n, 100 * s["load"] / d, 100 * s["bench"] / d, 100 * s["other"] / d, 100 * s["idle"] / d, tot * 1000 }' "$tmp/sched.txt"
}

echo "pmutop $("$bin" --version | head -1 | cut -d' ' -f2); $ncpu CPUs, all loaded (${CADENCE_LOAD:+$CADENCE_LOAD }stress-ng --cpu $ncpu); 10 ms; ${secs} s x $rounds; pmutop args: ${*:-none}; $(uname -r); autogroup $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo n/a)"
for ((r = 1; r <= rounds; r++)); do
  ${load_pre[@]+"${load_pre[@]}"} stress-ng --cpu "$ncpu" --timeout $((secs + 5))s >/dev/null 2>&1 &
  load=$!
  sleep 1
  "$bin" -b --no-rc -m sw -i 10 -n "$ticks" -f csv "$@" >"$tmp/p.csv" 2>"$tmp/p.err" &
  p=$!
  "$floor" -i 10 -n "$ticks" 2>/dev/null &
  f=$!
  perf stat -a -I 10 -e cpu-clock -x, -o "$tmp/perf.csv" -- sleep "$secs" 2>/dev/null &
  q=$!
  s0=$(head -1 /proc/stat)
  perf sched record -a -o "$tmp/sched.data" -- sleep $((secs - 2)) >/dev/null 2>&1 || true
  s1=$(head -1 /proc/stat)
  wait $p || { echo "pmutop failed: $(cat "$tmp/p.err")"; exit 1; }
  wait $q || true
  wait $f || true
  kill "$load" 2>/dev/null || true
  wait "$load" 2>/dev/null || true
  load=
  echo "round $r: (load average $(cut -d" " -f1 /proc/loadavg))"
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
  if [ -s "$tmp/sched.data" ]; then
    perf script -i "$tmp/sched.data" -F comm,pid,tid,cpu,time,event,trace 2>/dev/null |
      grep -E 'sched_(switch|waking):' >"$tmp/sched.txt" || true
    sched $p pmutop
    sched $f floor
  else
    echo "  (perf sched record failed: no wakeup-to-run figures)"
  fi
  steal "$s0" "$s1"
done

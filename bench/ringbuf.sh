#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ringbuf.sh: --sample on every CPU at 1 kHz and 10 kHz, the sampling ring path (a cpu-clock
# leader per CPU, samples in mmap rings drained by the loop) against the read() path (a read()
# of every CPU's group per sample, cross-CPU reads included), both running at the same time
# (same noise) with the same four software events. Per rate and path: pmutop's CPU share (from
# /proc/PID/stat utime+stime, and the on-CPU ns of /proc/PID/task/*/schedstat), samples missed
# (periods without a sample: loop overruns for read(), timer periods without a sample and ring
# overruns (PERF_RECORD_LOST) for the ring), p99 lateness (median over the refreshes) and the
# mean sample period measured, the longest window (interval_ms: a 1 s refresh should last 1000 ms);
# then the CPU ratio ring/read per round (bench/lib.sh).
# usage: bench/ringbuf.sh [SECONDS_PER_ROUND [ROUNDS [PERIODS]]]   defaults: 10, 3, "1ms" ("1ms 100us" adds 10 kHz)
# RATE=N (root): kernel.perf_event_max_sample_rate lowered to N for the run (restored at exit), so
# the kernel throttles the sampling groups (500: most of every window at 10 kHz) as on idle CPUs.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
secs=${1:-10}
rounds=${2:-3}
periods=${3:-"1ms"}
bin=$(bench_bin)
bench_min_secs "$secs"
bench_need jq "jq is needed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${RATE:-}" ]; then
  rate_file=/proc/sys/kernel/perf_event_max_sample_rate
  old_rate=$(cat "$rate_file")
  echo "$RATE" >"$rate_file" || { echo "ringbuf.sh: RATE needs root" >&2; exit 1; }
  trap 'echo "$old_rate" >"$rate_file"; rm -rf "$tmp"' EXIT
fi
hz=$(getconf CLK_TCK)
DEF="define eq c=perf::CPU-CLOCK,t=perf::TASK-CLOCK,s=perf::CONTEXT-SWITCHES,f=perf::PAGE-FAULTS cs=s/interval"
stat_ticks() { # utime + stime of PID, clock ticks
  awk '{ sub(/^.*\) /, ""); print $12 + $13 }' /proc/"$1"/stat
}
rate_name() { case $1 in *us) echo "$((1000000 / ${1%us}))Hz" ;; *ms) echo "$((1000 / ${1%ms}))Hz" ;; esac; }

round() { # PERIOD ROUND
  local per=$1 rd=$2 name pids=() s1=() s2=() n1=() n2=()
  name=$(rate_name "$per")
  for path in ring read; do
    "$bin" --no-rc -b -n "$secs" -i 1000 --sample "$per" --sample-path $path --flight 0 \
      -m sw -c "$DEF" -f json >"$tmp/$name-$path-$rd.json" 2>/dev/null &
    pids+=($!)
  done
  sleep 1.5
  for p in "${pids[@]}"; do s1+=("$(stat_ticks "$p")"); n1+=("$(cpu_ns "$p")"); done
  local t0=$EPOCHREALTIME
  sleep $((secs - 3))
  for p in "${pids[@]}"; do s2+=("$(stat_ticks "$p")"); n2+=("$(cpu_ns "$p")"); done
  local t1=$EPOCHREALTIME
  wait
  local wall_ms
  wall_ms=$(echo "$t0 $t1" | awk '{ printf "%d", ($2 - $1) * 1000 }')
  local i=0
  for path in ring read; do
    jq -s -r --arg rate "$name" --arg path $path --arg rd "$rd" \
      --argjson cpu_stat "$(echo "${s1[i]} ${s2[i]} $hz $wall_ms" | awk '{ printf "%.3f", ($2 - $1) / $3 * 1000 / $4 * 100 }')" \
      --argjson cpu_ns "$(echo "${n1[i]} ${n2[i]} $wall_ms" | awk '{ printf "%.3f", ($2 - $1) / 1e6 / $3 * 100 }')" '
      (.[-1].self) as $s
      | [$rate, $path, $rd, $cpu_stat, $cpu_ns, ($s.missed // 0), ($s.lost // 0),
         ([.[1:][].self.lateness_p99_ms] | sort | .[length / 2 | floor] // null),
         ([.[].self.measured_ms] | add / length),
         ([.[].interval_ms] | max)] | @tsv' "$tmp/$name-$path-$rd.json" >>"$tmp/rows"
    i=$((i + 1))
  done
  # ratio_table: MS KEY1 KEY2 RING_NS READ_NS TICKS (samples per CPU in the span)
  local ticks
  ticks=$(echo "$wall_ms $per" | awk '{ p = $2; u = p ~ /us$/ ? 1 : 1000; sub(/[a-z]+$/, "", p); printf "%d", $1 * 1000 / (p * u) }')
  echo "1000 $name ring/read $((n2[0] - n1[0])) $((n2[1] - n1[1])) $ticks" >>"$tmp/ratios"
}

echo "pmutop $("$bin" --version | head -1 | cut -d' ' -f2); $(nproc) CPUs, $(uname -r);" \
  "${secs}s per round, $rounds rounds; load $(cut -d' ' -f1-3 /proc/loadavg)${RATE:+; perf_event_max_sample_rate $RATE}"
for rd in $(seq "$rounds"); do
  for per in $periods; do round "$per" "$rd"; done
done
echo
echo "per rate and path, the median over rounds (min-max):"
printf "%-8s %-5s %18s %18s %14s %14s %18s %16s %22s\n" rate path "cpu % (stat)" "cpu % (schedstat)" missed lost "p99 late ms" "period ms" "longest window ms"
sort -k1,1 -k2,2r "$tmp/rows" | awk -F'\t' '
  function isort(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
  function med(a, n) { isort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  function cell(a, n, f,   m) { m = med(a, n); return sprintf(f " (" f "-" f ")", m, a[1], a[n]) }
  function flush() {
    if (!key) return
    printf "%-8s %-5s %18s %18s %14s %14s %18s %16s %22s\n", r, p, cell(c1, n, "%.2f"), cell(c2, n, "%.2f"),
      cell(m, n, "%d"), cell(l, n, "%d"), cell(q, n, "%.3f"), sprintf("%.4f", med(per, n)), cell(w, n, "%.1f")
    delete c1; delete c2; delete m; delete l; delete q; delete per; delete w; n = 0
  }
  { k = $1 " " $2; if (k != key) { flush(); key = k; r = $1; p = $2 }
    n++; c1[n] = $4; c2[n] = $5; m[n] = $6; l[n] = $7; q[n] = $8; per[n] = $9; w[n] = $10 }
  END { flush() }'
echo
echo "CPU time per sample period (all CPUs), ring against read() (pmutop = the ring path):"
sort -k2,2 "$tmp/ratios" | ratio_table read

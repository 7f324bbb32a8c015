#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# read_split.sh: pmutop's CPU time per tick against the floor's (bench/floor.c), split into the
# time inside read() of the perf counter groups and everything else. The floor and pmutop's
# batch writers run at the same time (as floor.sh); bpftrace times every read() of every one of
# them by file descriptor (syscalls:sys_enter_read .. sys_exit_read), and the descriptors that
# are perf events (/proc/PID/fd) give the group reads. A group read of another CPU waits for an
# IPI; on a virtual machine that wait is the host's and follows the other programs' timing, so
# the plain ratio swings from one run to the next. The "reads equal" ratio replaces pmutop's
# read time by the floor's: (floor's CPU + pmutop's other time - the floor's other time) / the
# floor's CPU, i.e. what pmutop costs beyond the floor when the same reads cost the same.
# The read times are wall time in the system call (a read spins in the kernel while it waits).
# usage: bench/read_split.sh [SECONDS [INTERVAL_MS [FORMATS [ROUNDS]]]]
#   defaults: 12, 10, "csv json openmetrics", 3
#   PMUTOP_BINS="before=PATH after=PATH"   several binaries in the same rounds
#   BENCH_AWAKE=1   an idle-class busy loop on every CPU, so no CPU halts (see bench/lib.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
secs=${1:-12}
ms=${2:-10}
formats=${3:-"csv json openmetrics"}
rounds=${4:-3}
bins=${PMUTOP_BINS:-"pmutop=./build/pmutop"}
bench_min_secs "$secs"
bench_need bpftrace "bpftrace is not installed (Debian: apt-get install bpftrace)"
[ "$(id -u)" = 0 ] || { echo "bpftrace needs root" >&2; exit 1; }
bench_first_bin "$bins" >/dev/null
cmake --build build --target bench_floor >/dev/null
tmp=$(mktemp -d)
trap 'bench_awake_stop; rm -rf "$tmp"' EXIT
ticks=$(((secs + 2) * 1000 / ms))

perf_fds() { # PID: the process's perf event descriptors, one a line
  local f
  for f in /proc/"$1"/fd/*; do
    [ "$(readlink "$f" 2>/dev/null)" = "anon_inode:[perf_event]" ] && echo "${f##*/}"
  done
  return 0
}

round() { # ROUND: one line per process into $tmp/split: NAME CPU_NS TICKS READ_NS READS
  local pids=() names=() filter="" i
  bench_start_batch "$ms" "$ticks" "$bins" "$formats"
  pids=("${BENCH_PIDS[@]}")
  names=("${BENCH_NAMES[@]// /-}")
  sleep 1
  for i in "${!pids[@]}"; do
    filter+="${filter:+ || }pid == ${pids[i]}"
    perf_fds "${pids[i]}" | sed "s/^/${pids[i]} /" >>"$tmp/fds"
  done
  local a=() b=() t0 t1
  for i in "${!pids[@]}"; do a+=("$(cpu_ns "${pids[i]}")"); done
  t0=$(date +%s%N)
  # (the maps are printed when bpftrace is interrupted: "@t[PID, FD]: NS", "@n[PID, FD]: N")
  (ulimit -l unlimited 2>/dev/null || true
   timeout -s INT "$((secs - 2))" bpftrace -e "
    tracepoint:syscalls:sys_enter_read /$filter/ { @fd[tid] = args->fd; @s[tid] = nsecs; }
    tracepoint:syscalls:sys_exit_read /@s[tid]/ {
      @t[pid, @fd[tid]] = sum(nsecs - @s[tid]); @n[pid, @fd[tid]] = count();
      delete(@s[tid]); delete(@fd[tid]); }" >"$tmp/bt" 2>"$tmp/bt.err" || true)
  t1=$(date +%s%N)
  for i in "${!pids[@]}"; do b+=("$(cpu_ns "${pids[i]}")"); done
  kill "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
  grep -q '^@t\[' "$tmp/bt" || { echo "bpftrace recorded nothing:" >&2; cat "$tmp/bt.err" >&2; exit 1; }
  for i in "${!pids[@]}"; do
    # read time and count over the process's perf descriptors
    awk -v p="${pids[i]}" -v name="${names[i]}" -v cpu="$((b[i] - a[i]))" \
      -v ticks="$(((t1 - t0) / (ms * 1000000)))" '
      FILENAME ~ /fds$/ { if ($1 == p) perf[$2] = 1; next }
      { gsub(/[@\[\],:]/, " ") }
      $1 == "t" && $2 == p && ($3 in perf) { ns += $4 }
      $1 == "n" && $2 == p && ($3 in perf) { if ($4 > reads) reads = $4 }
      END { print name, cpu, ticks, ns + 0, reads + 0 }' "$tmp/fds" "$tmp/bt" >>"$tmp/split"
  done
  rm -f "$tmp/fds"
}

echo "read_split: pmutop $("$(bench_first_bin "$bins")" --version | head -1 | cut -d' ' -f2) and" \
  "the floor at ${ms} ms, $(nproc) CPUs, ${secs}s per round, $rounds rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
bench_awake_start
for rd in $(seq "$rounds"); do round "$rd"; done
# Per round: each process's us per tick in all, in group reads (per read() of the busiest
# descriptor: a tick's reads), and outside them; then per process the medians over the rounds
# and the two ratios against the floor of the same round.
awk '
  function isort(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
  function med(a, k, n,   v, i) { for (i = 1; i <= n; i++) v[i] = a[k, i]; isort(v, n); return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
  $1 == "floor" { r++; fcpu = $2 / $3; fread = ($5 > 0 ? $4 / $5 : 0); foth = fcpu - fread }
  { cpu = $2 / $3; rd = ($5 > 0 ? $4 / $5 : 0); oth = cpu - rd
    if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
    c[$1, r] = cpu / 1000; q[$1, r] = rd / 1000; o[$1, r] = oth / 1000
    plain[$1, r] = cpu / fcpu; equal[$1, r] = (fcpu + oth - foth) / fcpu }
  END {
    printf "%-18s %9s %9s %9s %7s %12s\n", "us per tick:", "in all", "reads", "other", "/floor", "reads equal"
    for (i = 1; i <= n; i++) { k = order[i]
      printf "%-18s %9.1f %9.1f %9.1f %7.2f %12.2f\n", k, med(c, k, r), med(q, k, r), med(o, k, r),
        med(plain, k, r), med(equal, k, r) } }' "$tmp/split"
echo "(medians of $rounds rounds; the ratios are per round, against the floor of the same round)"

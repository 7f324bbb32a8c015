# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh: helpers the benchmarks share (sourced). A benchmark starts
#   set -euo pipefail
#   cd "$(dirname "$0")/.."
#   source bench/lib.sh
# or, when it stays in the caller's directory, sources "$ROOT/bench/lib.sh".

# bench_bin: pmutop's absolute path: PMUTOP_BIN, else the repository's build/pmutop, which is
# built when it is not there.
bench_bin() {
  local root b
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  b=${PMUTOP_BIN:-$root/build/pmutop}
  [ -x "$b" ] || (cd "$root" && bash scripts/build.sh >/dev/null)
  realpath "$b"
}

# bench_first_bin BINS: the path of the first of BINS ("name=path ..."); build/pmutop is built
# when it is not there.
bench_first_bin() {
  local first=${1%% *}
  first=${first#*=}
  [ -x "$first" ] || bash scripts/build.sh >/dev/null
  echo "$first"
}

# bench_need TOOL WHY [STATUS]: ends the benchmark with WHY (exit STATUS, default 1) when TOOL is
# not on PATH.
bench_need() {
  command -v "$1" >/dev/null || { echo "$2" >&2; exit "${3:-1}"; }
}

# bench_min_secs SECS: ends the benchmark (exit 2) when its rounds of SECS are under 4 s.
bench_min_secs() {
  [ "$1" -ge 4 ] || { echo "rounds need at least 4 s" >&2; exit 2; }
}

cpu_ns() { # on-CPU time of a process and its threads, ns (schedstat)
  local pid=$1 total=0
  for t in /proc/"$pid"/task/*/schedstat; do
    read -r ns _ < "$t" && total=$((total + ns))
  done
  echo "$total"
}

# ratio_table OTHER: reads lines "MS KEY1 KEY2 PMUTOP_NS OTHER_NS TICKS" (one per round, sorted
# so that a key's rounds are together) and prints per key pmutop's and OTHER's us per tick
# (medians) and the ratio's median, min and max.
ratio_table() {
  awk -v other="$1" '
  function isort(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
  function med(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  function flush() {
    if (!key) return
    isort(r, n); isort(p, n); isort(q, n)
    printf "%5d ms %-8s %-11s: pmutop %8.1f us/tick  %s %7.1f us/tick  pmutop/%s = %5.2f (min %.2f, max %.2f)\n",
      ms, k1, k2, med(p, n) / 1000, other, med(q, n) / 1000, other, med(r, n), r[1], r[n]
    delete r; delete p; delete q; n = 0
  }
  { k = $1 " " $2 " " $3
    if (k != key) { flush(); key = k; ms = $1; k1 = $2; k2 = $3 }
    n++; p[n] = $4 / $6; q[n] = $5 / $6; r[n] = ($5 > 0 ? $4 / $5 : 0) }
  END { flush() }'
}

# bench_awake_start: with BENCH_AWAKE=1, a busy loop pinned to each CPU at the idle scheduling
# class (SCHED_IDLE: any other task runs first), so no CPU ever halts. A cross-CPU read() then
# interrupts a running CPU instead of waking a halted one, whose cost on a virtual machine is
# the host's (tens to hundreds of us a read) and follows the other programs' timing, not the
# reader's code. Sets BENCH_AWAKE_PIDS; bench_awake_stop ends them. Prints what it did.
BENCH_AWAKE_PIDS=()
bench_awake_start() {
  [ "${BENCH_AWAKE:-0}" = 1 ] || return 0
  bench_need chrt "BENCH_AWAKE=1 needs chrt (util-linux)"
  bench_need taskset "BENCH_AWAKE=1 needs taskset (util-linux)"
  local c cpus p
  # the CPUs this script may run on (its affinity list, "0-3,6" -> 0 1 2 3 6)
  cpus=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
    awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }')
  for c in $cpus; do
    taskset -c "$c" chrt -i 0 sh -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &
    BENCH_AWAKE_PIDS+=($!)
  done
  sleep 0.2
  for p in "${BENCH_AWAKE_PIDS[@]}"; do
    kill -0 "$p" 2>/dev/null || { echo "BENCH_AWAKE=1: a busy loop did not start" >&2; exit 1; }
  done
  echo "awake: an idle-class busy loop on each of CPUs" $cpus "(BENCH_AWAKE=1)"
}
bench_awake_stop() {
  [ "${#BENCH_AWAKE_PIDS[@]}" -gt 0 ] || return 0
  kill "${BENCH_AWAKE_PIDS[@]}" 2>/dev/null || true
  BENCH_AWAKE_PIDS=()
}

# bench_start_batch MS TICKS BINS FORMATS [FLOOR_OPTS...]: starts the floor (build/bench_floor
# at MS ms for TICKS ticks; one instance per FLOOR_OPTS, a string of its options, or one without
# options when none is given) and, for each binary of BINS ("name=path ...") and each of
# FORMATS, pmutop's batch front end in the sw mode at the same interval and tick count, all in
# the background with their output discarded. Sets BENCH_PIDS (the floors first, in FLOOR_OPTS'
# order, then the front ends, binary by binary) and BENCH_NAMES ("floor", or "NAME FORMAT").
BENCH_PIDS=()
BENCH_NAMES=()
bench_start_batch() {
  local ms=$1 ticks=$2 bins=$3 formats=$4 lb bin fr opts
  shift 4
  BENCH_PIDS=()
  BENCH_NAMES=()
  [ $# -gt 0 ] || set -- ""
  for opts in "$@"; do
    # shellcheck disable=SC2086 # (opts is a list of options)
    ./build/bench_floor -i "$ms" -n "$ticks" $opts >/dev/null 2>&1 &
    BENCH_PIDS+=($!)
    BENCH_NAMES+=(floor)
  done
  for lb in $bins; do
    bin=$(realpath "${lb#*=}")
    for fr in $formats; do
      "$bin" --no-rc -b -m sw -i "$ms" -n "$ticks" -f "$fr" >/dev/null 2>&1 &
      BENCH_PIDS+=($!)
      BENCH_NAMES+=("${lb%%=*} $fr")
    done
  done
}

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# taskview.sh: the cost of the screen's task view listing 200 tasks at 1 s, against perf stat -p
# over the same tasks at the same time. 200 tasks are started that each run briefly (so the view
# lists them: it lists tasks that used CPU time, and keeps those counted while there is room),
# then sleep; pmutop runs on a tmux screen with `:set tasks 200` and `:view tasks`, perf stat
# -p with their PIDs and -I 1000, and pmutop -p with them on a second screen (counting without the
# list); all count cpu-clock, context-switches and page-faults.
# usage: bench/taskview.sh [SECONDS [TASKS]]   (defaults: 30 s, 200)
# CPU time is the on-CPU ns of every thread (/proc/PID/task/*/schedstat) from 15 s after the
# start (the list filled) to the end. Prints each as % of one core, their ratio, and how many
# tasks pmutop counted at the end (its perf descriptors / 3). See bench/README.md for figures.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
secs=${1:-30}
ntasks=${2:-200}
bin=$(bench_bin)
bench_need perf "perf is not installed (apt-get install linux-perf)"
bench_need tmux "tmux is not installed"
ev=cpu-clock,context-switches,page-faults
sock=pmutop-bench-$$
tmp=$(mktemp -d)
pids=()
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

tmux -L "$sock" -f /dev/null new-session -d -x 150 -y 50 \
  "TERM=xterm-256color '$bin' --no-rc -e $ev -i 1s -c 'set tasks $ntasks' -c 'view tasks' 2>'$tmp/err'"
sleep 2
pm=$(pgrep -n -f "^$bin --no-rc -e $ev" || true)
[ -n "$pm" ] || { echo "pmutop did not start: $(cat "$tmp/err")"; exit 1; }
# the tasks: a run of some 100 ms each (caught by the view's scan of /proc, which sees clock
# ticks of 10 ms), then asleep; 20 a second
for i in $(seq 1 "$ntasks"); do
  sh -c 'i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done; exec sleep 100000' &
  pids+=($!)
  [ $((i % 20)) -eq 0 ] && sleep 1
done
list=$(IFS=,; echo "${pids[*]}")
perf stat -p "$list" -e "$ev" -I 1000 -o /dev/null &
pp=$!
# the same tasks given with -p on a second screen: what counting them costs without the list
tmux -L "$sock" new-window -d "TERM=xterm-256color '$bin' --no-rc -e $ev -i 1s -p '$list' 2>/dev/null"
sleep 5
pg=$(pgrep -n -f "^$bin --no-rc -e $ev -i 1s -p" || true)
[ -n "$pg" ] || { echo "pmutop -p did not start"; exit 1; }
a_pm=$(cpu_ns "$pm") a_pp=$(cpu_ns "$pp") a_pg=$(cpu_ns "$pg") ta=$(date +%s%N)
sleep "$secs"
b_pm=$(cpu_ns "$pm") b_pp=$(cpu_ns "$pp") b_pg=$(cpu_ns "$pg") tb=$(date +%s%N)
counted=$(ls -l /proc/"$pm"/fd 2>/dev/null | grep -c 'perf_event' || true)
kill "$pp" 2>/dev/null || true
python3 - "$((b_pm - a_pm))" "$((b_pp - a_pp))" "$((tb - ta))" "$counted" "$ntasks" "$((b_pg - a_pg))" <<'PY'
import sys
pm, pp, span, fds, n, pg = (int(x) for x in sys.argv[1:])
print(f"task view, {n} tasks asked, {fds // 3} counted at the end ({fds} perf descriptors), 1 s, {span / 1e9:.1f} s:")
print(f"  pmutop (screen)  {100 * pm / span:7.3f} % of a core")
print(f"  perf stat -p     {100 * pp / span:7.3f} % of a core")
print(f"  pmutop -p (screen, the same tasks, no list) {100 * pg / span:7.3f} % of a core")
print(f"  pmutop/perf stat = {pm / pp if pp else float('nan'):.2f}")
PY

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# cgroups.sh: the cost of counting many cgroups and tasks, against perf stat over the same ones.
# 100 cgroups (made here, empty, under the cgroup hierarchy perf counts) at 1 s: pmutop -b
# --for-each-cgroup and perf stat --for-each-cgroup -I 1000, the same three software events,
# each as % of one core; then pmutop -b -p over 200 sleeping tasks at 1 s.
# usage (root): bench/cgroups.sh [SECONDS [CGROUPS [TASKS]]]   (defaults: 20 s, 100, 200)
# CPU time is the on-CPU ns of every thread (/proc/PID/task/*/schedstat) between 2 s after the
# start and the end. Cgroups and tasks are removed on exit. See bench/README.md for figures.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
secs=${1:-20}
ncg=${2:-100}
ntasks=${3:-200}
bin=$(bench_bin)
ev=cpu-clock,context-switches,page-faults

root=$(awk '$3 == "cgroup" && $4 ~ /perf_event/ { print $2; exit }' /proc/self/mounts)
[ -n "$root" ] || root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$root" ] || { echo "no cgroup hierarchy"; exit 2; }
base=pmutop-bench-$$
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for i in $(seq 1 "$ncg"); do rmdir "$root/$base/g$i" 2>/dev/null || true; done
  rmdir "$root/$base" 2>/dev/null || true
}
trap cleanup EXIT
mkdir "$root/$base"
for i in $(seq 1 "$ncg"); do mkdir "$root/$base/g$i"; done
groups=$(for i in $(seq 1 "$ncg"); do printf '%s/g%d,' "$base" "$i"; done)
groups=${groups%,}

measure() { # LABEL PID: % of a core from 2 s after the start to the end
  local label=$1 pid=$2
  sleep 2
  local a1 t1 a2 t2
  a1=$(cpu_ns "$pid"); t1=$(date +%s%N)
  sleep $((secs - 2))
  a2=$(cpu_ns "$pid"); t2=$(date +%s%N)
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  awk -v a=$((a2 - a1)) -v w=$((t2 - t1)) -v l="$label" 'BEGIN {
    printf "%-46s %7.3f%% of a core\n", l, a / w * 100 }'
}

echo "$ncg cgroups x $(nproc) CPUs, events $ev, 1 s, ${secs} s each"
"$bin" -b --no-rc -i 1s -f csv -e "$ev" -G "$groups" >/dev/null 2>&1 &
measure "pmutop -b -f csv -G (${ncg} cgroups)" $!
"$bin" -b --no-rc -i 1s -f csv -e "$ev" --for-each-cgroup "$base/g" >/dev/null 2>&1 &
measure "pmutop -b -f csv --for-each-cgroup (${ncg})" $!
perf stat -I 1000 -x, -e "$ev" -a --for-each-cgroup "$base/g.*" -o /dev/null >/dev/null 2>&1 &
measure "perf stat -I 1000 --for-each-cgroup (${ncg})" $!

for i in $(seq 1 "$ntasks"); do sleep 3600 & pids+=($!); done
list=$(IFS=,; echo "${pids[*]}")
"$bin" -b --no-rc -i 1s -f csv -e "$ev" -p "$list" >/dev/null 2>&1 &
measure "pmutop -b -f csv -p ($ntasks tasks)" $!
perf stat -I 1000 -x, -e "$ev" -p "$list" -o /dev/null >/dev/null 2>&1 &
measure "perf stat -I 1000 -x, -p ($ntasks tasks)" $!

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# jitter_bench.sh: pmutop's own cadence at 10 ms sampling on all CPUs (sw mode), and a stress
# load on one CPU showing up as spikes there. Prints the figures; needs jq and stress-ng.
# Usage: bench/jitter_bench.sh [STEADY_SECONDS [STRESS_PHASE_SECONDS [CPU]]]
set -eu
source "$(dirname "$0")/lib.sh"
BIN=$(bench_bin)
STEADY=${1:-120}
PHASE=${2:-20}
CPU=${3:-1}
PIN=0
[ "$CPU" = 0 ] && PIN=1
bench_need jq "jq is needed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) CPUs, $(uname -r); load before: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== steady: sw mode, --sample 10 --refresh 1000, all CPUs, ${STEADY} s"
"$BIN" -b -m sw --sample 10 --refresh 1000 -n "$STEADY" --flight 30 -f json >"$tmp/steady.json" 2>/dev/null
jq -s -r '
  def r3: (. * 1000 | round) / 1000;
  "records            \(length) (one per refresh, \(.[0].samples) samples each)",
  "lateness p99 ms    median over refreshes \([.[].self.lateness_p99_ms] | sort | .[length/2|floor] | r3), worst \([.[].self.lateness_p99_ms] | max | r3)",
  "lateness max ms    \(.[-1].self.lateness_max_ms | r3) (since start)",
  "missed ticks       \(.[-1].self.missed), long intervals \(.[-1].self.long_intervals)",
  "drift ms           first \(.[0].self.drift_ms | r3), last \(.[-1].self.drift_ms | r3), max |drift| \([.[].self.drift_ms | fabs] | max | r3)",
  "measured sample ms mean \([.[].self.measured_ms] | add / length | . * 10000 | round / 10000)",
  "self CPU % of core median \([.[1:][].self.cpu_pct] | sort | .[length/2|floor] | r3), max \([.[1:][].self.cpu_pct] | max | r3)",
  "memory bytes       \(.[-1].self.mem_bytes) (statistics, rules, spike log, 30 s flight ring)",
  "spikes (default rules) per cpu: \([.[].spikes[].cpu] | group_by(.) | map("cpu\(.[0])=\(length)") | join(" ") | if . == "" then "none" else . end)"
' "$tmp/steady.json"

echo "== stress: ${PHASE} s quiet, then stress-ng --cpu 1 --taskset $CPU for ${PHASE} s; pmutop pinned to CPU $PIN"
echo "   rule: task_pct > 90 (busiest task's share of the CPU, from the attribution columns)"
( sleep "$PHASE"; stress-ng --cpu 1 --taskset "$CPU" -t "$PHASE" >/dev/null 2>&1 ) &
"$BIN" -b -m sw --sample 10 --refresh 1000 -n $((2 * PHASE)) --attrib --pin "$PIN" \
	--alert "task_pct > 90" --flight 0 -f json >"$tmp/stress.json" 2>/dev/null
wait
jq -s -r --argjson p "$PHASE" '
  def r1: (. * 10 | round) / 10;
  def spikes(f): [.[] | select(f) | .spikes[] | .cpu] | group_by(.) | map("cpu\(.[0])=\(length)") | join(" ") | if . == "" then "none" else . end;
  "spikes while quiet:    \(spikes(.time <= $p))",
  "spikes under stress:   \(spikes(.time > $p + 1))",
  "busiest task at the spikes under stress: \([.[] | select(.time > $p + 1) | . as $r | .spikes | map(.cpu) | unique[] | . as $cpu | "cpu\($cpu):\($r.cpus[] | select(.cpu == $cpu) | .attrib.task.comm // "-")"] | group_by(.) | map("\(.[0])x\(length)") | join(" "))",
  "busiest task under stress per cpu: \([.[] | select(.time > $p + 1) | .cpus[] | "cpu\(.cpu):\(.attrib.task.comm // "-")"] | group_by(.) | map("\(.[0])x\(length)") | join(" "))",
  "cs_s median quiet/stress per cpu: \([.[0].cpus[].cpu] | map(tostring) | join(","))  \([.[] | select(.time <= $p) | .cpus | map(.attrib.cs_s.median)] | transpose | map(sort | .[length/2|floor] | r1) | join(","))  /  \([.[] | select(.time > $p + 1) | .cpus | map(.attrib.cs_s.median)] | transpose | map(sort | .[length/2|floor] | r1) | join(","))",
  "self CPU % (attrib on) median \([.[1:][].self.cpu_pct] | sort | .[length/2|floor] | r1), on cpu \(.[-1].self.cpu)",
  "lateness p99 ms (attrib on) median \([.[].self.lateness_p99_ms] | sort | .[length/2|floor] | . * 1000 | round / 1000)"
' "$tmp/stress.json"

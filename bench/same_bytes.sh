#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# same_bytes.sh: do two binaries write the same bytes? Batch CSV, JSON and OpenMetrics of sim runs
# (every sim mode, two seeds, two intervals, and windows, spikes, offline CPUs, rules, rows,
# multiplexing, error bars, true figures) and replays of the test recordings, compared byte for
# byte; what the wall clock decides (timestamps, the "self" object's lateness and CPU figures,
# OpenMetrics' own-process samples) is masked, and so is the "self" object's mem_bytes, the heap
# pmutop holds (how its rings are laid out, not what a run measured). For changes meant to keep
# the output.
# usage: PMUTOP_BINS="before=PATH after=PATH" bench/same_bytes.sh      exit 1 when any run differs
set -euo pipefail
cd "$(dirname "$0")/.."
bins=${PMUTOP_BINS:?PMUTOP_BINS=\"before=PATH after=PATH\"}
set -- $bins
[ $# -eq 2 ] || { echo "PMUTOP_BINS names two binaries" >&2; exit 2; }
a=$(realpath "${1#*=}")
b=$(realpath "${2#*=}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mask() {
  sed -E 's/"timestamp":[0-9.]+/"timestamp":T/g
    s/"(lateness_p50_ms|lateness_p99_ms|lateness_max_ms|drift_ms|cpu_pct|measured_ms|missed|long_intervals)":(-?[0-9.e+-]+|null)([,}])/"\1":X\3/g
    s/"cpu":-?[0-9]+,"ticks"/"cpu":X,"ticks"/g
    s/"mem_bytes":[0-9]+([,}])/"mem_bytes":M\1/g
    s/pmutop_self_[a-z_]+(\{[^}]*\})? [0-9.e+-]+/SELF/g
    s/,[0-9]{10}\.[0-9]{3}$/,T/; s/ [0-9]{13}$/ T/'
}
n=0
bad=0
same() { # ARGS...: one run of each binary
  n=$((n + 1))
  "$a" --no-rc -b "$@" 2>&1 | mask >"$tmp/a"
  "$b" --no-rc -b "$@" 2>&1 | mask >"$tmp/b"
  if ! cmp -s "$tmp/a" "$tmp/b"; then
    bad=$((bad + 1))
    echo "differ: $*"
    diff "$tmp/a" "$tmp/b" | head -4
  fi
}
sim=(--backend sim --sim-unpaced)
for m in cpi dcache dtlb icache itlb llc sw; do
  for f in csv json openmetrics; do
    for s in 1 7; do
      for i in 10 100; do same "${sim[@]}" --sim-cpus 4 -m $m -i $i -n 50 -f $f --seed $s; done
    done
  done
done
for f in json csv; do
  same "${sim[@]}" --sim-cpus 4 -m cpi -i 100 --sample 10ms -n 30 -f $f
  same "${sim[@]}" --sim-cpus 3 -m cpi -i 50 --sample 1ms -n 20 -f $f --sim-spike 1:7:5
  same "${sim[@]}" --sim-cpus 4 -m sw -i 10 -n 200 -f $f --sim-spike 2:13:8 --seed 3
  same "${sim[@]}" --sim-cpus 4 -m cpi -i 10 -n 150 -f $f --sim-offline 1:20-40 --sim-spike 0:9:4
  same "${sim[@]}" --sim-cpus 4 -m cpi -i 100 --sample 5ms -n 30 -f $f --sim-offline 2:100-300
  same "${sim[@]}" --sim-cpus 4 -m cpi -i 10 -n 100 -f $f --alert "mad cpi 3 window 8" \
    --alert "cpi > 1.2" --flight 0
  same "${sim[@]}" --sim-cpus 8 -m dcache -i 20 --sample 2ms -n 40 -f $f --sim-mux 0.5 --error
  same "${sim[@]}" --sim-cpus 4 -m cpi -i 10 -n 80 -f $f --per-core
  same "${sim[@]}" --sim-cpus 4 -m cpi -i 10 -n 60 -f $f --sim-truth --error
  same "${sim[@]}" --sim-cpus 2 -m sw -i 10 -n 300 -f $f
  same "${sim[@]}" --sim-cpus 64 -m cpi -i 10 -n 30 -f $f --sim-width 32
  same "${sim[@]}" --sim-cpus 4 -m dcache -i 10 -n 40 -f $f --sim-fail-event 1 --sim-mux 0.3 \
    --sim-offline 3:5-9
  same "${sim[@]}" --sim-cpus 4 -m cpi -i 10 -n 40 -f $f --sim-tasks 6 --sim-task-churn 2
done
for r in tests/fixtures/replay/clean-ticks.jsonl tests/fixtures/replay/topdown-skl.jsonl \
  tests/fixtures/replay/two-modes.jsonl tests/fixtures/rec/good.jsonl; do
  for f in json csv openmetrics; do same -R "$r" -f $f; done
done
echo "same_bytes: $n runs, $bad differ"
[ "$bad" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scale.sh: the cost of one row as the CPUs grow: user-space instructions per tick and per CPU
# row (callgrind, start-up subtracted: runs of A and B ticks, the difference over B - A), sim
# source, mode cpi, batch CSV and JSON, at 64, 256, 1024 and 4096 simulated CPUs. Flat per-row
# figures mean the cost is linear in CPUs. Needs valgrind.
# usage: bench/scale.sh [CPU_COUNTS [A [B]]]     defaults: "64 256 1024 4096", 2, 4
#   PMUTOP_BIN=path   the binary (default ./build/pmutop)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
counts=${1:-"64 256 1024 4096"}
a=${2:-2}
b=${3:-4}
bin=$(bench_bin)
bench_need valgrind "valgrind is not installed"
[ "$b" -gt "$a" ] || { echo "B must be larger than A"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

instr() { # TICKS FORMAT CPUS: instructions of one run
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$bin" --no-rc -b -n "$1" \
    -f "$2" --backend sim --sim-cpus "$3" -m cpi -i 100 >/dev/null 2>"$tmp/vg.err"
  sed -n 's/^summary: *//p' "$tmp/cg.out" | head -1
}

echo "pmutop $("$bin" --version | head -1 | cut -d' ' -f2): instructions per tick and per CPU row (callgrind, ticks $a..$b, sim, mode cpi, 100 ms)"
for fmt in csv json; do
  for n in $counts; do
    ia=$(instr "$a" "$fmt" "$n")
    ib=$(instr "$b" "$fmt" "$n")
    per=$(((ib - ia) / (b - a)))
    awk -v f="$fmt" -v n="$n" -v p="$per" 'BEGIN {
      printf "  %-4s %5d CPUs: %12d instructions/tick  %8.0f per row\n", f, n, p, p / n }'
  done
done

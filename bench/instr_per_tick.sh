#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# instr_per_tick.sh: user-space instructions per tick (callgrind), start-up subtracted: each case
# runs with A and with B ticks and the difference is divided by B - A: batch CSV, batch JSON and
# the screen (in a tmux pane 200x60, when tmux is installed). Nearly deterministic (the sim
# source), so it compares binaries on a noisy machine where CPU time cannot.
# usage: bench/instr_per_tick.sh [SIM_CPUS [A [B]]]        defaults: 1024, 3, 13
#   PMUTOP_BINS="before=PATH after=PATH"   the binaries (default pmutop=./build/pmutop)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
cpus=${1:-1024}
a=${2:-3}
b=${3:-13}
bins=${PMUTOP_BINS:-"pmutop=./build/pmutop"}
bench_need valgrind "valgrind is not installed"
[ "$b" -gt "$a" ] || { echo "B must be larger than A"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sock=pmutop-instr-$$
instr() { # BIN TICKS FORMAT ARGS...: instructions of one run (FORMAT screen: in tmux)
  local bin=$1 n=$2 fmt=$3 i
  shift 3
  rm -f "$tmp/cg.out"
  if [ "$fmt" = screen ]; then
    tmux -L "$sock" -f /dev/null new-session -d -x 200 -y 60 -e TERM=xterm-256color \
      "valgrind --tool=callgrind --callgrind-out-file=$tmp/cg.out $bin --no-rc -n $n $* 2>$tmp/vg.err"
    for ((i = 0; i < 1200; i++)); do
      [ -s "$tmp/cg.out" ] && break
      sleep 0.1
    done
    sleep 0.2
    tmux -L "$sock" kill-server 2>/dev/null || true
  else
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$bin" --no-rc -b -n "$n" \
      -f "$fmt" "$@" >/dev/null 2>"$tmp/vg.err"
  fi
  sed -n 's/^summary: *//p' "$tmp/cg.out" | head -1
}

echo "instructions per tick (callgrind, ticks $a..$b, sim $cpus CPUs)"
fmts="csv json"
command -v tmux >/dev/null && fmts="$fmts screen"
for fmt in $fmts; do
  args=(--backend sim --sim-cpus "$cpus" -m cpi -i 10)
  base=""
  for lb in $bins; do
    label=${lb%%=*}
    bin=${lb#*=}
    ia=$(instr "$bin" "$a" "$fmt" "${args[@]}")
    ib=$(instr "$bin" "$b" "$fmt" "${args[@]}")
    per=$(((ib - ia) / (b - a)))
    ratio=""
    if [ -z "$base" ]; then base=$per; else ratio=$(awk -v x="$per" -v y="$base" 'BEGIN { printf "  ratio to the first = %.3f", x / y }'); fi
    printf '  %-6s %-8s %12d instructions/tick%s\n' "$fmt" "$label" "$per" "$ratio"
  done
done

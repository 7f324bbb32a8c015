#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# screen_cost.sh: what one frame of the screen costs (live sw mode on this machine's CPUs, tmux
# 200x60, 10 ms): user-space instructions per frame (callgrind: runs of A and B frames, the
# difference over B - A) with the functions that take the most, then for SECONDS of a live run
# the system calls per frame (strace -c) and the bytes and writes per frame to the terminal.
# usage: bench/screen_cost.sh [A [B [SECONDS]]]        defaults: 20, 120, 5
#   PMUTOP_BINS="before=PATH after=PATH"   the binaries (default pmutop=./build/pmutop)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
a=${1:-20}
b=${2:-120}
secs=${3:-5}
bins=${PMUTOP_BINS:-"pmutop=./build/pmutop"}
bench_need valgrind "valgrind is not installed"
bench_need tmux "tmux is not installed"
bench_need strace "strace is not installed"
[ "$b" -gt "$a" ] || { echo "B must be larger than A"; exit 2; }
bench_first_bin "$bins" >/dev/null
tmp=$(mktemp -d)
sock=pmutop-screencost-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT

callgrind() { # BIN FRAMES OUT: callgrind of the screen for FRAMES ticks; prints the total
  local bin=$1 n=$2 out=$3 i
  rm -f "$out"
  tmux -L "$sock" -f /dev/null new-session -d -x 200 -y 60 -e TERM=xterm-256color \
    "valgrind --tool=callgrind --callgrind-out-file=$out $bin --no-rc -m sw -i 10 -n $n 2>$tmp/vg.err"
  for ((i = 0; i < 3000; i++)); do
    [ -s "$out" ] && break
    sleep 0.1
  done
  sleep 0.3
  tmux -L "$sock" kill-server 2>/dev/null || true
  sed -n 's/^summary: *//p' "$out" | head -1
}

# inclusive instructions per function, "COUNT<TAB>NAME"
inclusive() {
  callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
    perl -ne 'if (/^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?)(\s+\[.*)?$/) { my ($n, $f) = ($1, $2); $n =~ s/,//g; print "$n\t$f\n"; }' |
    sort -t "$(printf '\t')" -k2,2
}

echo "the screen's cost per frame: live sw mode, $(nproc) CPUs, tmux 200x60, 10 ms;" \
  "callgrind frames $a..$b, strace ${secs}s; load $(cut -d' ' -f1-3 /proc/loadavg)"
for lb in $bins; do
  label=${lb%%=*}
  bin=$(realpath "${lb#*=}")
  ia=$(callgrind "$bin" "$a" "$tmp/a.cg")
  ib=$(callgrind "$bin" "$b" "$tmp/b.cg")
  printf '%-8s %10d instructions per frame\n' "$label" $(((ib - ia) / (b - a)))
  # the functions that take the most per frame (inclusive), without the run loop's callers
  join -t "$(printf '\t')" -1 2 -2 2 <(inclusive "$tmp/a.cg") <(inclusive "$tmp/b.cg") |
    awk -F'\t' -v f=$((b - a)) '{ d = ($3 - $2) / f; if (d > 15000) printf "  %10.0f  %s\n", d, $1 }' |
    grep -vE 'below main|libc_start|PROGRAM TOTALS|main\.c:main|:ui_run|run_loop|0x000000000001ab70' |
    sort -rn | head -14
  # system calls, bytes and writes per tick over SECONDS of a live run
  tmux -L "$sock" -f /dev/null new-session -d -x 200 -y 60 -e TERM=xterm-256color \
    "exec $bin --no-rc -m sw -i 10"
  sleep 1.5
  pid=$(tmux -L "$sock" list-panes -a -F '#{pane_pid}')
  timeout "$secs" strace -c -p "$pid" -o "$tmp/count.txt" 2>/dev/null || true
  timeout "$secs" strace -e trace=write,read -e signal=none -s 0 -p "$pid" -o "$tmp/io.txt" \
    2>/dev/null || true
  tmux -L "$sock" kill-server 2>/dev/null || true
  # ticks: the tick timer's 8-byte reads (a timerfd read gives 8 bytes; the counters' group
  # reads give more); the bytes and writes to the terminal (descriptor 1) per tick
  awk -F'= ' '/^read\(.*, 8\) += 8$/ { t++ } /^write\(1,/ { n++; s += $NF }
    END { if (t) printf "  %d ticks: %.2f writes and %.0f bytes to the terminal per tick\n", t, n / t, s / t }' \
    "$tmp/io.txt"
  # every system call per tick (strace -c over SECONDS; /proc/stat's one pread64 a tick counts
  # the ticks)
  ticks=$(awk '$NF == "pread64" { print $4 }' "$tmp/count.txt")
  echo "  system calls per tick (strace -c; a tick = its one pread64 of /proc/stat):"
  awk -v t="${ticks:-0}" 'NR > 2 && $1 !~ /^-/ && $NF != "total" && NF >= 5 {
      printf "    %-16s %6.2f\n", $NF, t ? $4 / t : 0 }' "$tmp/count.txt"
done

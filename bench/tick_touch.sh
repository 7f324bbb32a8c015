#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tick_touch.sh: the memory one batch tick touches (live sw mode on this machine's CPUs): the
# distinct 64-byte lines and 4 KiB pages of code and of data per tick, by valgrind's lackey
# (every load, store and instruction traced), then where the data lines lie and which functions
# the code lines belong to. After a sleep between ticks, with other programs run meanwhile, most
# of these lines are fetched again from a far cache: the count is what a tick's cache misses
# scale with, where instructions alone do not say it (bench/README.md, "The ninth round").
# usage: bench/tick_touch.sh [TICKS [FORMATS [TOP]]]   defaults: 60, "csv json openmetrics", 12
#   FORMATS may hold "screen": the screen (not batch) in tmux 200x60 (TERM=xterm-256color),
#   10 ms, a tick = a frame
#   PMUTOP_BINS="before=PATH after=PATH"   several binaries (default pmutop=./build/pmutop)
#   TICK_TOUCH_FUNCS=DIR   also writes DIR/LABEL-FORMAT.txt, the functions of pmutop a steady
#                          tick runs in their first run order (bench/hot_functions.sh reads them)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
ticks=${1:-60}
formats=${2:-"csv json openmetrics"}
top=${3:-12}
bins=${PMUTOP_BINS:-"pmutop=./build/pmutop"}
bench_need valgrind "valgrind is not installed"
bench_need python3 "python3 is not installed"
bench_first_bin "$bins" >/dev/null
case " $formats " in *" screen "*) bench_need tmux "tmux is not installed" ;; esac
tmp=$(mktemp -d)
sock=pmutop-ticktouch-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT
funcs_dir=${TICK_TOUCH_FUNCS:-}
unset TICK_TOUCH_FUNCS
echo "memory touched per tick: live sw mode, $(nproc) CPUs, batch 20 ms, screen 10 ms," \
  "$ticks ticks under lackey;" \
  "load $(cut -d' ' -f1-3 /proc/loadavg)"
for lb in $bins; do
  bin=$(realpath "${lb#*=}")
  for fr in $formats; do
    echo "${lb%%=*} $fr:"
    rm -f "$tmp/lk.txt" "$tmp/pid"
    if [ "$fr" = screen ]; then
      # the screen in a tmux pane of 200x60 (as bench/screen_cost.sh runs it); the pane's
      # shell execs valgrind, so the pane's process is the traced one
      tmux -L "$sock" -f /dev/null new-session -d -x 200 -y 60 -e TERM=xterm-256color \
        "echo \$\$ >$tmp/pid; exec valgrind --tool=lackey --trace-mem=yes --log-file=$tmp/lk.txt \
          $bin --no-rc -m sw -i 10 -n $ticks 2>$tmp/err"
      for ((i = 0; i < 100; i++)); do [ -s "$tmp/pid" ] && break; sleep 0.1; done
      pid=$(cat "$tmp/pid")
    else
      valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/lk.txt" \
        "$bin" --no-rc -b -m sw -i 20 -n "$ticks" -f "$fr" >/dev/null 2>"$tmp/err" &
      pid=$!
    fi
    # the client's mappings: the last copy before the run ends holds every tick's mappings
    : >"$tmp/maps"
    while kill -0 "$pid" 2>/dev/null; do
      cp "/proc/$pid/maps" "$tmp/maps.new" 2>/dev/null && [ -s "$tmp/maps.new" ] &&
        mv "$tmp/maps.new" "$tmp/maps"
      sleep 0.5
    done
    if [ "$fr" = screen ]; then
      tmux -L "$sock" kill-server 2>/dev/null || true
      [ -s "$tmp/lk.txt" ] || {
        echo "  the run failed: $(tail -2 "$tmp/err")"; continue; }
    else
      wait "$pid" || { echo "  the run failed: $(tail -2 "$tmp/err")"; continue; }
    fi
    TICK_TOUCH_FUNCS=${funcs_dir:+$funcs_dir/${lb%%=*}-$fr.txt} \
      python3 bench/tick_touch.py "$tmp/lk.txt" "$tmp/maps" "$bin" "$ticks" "$top" | sed 's/^/  /'
  done
done

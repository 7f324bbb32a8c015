#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# floor.sh: pmutop's CPU time per tick against the floor (bench/floor.c: the same per-CPU
# groups of the sw mode and the same /proc/stat read, no output), per interval and front end:
# batch CSV, JSON and OpenMetrics and the screen (tmux 200x60), all running at the same time as
# the floor (same noise). Three rounds (ROUNDS); prints each ratio's min/median/max.
# usage: bench/floor.sh [SECONDS_PER_ROUND [INTERVALS_MS [ROUNDS]]]   defaults: 20, "1000 100 10", 3
#   PMUTOP_BINS="before=PATH after=PATH"   several binaries in the same rounds
#   BENCH_AWAKE=1   an idle-class busy loop on every CPU, so no CPU halts (see bench/lib.sh)
# CPU time is the on-CPU ns of every thread (/proc/PID/task/*/schedstat), sampled 1 s after
# the start and 1 s before the end. With tmux, the screen is also divided by a second floor
# that runs in its own 200x60 pane and writes as many bytes a tick to it as the first binary's
# screen does (measured before the rounds from /proc/PID/io): the least a screen that sends
# those bytes can cost. See bench/README.md for recorded figures.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
secs=${1:-20}
intervals=${2:-"1000 100 10"}
rounds=${3:-3}
bins=${PMUTOP_BINS:-"pmutop=./build/pmutop"}
bench_min_secs "$secs"
first_bin=$(bench_first_bin "$bins")
cmake --build build --target bench_floor >/dev/null
floor=./build/bench_floor
fronts="csv json openmetrics" # the batch front ends; the screen too when tmux is there
screen=0
command -v tmux >/dev/null && screen=1
sock=pmutop-floor-$$
tmp=$(mktemp -d)
cleanup() { bench_awake_stop; tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

pane() { # COMMAND: runs COMMAND in a new 200x60 tmux session; prints its process id
  TERM=xterm-256color tmux -L "$sock" -f /dev/null new-session -d -P -F '#{pane_pid}' \
    -x 200 -y 60 "$1"
}

wchar() { # bytes a process has written
  sed -n 's/^wchar: //p' /proc/"$1"/io
}

screen_bytes() { # INTERVAL_MS: bytes a frame the first binary's screen writes (mean, 4+ frames)
  local ms=$1 w=$((ms * 5 / 1000 > 3 ? ms * 5 / 1000 : 3)) p b1 b2
  p=$(pane "exec $(realpath "$first_bin") --no-rc -m sw -i $ms")
  sleep 1.5
  b1=$(wchar "$p")
  sleep "$w"
  b2=$(wchar "$p")
  tmux -L "$sock" kill-server 2>/dev/null || true
  echo $(((b2 - b1) * ms / (w * 1000)))
}

declare -A tty_bytes=()
round() { # INTERVAL_MS ROUND: one line per binary and front end into $tmp/ratios
  local ms=$1 rd=$2 ticks=$(((secs + 2) * 1000 / ms)) names=() pids=() kids=() tp="" lb
  bench_start_batch "$ms" "$ticks" "$bins" "$fronts"
  local fp=${BENCH_PIDS[0]}
  kids=("${BENCH_PIDS[@]:1}")
  pids=("${BENCH_PIDS[@]:1}")
  names=("${BENCH_NAMES[@]:1}")
  if [ -n "${tty_bytes[$ms]:-}" ]; then
    tp=$(pane "exec $(realpath "$floor") -i $ms -n $ticks --write ${tty_bytes[$ms]} 2>/dev/null")
  fi
  if [ "$screen" = 1 ]; then
    for lb in $bins; do
      pids+=("$(pane "exec $(realpath "${lb#*=}") --no-rc -m sw -i $ms")")
      names+=("${lb%%=*} screen")
    done
  fi
  sleep 1
  local f1 f2 t1=0 t2=0 a1=() a2=()
  f1=$(cpu_ns $fp)
  [ -z "$tp" ] || t1=$(cpu_ns "$tp")
  for p in "${pids[@]}"; do a1+=("$(cpu_ns "$p")"); done
  sleep $((secs - 2))
  f2=$(cpu_ns $fp)
  [ -z "$tp" ] || t2=$(cpu_ns "$tp")
  for p in "${pids[@]}"; do a2+=("$(cpu_ns "$p")"); done
  tmux -L "$sock" kill-server 2>/dev/null || true
  wait "$fp" "${kids[@]}" 2>/dev/null || true # (not the busy loops of BENCH_AWAKE)
  local t=$(((secs - 2) * 1000 / ms))
  for i in "${!pids[@]}"; do
    echo "$ms ${names[i]} $((a2[i] - a1[i])) $((f2 - f1)) $t" >>"$tmp/ratios"
    if [ -n "$tp" ] && [ "${names[i]#* }" = screen ]; then
      echo "$ms ${names[i]} $((a2[i] - a1[i])) $((t2 - t1)) $t" >>"$tmp/ttyratios"
    fi
  done
}

echo "pmutop $("$first_bin" --version | head -1 | cut -d' ' -f2) vs the floor (bench/floor.c); $(nproc) CPUs;" \
  "${secs}s per round, $rounds rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$screen" = 1 ]; then
  for ms in $intervals; do tty_bytes[$ms]=$(screen_bytes "$ms"); done
  echo "the screen writes (bytes a frame, first binary):$(for ms in $intervals; do
    printf ' %s ms %s;' "$ms" "${tty_bytes[$ms]}"
  done)"
fi
bench_awake_start
for rd in $(seq "$rounds"); do
  for ms in $intervals; do round "$ms" "$rd"; done
done
# per interval, binary and front end: us per tick (median) and the ratio's min/median/max
sort -k1,1n -k2,2 -k3,3 "$tmp/ratios" | ratio_table floor
if [ -s "$tmp/ttyratios" ]; then
  echo "the screen against the floor that also writes the screen's bytes to a 200x60 pane:"
  sort -k1,1n -k2,2 -k3,3 "$tmp/ttyratios" | ratio_table floor+tty
fi

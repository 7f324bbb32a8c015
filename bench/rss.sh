#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rss.sh: the screen's resident memory beside its peers: pmutop, htop and top, each in its own
# detached tmux server at 200x60, all started together and read together after SECONDS
# (VmRSS, RssAnon and RssFile from /proc/PID/status, KiB); ROUNDS rounds, the median printed,
# then pmutop's largest mappings (/proc/PID/smaps) from the last round.
# usage: bench/rss.sh [SECONDS [ROUNDS [PMUTOP_ARGS...]]]   defaults: 5 s, 3, "-i 1000"
#   PMUTOP_BINS="before=PATH after=PATH" several binaries in the same rounds (each name a row)
# A peer that is not installed is left out (htop: apt-get install htop). Each binary is read
# once before every round: the kernel maps pages around a fault only where the file is in the
# page cache, so a binary read less recently would show less resident code.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
secs=${1:-5}
rounds=${2:-3}
shift $(($# > 2 ? 2 : $#))
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(-i 1000)
bins=${PMUTOP_BINS:-"pmutop=$(bench_bin)"}
sock=pmutop-rss-$$
names=()
cleanup() { for n in "${names[@]}"; do tmux -L "$sock-$n" kill-server 2>/dev/null || true; done; }
trap cleanup EXIT

declare -A cmd=() path=()
pmutops=()
for nb in $bins; do
  n=${nb%%=*} b=$(realpath "${nb#*=}")
  pmutops+=("$n")
  path[$n]=$b
  cmd[$n]="$b --no-rc ${args[*]}"
done
command -v htop >/dev/null && cmd[htop]="$(command -v htop) -d 10"
command -v top >/dev/null && cmd[top]="$(command -v top) -d 1"

status_kib() { awk -v f="$2:" '$1 == f { print $2 }' /proc/"$1"/status; }

out=$(mktemp)
for ((r = 1; r <= rounds; r++)); do
  names=()
  declare -A pid=()
  for n in "${pmutops[@]}"; do cat "${path[$n]}" >/dev/null; done
  for n in "${pmutops[@]}" htop top; do
    [ -n "${cmd[$n]:-}" ] || continue
    names+=("$n")
    HOME=$(mktemp -d) TERM=xterm-256color tmux -L "$sock-$n" -f /dev/null new-session -d -x 200 -y 60 \
      "exec ${cmd[$n]}"
    pid[$n]=$(tmux -L "$sock-$n" display-message -p '#{pane_pid}')
  done
  sleep "$secs"
  for n in "${names[@]}"; do
    echo "$n $(status_kib "${pid[$n]}" VmRSS) $(status_kib "${pid[$n]}" RssAnon) $(status_kib "${pid[$n]}" RssFile)" >>"$out"
  done
  if [ "$r" = "$rounds" ]; then
    maps=$(for n in "${pmutops[@]}"; do
      echo "$n:"
      awk '/^[0-9a-f]+-/ { name = $6 ? $6 : "[anon]" } /^Rss:/ { rss[name] += $2 }
        END { for (n in rss) if (rss[n] >= 64) printf "  %6d KiB  %s\n", rss[n], n }' \
        /proc/"${pid[$n]}"/smaps | sort -rn
    done)
  fi
  cleanup
done
for n in "${pmutops[@]}"; do
  echo "$n: pmutop $("${path[$n]}" --version | head -1 | cut -d' ' -f2) (${path[$n]})"
done
echo "$(nproc) CPUs; 200x60; ${secs} s; $rounds rounds; pmutop ${args[*]}; $(date -u '+%Y-%m-%d %H:%M UTC')"
sort -k1,1 -k2,2n "$out" | awk '
  function flush() { if (!name) return
    m = int((n + 1) / 2)
    printf "%-7s VmRSS %6d KiB (%5.2f MiB; min %d, max %d)  anon %6d  file %6d\n",
      name, v[m], v[m] / 1024, v[1], v[n], a[m], f[m]; n = 0 }
  $1 != name { flush(); name = $1 }
  { n++; v[n] = $2; a[n] = $3; f[n] = $4 }
  END { flush() }'
echo "the mappings of 64 KiB or more (last round):"
echo "$maps"
rm -f "$out"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# screen_bytes.sh: the bytes the screen sends to the terminal, compared between binaries: each
# binary runs the same sim screens (a pty of a fixed size by script(1), no keys, N frames) and
# the typescripts must be the same byte for byte. The first binary runs each case twice: when
# those two differ the case cannot be compared and is reported as such (not as a difference).
# usage: bench/screen_bytes.sh [FRAMES]      default 12
#   PMUTOP_BINS="before=PATH after=PATH"   the binaries (default pmutop=./build/pmutop)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
frames=${1:-12}
bins=${PMUTOP_BINS:-"pmutop=./build/pmutop"}
bench_need script "script (util-linux) is not installed"
bench_first_bin "$bins" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
utf8=C.UTF-8
# name|columns|rows|locale|arguments
cases="cpu4|200|60|$utf8|--backend sim --sim-cpus 4
topdown|200|60|$utf8|--backend sim --sim-family zen4 --sim-cpus 2 -m topdown
cpu64-ascii|200|60|C|--backend sim --sim-cpus 64
cpu16-small|80|24|$utf8|--backend sim --sim-cpus 16
tasks|200|60|$utf8|--backend sim --sim-cpus 2 --sim-tasks 12 --sim-task-churn 4
mux-spike|120|40|$utf8|--backend sim --sim-cpus 8 --sim-mux 0.5 --sim-spike 1:3:4 --sim-offline 2:4-7"

# run BIN CASE OUT: the typescript of one case without script's header and trailer lines
run() {
  local bin=$1 out=$3 name cols rows loc args
  IFS='|' read -r name cols rows loc args <<<"$2"
  # (stdin: a pipe held open and silent past the run's end, so no key arrives)
  sleep $((frames / 10 + 3)) | LC_ALL=$loc TERM=xterm-256color timeout 30 script -qec \
    "stty cols $cols rows $rows; $bin --no-rc $args -i 100 -n $frames" "$tmp/ts" \
    >/dev/null 2>&1 || true
  sed '1{/^Script started/d};${/^Script done/d}' "$tmp/ts" >"$out"
}

echo "the screen's bytes: sim, $frames frames of 100 ms, TERM=xterm-256color; $(echo "$cases" | wc -l) cases"
first=""
differ=0 unstable=0 same=0
while IFS= read -r c; do
  name=${c%%|*}
  ref=""
  for lb in $bins; do
    label=${lb%%=*}
    bin=$(realpath "${lb#*=}")
    run "$bin" "$c" "$tmp/$label.out"
    if [ -z "$ref" ]; then
      ref=$label
      run "$bin" "$c" "$tmp/$label.again"
      if ! cmp -s "$tmp/$label.out" "$tmp/$label.again"; then
        echo "  $name: $label's two runs differ: not comparable"
        unstable=$((unstable + 1))
        continue 2
      fi
      [ -s "$tmp/$label.out" ] || { echo "  $name: $label wrote nothing"; unstable=$((unstable + 1)); continue 2; }
      continue
    fi
    if cmp -s "$tmp/$ref.out" "$tmp/$label.out"; then
      echo "  $name: $label = $ref ($(wc -c <"$tmp/$label.out") bytes)"
      same=$((same + 1))
    else
      echo "  $name: $label DIFFERS from $ref: $(cmp "$tmp/$ref.out" "$tmp/$label.out" 2>&1 | head -1)"
      differ=$((differ + 1))
    fi
  done
done <<<"$cases"
echo "$same same, $differ differ, $unstable not comparable"
[ "$differ" -eq 0 ] && [ "$unstable" -eq 0 ]

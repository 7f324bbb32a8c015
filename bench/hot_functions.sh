#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# hot_functions.sh: writes src/hot-functions.txt, the functions of pmutop a steady tick runs
# (batch CSV, JSON and OpenMetrics and the screen, live sw mode), from bench/tick_touch.sh's
# lackey traces. The build links them together (CMakeLists.txt, "Code layout"), so a tick's
# code lies on few pages and lines. Functions every front end runs come first, then the ones of
# fewer front ends; within a group, in the order a tick first runs them.
# usage: bench/hot_functions.sh [TICKS]   default 40; PMUTOP_BIN=PATH (default ./build/pmutop)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
ticks=${1:-40}
bin=$(bench_bin)
out=src/hot-functions.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fronts="csv json openmetrics screen"
PMUTOP_BINS="p=$bin" TICK_TOUCH_FUNCS=$tmp bash bench/tick_touch.sh "$ticks" "$fronts" 1 >&2
for fr in $fronts; do
  [ -s "$tmp/p-$fr.txt" ] || { echo "hot_functions: no functions for $fr" >&2; exit 1; }
done
{
  cat <<'HEAD'
# The functions of pmutop a steady tick runs (batch CSV, JSON, OpenMetrics, the screen), one a
# line, linked next to each other (CMakeLists.txt, "Code layout"). Written by
# bench/hot_functions.sh; tests/e2e_hot_functions.sh checks each is still a function.
HEAD
  # a name without GCC's clone suffix (.constprop.0, .isra.0, .part.0, .cold): the link matches
  # its clones too. Sorted by how many front ends run it, then by first run. Not libgcc's
  # helpers (__udivmodti4, run by scale_exact for some values only): linked from libgcc's
  # archive without a section of their own, the layout cannot place them.
  for fr in $fronts; do sed 's/\..*//' "$tmp/p-$fr.txt" | grep -v '^__' | awk '!s[$0]++'; done |
    awk '!seen[$0]++ { order[$0] = NR } { n[$0]++ } END { for (f in n) print -n[f], order[f], f }' |
    sort -n -k1,1 -k2,2 | awk '{ print $3 }'
} >"$out"
echo "$(grep -vc '^#' "$out") functions in $out" >&2

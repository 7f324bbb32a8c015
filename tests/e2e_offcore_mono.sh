#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_offcore_mono.sh: the offcore view without colour (NO_COLOR, tmux 100x30, the sim standing
# for Skylake): each request-type bit's share gets a character of its own, and the legend shows
# the same ones; in ASCII mode bars and legend use the bits' letters (no block character).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"
tmux_open 100 30
keys "clear; NO_COLOR=1 '$BIN' --no-rc --backend sim --sim-family skl --sim-cpus 2 -m offcore -i 200; echo \"EXIT=\$?\"" Enter
check "the table" wait_for '^ +all ' 10
keys o
check "the offcore view" wait_for 'offcore requests by request-type bit' 5
sleep 1.5 # every bit measured once
# bar characters (rows of CPUs) and legend characters (the first of each legend entry)
glyphs() {
	pane | python3 -c '
import re, sys
lines = sys.stdin.read().splitlines()
bars = set()
legend = set()
for l in lines:
    m = re.match(r"^ +\d+  (\S.*)$", l)
    if m:
        bars |= set(m.group(1).replace(" ", ""))
    for m in re.finditer(r"(?:^|   )(\S) ([A-Z][A-Z0-9_]+) ", l):
        legend.add(m.group(1))
print("".join(sorted(bars)), "".join(sorted(legend)))'
}
read -r bars legend <<<"$(glyphs)"
check "NO_COLOR: the bars use several characters ('$bars')" test "${#bars}" -ge 4
check "NO_COLOR: the legend has a character per bit ('$legend')" test "${#legend}" -ge 4
check "NO_COLOR: every bar character is in the legend ('$bars' in '$legend')" \
	python3 -c 'import sys; sys.exit(not set(sys.argv[1]) <= set(sys.argv[2]))' "$bars" "$legend"
keys ":set ascii on" Enter
sleep 1
read -r bars legend <<<"$(glyphs)"
check "ASCII: no block character on the screen" pane_lacks '█'
check "ASCII: letters in the bars ('$bars') and the legend ('$legend')" \
	python3 -c 'import sys; b, l = sys.argv[1], sys.argv[2]; sys.exit(not (len(b) >= 4 and b.isalpha() and set(b) <= set(l)))' "$bars" "$legend"
keys q
keys q
quit_check "offcore mono"
t_done

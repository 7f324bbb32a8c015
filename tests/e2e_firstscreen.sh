#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_firstscreen.sh: the first screen at 80x24 (tmux) on the sim with an optional input that
# does not open (msr/mperf/, as on a VM): no warning for it, said once in the capability line;
# util carries no mark from the unused input and ":set running on" shows no 0 %; headers fit or
# are cut to a prefix of exactly one metric (names from batch JSON); Left/Right reach hidden
# columns; Down keeps every row when all fit; a replay's key bar shows the replay's keys.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"
SIM="--no-rc --backend sim --sim-cpus 2 -m sw --sim-fail-event 4"
# the sw mode's metrics, from batch JSON
timeout 30 "$BIN" -b -n 1 -i 100 $SIM -f json >"$T_TMP/sw.json" 2>"$T_TMP/sw.err"
names=$(jq -r '.total.metrics | keys_unsorted[]' "$T_TMP/sw.json" | tr '\n' ' ')
check "batch JSON names the sw metrics ($names)" test "$(wc -w <<<"$names")" -ge 5
check "batch: no word on the optional input ($(cat "$T_TMP/sw.err"))" bash -c "! grep -q mperf '$T_TMP/sw.err'"

tmux_open 80 24
start $SIM -i 200
sleep 1
check "no warning at start" pane_lacks 'warning'
# every header cell: a metric name (with its unit) or a prefix… of exactly one
hdr=$(pane | grep -m1 '^CPU ')
check "header row" test -n "$hdr"
bad=$(python3 - "$hdr" $names <<'PY'
import sys
hdr, names = sys.argv[1], sys.argv[2:]
units = {"%", "/s", "GHz"}
cells = [w for w in hdr.split()[1:] if w not in units and not w.startswith("+") and w != "cols"]
bad = []
for w in cells:
    if w.endswith("\u2026"):
        if len([n for n in names if n.startswith(w[:-1])]) != 1:
            bad.append(w)
    elif w not in names:
        bad.append(w)
print(" ".join(bad))
PY
)
check "headers are names or unambiguous prefixes: '$hdr' (bad: $bad)" test -z "$bad"
check "util has no scaled mark (~) from the unused mperf" bash -c "! tmux -L '$SOCK' capture-pane -p -t 0 | grep -E '^ +(0|1|all) ' | grep -q '~'"
keys ":set running on" Enter
sleep 1
check ":set running on: no 0 % beside a value" bash -c "! tmux -L '$SOCK' capture-pane -p -t 0 | grep -E '^ +(0|1|all) ' | grep -q ' 0%'"
# the wider running columns leave one out: Right reaches it, Left comes back
if pane_has '\+[0-9]+ cols'; then
	last=${names% }
	last=${last##* }
	check "the last metric ($last) is hidden at first" bash -c "! tmux -L '$SOCK' capture-pane -p -t 0 | grep -m1 '^CPU ' | grep -q '$last'"
	keys Right
	check "Right shows the hidden column $last" wait_for "^CPU .*${last}" 5
	check "Right: the header says columns are left of it" pane_has '<\+[0-9]+ cols'
	keys Left
	check "Left comes back" wait_for '^CPU +util' 5
else
	fail "no hidden column at 80x24 with :set running on: $(pane | grep -m1 '^CPU ')"
fi
# Down moves the selection; every row stays when all fit
keys Down
sleep 0.5
check "Down keeps CPU 0 in view (all rows fit)" pane_has '^ +0 '
keys q
quit_check "first screen"

# the capability line says the missing optional input once (room for it at 132 columns)
tmux_close "$SOCK"
tmux_open 132 30
start $SIM -i 200
check "the capability line names the optional input not here" wait_for 'optional msr/mperf/ not here' 5
keys q
quit_check "capability"

# a replay's key bar shows the replay's keys
timeout 30 "$BIN" -b -n 5 -i 100 --no-rc --backend sim --sim-cpus 2 -r "$T_TMP/rec.jsonl" >/dev/null 2>&1
tmux_close "$SOCK"
tmux_open 80 24
start --no-rc -R "$T_TMP/rec.jsonl"
check "the replay's key bar shows ./, tick and [/] speed" wait_for '\./, tick .*\[/\] speed' 5
keys q
quit_check "replay"
t_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_pmuevents.sh: perf's pmu-events library end to end: a perf: mode in batch JSON on a
# replayed recording (values by hand), -M, --list-modes, bad directories, and :perf-events on
# the screen switching to a perf: mode.
source "$(dirname "$0")/lib.sh"
LIB=$T_SRC/tests/fixtures/pmu-events
SKL=$T_SRC/tests/sysfs/x86-skylake
REC=$LIB/basic.jsonl

# 1. batch JSON of perf:Basic on a recording: per CPU and total, computed by hand
#   cpu0: inst 2e6, cycles 1e6, stall 250000, offcore 4000, tsc 2e6
#   cpu1: inst 5e5, cycles 1e6, stall 600000, offcore 1000, tsc 4e6
run_cmd --sysfs-root "$SKL" --perf-events "$LIB" -R "$REC" -m perf:Basic -b -f json
check "replay perf:Basic: exit 0 ($RC: $(head -c 300 "$T_TMP/err"))" [ "$RC" -eq 0 ]
got=$(tail -1 "$T_TMP/out" | jq -c '[.cpus[].metrics, .total.metrics]' 2>/dev/null)
want='[{"IPC":2,"CPI":0.5,"Stall_Pct":25,"Offcore_PKI":2,"Busy":0.5},{"IPC":0.5,"CPI":2,"Stall_Pct":60,"Offcore_PKI":2,"Busy":0.25},{"IPC":1.25,"CPI":0.8,"Stall_Pct":42.5,"Offcore_PKI":2,"Busy":0.333333}]'
check "replay perf:Basic values: $got" [ "$got" = "$want" ]
check "the load is reported" grep -q "perf-events .*: model testlake (GenuineIntel-6-5E-3): 4 modes, 17 metrics, 13 evaluable" "$T_TMP/err"

# 2. -M as perf spells it: a group, or one metric with those it refers to
run_cmd --sysfs-root "$SKL" --perf-events "$LIB" -R "$REC" -M CPI -b -f json
got=$(tail -1 "$T_TMP/out" | jq -c '.cpus[0].metrics' 2>/dev/null)
check "-M CPI: the metric and IPC ($got)" [ "$got" = '{"CPI":0.5,"IPC":2}' ]
# a recording of a -M run replays with its metrics, without --perf-events (the formulas are
# in its mode record): the same values by hand
run_cmd --sysfs-root "$SKL" --perf-events "$LIB" -R "$REC" -M CPI -b -f json -r "$T_TMP/m.jsonl"
run_cmd -R "$T_TMP/m.jsonl" -b -f json
got=$(tail -1 "$T_TMP/out" | jq -c '[.cpus[].metrics, .total.metrics]' 2>/dev/null)
check "replay of a -M CPI recording keeps its metrics ($got)" \
	[ "$got" = '[{"CPI":0.5,"IPC":2},{"CPI":2,"IPC":0.5},{"CPI":0.8,"IPC":1.25}]' ]
# a recorded formula that does not parse: the events' rates, as for a recording without formulas
sed 's/"formula":"[^"]*"/"formula":"1 +* ("/' "$T_TMP/m.jsonl" >"$T_TMP/bad.jsonl"
run_cmd -R "$T_TMP/bad.jsonl" -b -f json
check "a recorded formula that does not parse: rates instead (rc $RC)" \
	bash -c "[ $RC -eq 0 ] && tail -1 '$T_TMP/out' | jq -e '.cpus[0].metrics | keys | all(endswith(\"_ps\"))' >/dev/null"
run_cmd --sysfs-root "$SKL" -M Basic -b -n 1 --backend sim
check "-M without --perf-events: usage error" [ "$RC" -eq 2 ]
check "-M without --perf-events: says so" grep -q "perf's metrics need --perf-events DIR" "$T_TMP/err"

# 3. --list-modes: where each mode came from and the counters it needs against those there are
run_cmd --sysfs-root "$SKL" --perf-events "$LIB" --list-modes
check "--list-modes: built-in cpi" grep -qE '^cpi +available +0/4 .* built-in +Cycles' "$T_TMP/out"
check "--list-modes: perf:Exotic fits the 4 counters, from its file" \
	grep -qE '^perf:Exotic +available +4/4 +1 +0 no .*testlake/metrics.json \(perf-events model testlake\)' "$T_TMP/out"

# the same CPU without a PMU driver (a VM): no perf: mode is "available", each says why
cp -r "$SKL" "$T_TMP/nopmu"
rm -rf "$T_TMP/nopmu/sys/bus/event_source/devices/cpu" "$T_TMP/nopmu/sys/devices/cpu"
run_cmd --sysfs-root "$T_TMP/nopmu" --perf-events "$LIB" --list-modes
check "no PMU: the family is sw" grep -q '^# family: sw ' "$T_TMP/out"
check "no PMU: perf: modes are listed ($(grep -c '^perf:' "$T_TMP/out"))" grep -q '^perf:' "$T_TMP/out"
check "no PMU: no perf: mode available ($(grep -E '^perf:[A-Za-z0-9_]+ +available' "$T_TMP/out" | cut -c1-40 | tr '\n' ' '))" \
	bash -c "! grep -qE '^perf:[A-Za-z0-9_]+ +available' '$T_TMP/out'"
check "no PMU: perf:TopdownL1 says why" grep -qE '^perf:TopdownL1 +n/a .*cannot open here: no PMU "cpu"' "$T_TMP/out"
check "no PMU: the sw mode stays available" grep -qE '^sw +available' "$T_TMP/out"

# --explain names what a group had to leave out
run_cmd --sysfs-root "$SKL" --perf-events "$LIB" --explain perf:Exotic
check "--explain: the uncore metric named" grep -q "not evaluated: Uncore_BW: event UNC_CHA_TOR_INSERTS.IA_MISS: uncore event (unit CHA)" "$T_TMP/out"
check "--explain: the cycle named" grep -q "Loop_A: metric references form a cycle: Loop_A -> Loop_B -> Loop_A" "$T_TMP/out"

# 4. a directory without a model for this CPU, or no mapfile: a clear message, exit 2
run_cmd --sysfs-root "$T_SRC/tests/sysfs/x86-hybrid" --perf-events "$LIB" --list-modes
check "no model: exit 2" [ "$RC" -eq 2 ]
check "no model: names the CPUID" grep -q "no model for this CPU (CPUID GenuineIntel-6-9A-" "$T_TMP/err"
run_cmd --sysfs-root "$SKL" --perf-events "$T_TMP" --list-modes
check "no mapfile: exit 2" [ "$RC" -eq 2 ]
check "no mapfile: says where it looked" grep -q "no mapfile.csv in" "$T_TMP/err"

# 5. the screen: :perf-events DIR at run time, then :mode perf:Basic (completed by Tab)
source "$T_SRC/tests/tmuxlib.sh"
tmux_open 160 30
start --sysfs-root "'$SKL'" --backend sim -i 200ms
keys ":perf-events $LIB" Enter
check ":perf-events: loaded" wait_for "perf-events: 4 modes perf:GROUP"
keys ":mode perf:Ba" Tab
check "Tab completes perf:Basic" wait_for ":mode perf:Basic"
keys Enter
check ":mode perf:Basic: its metrics on the screen" wait_for "IPC +CPI +Stall_Pct"
keys ":perf-events /nonexistent" Enter
check ":perf-events bad DIR: message" wait_for "no mapfile.csv in /nonexistent/arch/x86"
check "the mode keeps running" pane_has "IPC +CPI +Stall_Pct"
keys q
quit_check "quit after perf: mode"
t_done

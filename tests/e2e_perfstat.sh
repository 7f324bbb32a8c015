#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_perfstat.sh: perf stat captures recorded with perf (per CPU, aggregated, JSON, ';' without
# -I, multiplexed) replayed in batch with pmutop's modes and on the screen in tmux; perf's event
# syntax on the command line (-e, --explain) with error columns.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"
FX=$T_SRC/tests/fixtures/perfstat
SKL=$T_SRC/tests/sysfs/x86-skylake
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }

# metric FILE TICK CPU NAME: a metric from pmutop's JSON lines ("all" for the total row)
metric() {
	python3 -c '
import json, sys
rec = [json.loads(l) for l in open(sys.argv[1])][int(sys.argv[2])]
cpu = sys.argv[3]
row = rec["total"] if cpu == "all" else [c for c in rec["cpus"] if c["cpu"] == int(cpu)][0]
print(row["metrics"][sys.argv[4]])' "$@"
}
# near GOT WANT: equal to 5 significant digits (pmutop prints 6)
near() { python3 -c 'import sys; g, w = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(g - w) > 1e-5 * abs(w))' "$1" "$2"; }

# --- 1. -m sw binds perf's names (context-switches, cpu-migrations, ...) by encoding ---------
# expected values: the counts perf printed over the interval perf printed, computed here
declare -A WANT=(
	# file:tick:cpu:metric  = count / ncpus / interval (s)
	[sw-percpu.csv:0:0:cs_per_s]="438 / 0.502011365"
	[sw-percpu.csv:1:1:faults_per_s]="5673 / (1.005984314 - 0.502011365)"
	[sw-percpu.csv:2:all:migr_per_s]="(10 + 7) / 2 / (1.210023271 - 1.005984314)"
	[sw-percpu.json:0:1:cs_per_s]="356 / 0.500589534"
	[sw-percpu.json:2:0:faults_per_s]="1520 / (1.202271846 - 1.006230579)"
	# aggregated (no -A): the all row alone, ncpus = cpu-clock's enabled time / the interval
	[sw-aggregated.csv:0:all:cs_per_s]="861 / round(1011877611 / 0.500585688e9) / 0.500585688"
	[sw-aggregated.csv:2:all:faults_per_s]="4599 / round(402861976 / ((1.208900479 - 1.007020434) * 1e9)) / (1.208900479 - 1.007020434)"
	[sw-aggregated.json:1:all:cs_per_s]="753 / round(1013434597 / ((1.010384346 - 0.503162890) * 1e9)) / (1.010384346 - 0.503162890)"
	[sw-percpu-once.ssv:0:1:cs_per_s]="244 / 0.506323398"
	[sw-mux.csv:1:1:cs_per_s]="416 / (1.005984314 - 0.502011365)"
)
for key in "${!WANT[@]}"; do
	IFS=: read -r file tick cpu name <<<"$key"
	run_cmd -b -m sw -f json -R "$FX/$file"
	check "$file -m sw: exit 0 ($RC: $(head -c 300 "$T_TMP/err"))" [ "$RC" -eq 0 ]
	want=$(python3 -c "print($(echo "${WANT[$key]}"))")
	got=$(metric "$T_TMP/out" "$tick" "$cpu" "$name" 2>&1)
	check "$key: $got, want $want" near "$got" "$want"
	check "$file: no event is said to be missing" eval '! grep -q "lacks" "$T_TMP/err"'
done
# the multiplexed line (event names as formulas spell them): perf's scaled value and its running fraction; <not counted>, <not supported>
run_cmd -b -f json -R "$FX/sw-mux.csv"
check "sw-mux: 50% running" grep -qE '"context_switches":\{"value":(416|415\.9999[0-9]*|416\.0000[0-9]*),"running":0.5,"state":"scaled"\}' <(sed -n 2p "$T_TMP/out")
check "sw-mux: <not counted>" grep -q '"cpu_migrations":{"value":null,"running":0.0,"state":"not_counted"}' <(sed -n 2p "$T_TMP/out")
check "sw-mux: <not supported>" grep -q '"cycles":{"value":null,"running":0.0,"state":"not_supported"}' "$T_TMP/out"
# a mode whose events the capture really lacks names exactly those
run_cmd -b -m cpi -R "$FX/sw-percpu.csv"
check "cpi on a software capture: refused ($RC)" [ "$RC" -ne 0 ]
check "cpi: names cycles and instructions: $(cat "$T_TMP/err")" grep -q "needs events .*cycles.*instructions.* that the recording lacks" "$T_TMP/err"
# aggregated captures say so; summary lines are skipped with their line numbers
run_cmd -b -m sw -R "$FX/sw-aggregated.csv"
check "aggregated: said so" grep -q "aggregated capture (perf stat without -A)" "$T_TMP/err"
for l in 15 16 17 18; do
	check "aggregated: summary line $l" grep -q "sw-aggregated.csv:$l: perf's summary line" "$T_TMP/err"
done
check "aggregated: the number of CPUs from the enabled time" grep -q "sums over 2 CPUs (from the counters' enabled time)" "$T_TMP/err"
check "aggregated: the all row alone" eval '[ "$(grep -cE "^ +all " "$T_TMP/out")" -eq 3 ] && ! grep -qE "^ +0 " "$T_TMP/out"'
check "aggregated: the text says so" grep -q "^all: aggregated capture" "$T_TMP/out"
run_cmd -b -m sw -f json -R "$FX/sw-aggregated.csv"
check "aggregated: JSON has no CPU rows" eval '! grep -q "\"cpus\":\[{" "$T_TMP/out" && grep -q "\"aggregated_cpus\":2" "$T_TMP/out"'
run_cmd -b -m sw -f csv -R "$FX/sw-aggregated.csv"
check "aggregated: CSV has the all rows alone" eval '! grep -qE "^[0-9.]+,[0-9.]+,0," "$T_TMP/out" && grep -qE "^[0-9.]+,[0-9.]+,all," "$T_TMP/out"'
# OpenMetrics: the sums are families of all CPUs (no cpu label), none of a CPU; the counter adds
# up what perf printed for the run
run_cmd -b -m sw -f openmetrics -R "$FX/sw-aggregated.csv"
want_cs=$(awk -F, '$4 == "context-switches" && $1 + 0 > 0 { s += $2 } END { print s }' "$FX/sw-aggregated.csv")
check "aggregated, OpenMetrics: no CPU series" eval '! grep -q "cpu=\"[0-9]" "$T_TMP/out"'
check "aggregated, OpenMetrics: a cs_per_s gauge of all" eval 'grep -q "^pmutop_all_cpus_metric_cs_per_second{" "$T_TMP/out" && ! grep -q "cpu=" "$T_TMP/out"'
check "aggregated, OpenMetrics: cs counter $want_cs" eval \
	'[ "$(grep "^pmutop_all_cpus_event_total{.*event=\"cs\"}" "$T_TMP/out" | tail -1 | awk "{print \$2}")" = "$want_cs" ]'
# re-recorded, the capture stays aggregated: the replay of the recording prints the same
run_cmd -b -m sw -f json -R "$FX/sw-aggregated.csv" -r "$T_TMP/agg.jsonl"
run_cmd -b -m sw -f json -R "$FX/sw-aggregated.csv"
cp "$T_TMP/out" "$T_TMP/agg-direct.json"
run_cmd -b -m sw -f json -R "$T_TMP/agg.jsonl"
check "aggregated, re-recorded: header keeps aggregated_cpus" grep -q '"aggregated_cpus":2' "$T_TMP/agg.jsonl"
check "aggregated, re-recorded: the replay prints the same metrics" \
	python3 -c 'import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
sys.exit(not a or [(x["cpus"], x["total"]["metrics"]) for x in a] != [(x["cpus"], x["total"]["metrics"]) for x in b])' "$T_TMP/agg-direct.json" "$T_TMP/out"
# without -I the elapsed time is cpu-clock over the "CPUs utilized" perf printed beside it
# (1011.86 ms / 2.024 = 0.49993 s), and the number of CPUs follows (the first interval of the
# capture, without its time column); without cpu-clock nothing gives it: refused
grep -E '^ *0\.500585688,' "$FX/sw-aggregated.csv" | cut -d, -f2- >"$T_TMP/untimed.csv"
run_cmd -b -m sw -f json -R "$T_TMP/untimed.csv"
check "aggregated without -I: the elapsed time from cpu-clock ($(cat "$T_TMP/err"))" \
	grep -q "one interval of 0.500 s, from cpu-clock or task-clock over its CPUs utilized" "$T_TMP/err"
check "aggregated without -I: sums over 2 CPUs" grep -q "sums over 2 CPUs" "$T_TMP/err"
check "aggregated without -I: cs_per_s = 861 / 2 / (1011.86 ms / 2.024)" \
	near "$(metric "$T_TMP/out" 0 all cs_per_s)" "$(python3 -c 'print(861 / 2 / (1.01186 / 2.024))')"
grep -v cpu-clock "$T_TMP/untimed.csv" >"$T_TMP/untimed-noclock.csv"
run_cmd -b -m sw -f json -R "$T_TMP/untimed-noclock.csv"
check "aggregated without -I or cpu-clock: refused (exit $RC)" [ "$RC" = 2 ]
check "aggregated without -I or cpu-clock: says what to add" grep -q "add -e duration_time" "$T_TMP/err"
# counts in full, never 1e+09
run_cmd -b -R "$FX/sw-percpu.csv"
check "text: no exponent: $(grep -m1 e+ "$T_TMP/out")" eval '! grep -q "e+" "$T_TMP/out"'
check "text: cpu-clock in ns in full" grep -qE '^ +0 .* 507200000 ' "$T_TMP/out"
check "text: every recorded event is a rate column" grep -qE 'cpu_clock_ps.*page_faults_ps' "$T_TMP/out"

# --- 2. perf's event syntax on the command line -------------------------------------------
run_cmd --sysfs-root "$SKL" --explain 'cpu/event=0x3c,umask=0x0/,{cycles,instructions}:u,clk=cpu/cpu-cycles/k'
check "--explain PMU terms: exit 0 ($RC)" [ "$RC" -eq 0 ]
check "--explain: cpu/event=0x3c,umask=0x0/ encodes" grep -qE 'cpu/event=0x3c,umask=0x0/ +type=4 config=0x3c ' "$T_TMP/out"
check "--explain: group members" grep -qE '\[group 1\] +instructions:u +type=0 config=0x1 config1=0 exclude=kernel,hv' "$T_TMP/out"
check "--explain: named event with k" grep -qE '^  clk +cpu/cpu-cycles/k +type=4 config=0x3c config1=0 exclude=user,hv' "$T_TMP/out"
run_cmd --sysfs-root "$SKL" -b -n 1 -e 'cs,cpu/event=0x3c,umaskk=0x0/'
check "-e unknown term: exit 2 ($RC)" [ "$RC" -eq 2 ]
check "-e unknown term: column and terms: $(cat "$T_TMP/err")" grep -q -- '-e: column 19: unknown term "umaskk" for PMU cpu (terms: any, cmask, edge, event, inv, ldlat, offcore_rsp, pc, umask' "$T_TMP/err"
run_cmd -b -n 1 -e '{cs,migrations'
check "-e open group: exit 2 ($RC)" [ "$RC" -eq 2 ]
check "-e open group: column 1" grep -q -- "-e: column 1: group opened here is not closed" "$T_TMP/err"
run_cmd -b -n 2 -i 100ms -f json -e '{cs,migrations},cpu-clock:u,sw=faults'
check "-e group of software events counts ($RC: $(head -c 200 "$T_TMP/err"))" [ "$RC" -eq 0 ]
check "-e: events named from perf's names" grep -q '"cs":{"value":[0-9]*,"running":1.0,"state":"ok"},"migrations":{' "$T_TMP/out"
check "-e: name=" grep -q '"sw":{"value"' "$T_TMP/out"

# --- 3. the screen: a capture replays as a table of every event ---------------------------
if command -v tmux >/dev/null; then
	SOCK=pmutop-ps-$$
	TM=(tmux -L "$SOCK" -f /dev/null)
	T_CLEANUPS+=("tmux_close '$SOCK'")
	if "${TM[@]}" new-session -d -x 160 -y 30 -e TERM=xterm-256color -e NO_COLOR= \
		-e XDG_CONFIG_HOME="$T_TMP/config" -e XDG_STATE_HOME="$T_TMP/state" \
		"'$BIN' -R '$FX/sw-mux.csv' --speed 16; sleep 30" 2>/dev/null; then
		check "screen: recorded events as columns" wait_for 'cpu_clock_ps.*context_switch'
		check "screen: CPU rows and all" wait_for '^ +all +[0-9]'
		check "screen: no exponent" eval '! pane | grep -q "e+0"'
		tmux_close "$SOCK"
		# a server of its own: a new one on the socket just killed can race its exit
		TM=(tmux -L "$SOCK-2" -f /dev/null)
		T_CLEANUPS+=("tmux_close '$SOCK-2'")
		"${TM[@]}" new-session -d -x 160 -y 30 -e TERM=xterm-256color -e NO_COLOR= \
			-e XDG_CONFIG_HOME="$T_TMP/config" -e XDG_STATE_HOME="$T_TMP/state" \
			"'$BIN' -m sw -R '$FX/sw-aggregated.csv' --speed 16; sleep 30"
		check "screen: -m sw on an aggregated capture" wait_for '^mode sw '
		check "screen: sw columns" wait_for 'cs_per_s'
		check "screen: the all row" wait_for '^ +all +[0-9n]'
		check "screen: no CPU row for an aggregated capture" pane_lacks '^ +0 +[0-9n]'
		check "screen: no missing events" eval '! pane | grep -q "lacks"'
	else
		skip "tmux cannot start a server here"
	fi
else
	skip "tmux is not installed"
fi
t_done

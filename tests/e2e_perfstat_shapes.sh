#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_perfstat_shapes.sh: every shape perf stat writes, as perf wrote it (captures of this kind
# of machine's perf 6.1 in tests/fixtures/perfstat, hardware ones written in perf's layout, and
# this machine's perf live): --per-core/--per-socket/--per-die/--per-node (and newer perf's
# --per-cache/--per-cluster) imported as a row per unit with perf's counts, the human output
# and --metric-only refused with the remedy, -r N's variance column not in event names, the
# elapsed time as the tick length without -I, multiplexed counts exactly as printed, and garbage
# in any shape an error with its line number.
source "$(dirname "$0")/lib.sh"
FX=$T_SRC/tests/fixtures/perfstat
T=$T_TMP

# replay FILE ARGS...: pmutop -b -R FILE -f csv; status in $RC, output in $T/out, stderr $T/err
replay() {
	local f=$1
	shift
	timeout 30 "$BIN" -b -R "$f" -f csv "$@" >"$T/out" 2>"$T/err" </dev/null
	RC=$?
}

# 1. aggregated per unit: a row per unit perf printed, each count as perf printed it, compared by
# perfstat_units_check.py, which parses perf's file on its own (perf 6.1's layout)
# units FILE LABEL: pmutop -f csv and -f json of FILE against FILE itself
units() {
	local f=$1 what=$2
	replay "$f"
	check "$what: exit 0 ($(head -c 300 "$T/err"))" [ "$RC" = 0 ]
	cp "$T/out" "$T/u.csv"
	replay "$f" -f json
	cp "$T/out" "$T/u.json"
	check "$what: every unit, interval and count as perf printed" \
		python3 "$T_SRC/tests/perfstat_units_check.py" "$f" "$T/u.csv" "$T/u.json"
}
for f in sw-per-core.csv sw-per-core.json sw-per-socket.csv sw-per-socket.json sw-per-die.csv \
	sw-per-die.json sw-per-node.csv sw-per-node.json sw-per-core-repeat.csv \
	sw-per-socket-repeat.json sw-per-core-once.json hw-per-core.csv hw-per-socket-mux.json \
	hw-per-cache.csv hw-per-cluster.json; do
	units "$FX/$f" "$f"
done
# the checker is not blind: another capture's output does not pass for this one
replay "$FX/sw-per-core.csv"
cp "$T/out" "$T/u.csv"
replay "$FX/sw-per-core.csv" -f json
check "the check fails on another capture's output" \
	bash -c "! python3 '$T_SRC/tests/perfstat_units_check.py' '$FX/sw-per-core.json' '$T/u.csv' '$T/out' >/dev/null"
# -j --per-core keeps every core: both in every tick, with perf's CPU count
replay "$FX/sw-per-core.json" -f json
check "-j --per-core: both cores in every tick" \
	bash -c "[ \"\$(grep -c '\"core\":\"S0-D0-C0\",\"ncpus\":1,.*\"core\":\"S0-D0-C1\",\"ncpus\":1' '$T/out')\" = 3 ]"
# the row column names the unit; a unit's CPUs are perf's cpus column (8 per L3 here)
replay "$FX/hw-per-cache.csv" -f json
check "--per-cache: ncpus 8 per cache" grep -q '"cache":"S0-D0-L3-ID8","ncpus":8' "$T/out"
check "--per-cache: the rows are keyed by cache" grep -q '"rows":"cache"' "$T/out"
replay "$FX/hw-per-cache.csv"
check "--per-cache: 16e9 cycles over 8 CPUs is not flagged as too fast for one" \
	bash -c "! grep -q 'invalid' '$T/err' '$T/out'"
# a recording of the import keeps its units and their CPUs (header "row_key_cpus")
replay "$FX/hw-per-cache.csv" -r "$T/units.rec"
check "--per-cache import recorded: exit 0" [ "$RC" = 0 ]
check "--per-cache import recorded: the CPUs per unit in the header" \
	grep -q '"rows":"cache","row_keys":\["S0-D0-L3-ID0","S0-D0-L3-ID8"\],"row_key_cpus":\[8,8\]' "$T/units.rec"
replay "$T/units.rec"
cp "$T/out" "$T/u.csv"
replay "$T/units.rec" -f json
check "the recording replayed: every unit and count as perf printed, 8 CPUs each" \
	python3 "$T_SRC/tests/perfstat_units_check.py" "$FX/hw-per-cache.csv" "$T/u.csv" "$T/out"
# multiplexed and not counted units keep perf's marks
replay "$FX/hw-per-socket-mux.json"
check "a multiplexed unit: scaled at perf's 50 %" grep -q '^1.001002,1001.002,S0,event,instructions,5123456789,0.5000,scaled' "$T/out"
check "a <not counted> unit: n/c" grep -q '^2.002004,1001.002,S1,event,branch_misses,,0.0000,not_counted' "$T/out"
check "a <not supported> unit: n/s" grep -q '^2.002004,1001.002,S1,event,ref_cycles,,0.0000,not_supported' "$T/out"
# formulas over a unit's sums: ipc is perf's own "insn per cycle" of the unit (1.276923,
# 0.704918), GHz a per-CPU average over perf's 4 CPUs (4012345678 / 4 / 1.001002003 s)
replay "$FX/hw-per-socket-mux.json" -m cpi
check "per socket: ipc as perf printed it (S0)" grep -q '^1.001002,1001.002,S0,metric,ipc,1.27692,' "$T/out"
check "per socket: ipc as perf printed it (S1)" grep -q '^1.001002,1001.002,S1,metric,ipc,0.704918,' "$T/out"
check "per socket: GHz per CPU of the socket's 4" grep -q '^1.001002,1001.002,S0,metric,ghz,1.00208,' "$T/out"
# the elapsed time without -I: a CPU's longest enabled time (S0-D0-C1's context-switches ran
# 201168598 ns on its 1 CPU at 100 %)
replay "$FX/sw-per-core-repeat.csv"
check "--per-core -r 3: one tick of 201.169 ms" grep -q '^0.201169,201.169,S0-D0-C1,event,task_clock,201170000,' "$T/out"
# --rows: the capture's own unit, nothing else (there are no CPUs to regroup)
replay "$FX/sw-per-core.csv" --rows core
check "--rows core on a --per-core capture: exit 0" [ "$RC" = 0 ]
replay "$FX/sw-per-core.csv" --per-socket
check "--per-socket on a --per-core capture: exit 2 (got $RC)" [ "$RC" = 2 ]
check "--per-socket on a --per-core capture: the reason" grep -q "perf stat's sums per core" "$T/err"
replay "$FX/sw-per-core.csv" -c "rows socket"
check ":rows socket on a --per-core capture: the reason" grep -q "rows: the capture's rows are perf stat's sums per core" "$T/err"
# shapes that cannot be one capture: refused with the line
printf '     0.5,S0-D0-C0,1,10,,cycles,500000000,100.00,,\n     0.5,S0,2,10,,cycles,500000000,100.00,,\n' >"$T/mixed.csv"
replay "$T/mixed.csv"
check "a --per-socket line in a --per-core capture: exit 2 (got $RC)" [ "$RC" = 2 ]
check "a --per-socket line in a --per-core capture: the line" grep -q 'mixed.csv:2: a perf stat --per-socket line (S0) in a --per-core capture' "$T/err"
printf '     0.5,S0-D0-C0,x,10,,cycles,500000000,100.00,,\n' >"$T/nocpus.csv"
replay "$T/nocpus.csv"
check "a unit without its CPU count: exit 2 (got $RC)" [ "$RC" = 2 ]
check "a unit without its CPU count: the line" grep -q "nocpus.csv:1: core S0-D0-C0: bad CPU count 'x'" "$T/err"
printf '     0.5,CPU0,10,,cycles,500000000,100.00,,\n     0.5,S0,2,10,,cycles,500000000,100.00,,\n' >"$T/cpuunit.csv"
replay "$T/cpuunit.csv"
check "a unit line in a per-CPU capture: exit 2 (got $RC)" [ "$RC" = 2 ]
check "a unit line in a per-CPU capture: the line" grep -q 'cpuunit.csv:2: a perf stat --per-socket line (S0) in a per-CPU (-A) capture' "$T/err"

# 1b. live: this machine's perf, software events, every per-unit shape it writes
if ! command -v perf >/dev/null 2>&1; then
	skip "live perf stat per unit: no perf on this machine"
else
	E=cpu-clock,task-clock,context-switches,page-faults
	for shape in per-core:-x,:-I200 per-core:-j:-I200 per-socket:-x,:-I200 per-socket:-j:-I200 \
		per-die:-x,:-I200 per-die:-j:-I200 per-node:-x,:-I200 per-node:-j:-I200 \
		per-core:-x,:-r2 per-socket:-j:-r2; do
		IFS=: read -r opt fmt iv <<<"$shape"
		out=$T/live-$opt$fmt$iv
		if ! perf stat -a "--$opt" "$fmt" "$iv" -e "$E" -o "$out" -- sleep 0.5 >/dev/null 2>"$T/perf.err"; then
			fail "live perf stat --$opt $fmt $iv: perf failed ($(head -c 200 "$T/perf.err"))"
			continue
		fi
		units "$out" "live perf stat --$opt $fmt $iv"
	done
fi

# 2. perf's human output and --metric-only: the right diagnosis, exit 2
for f in sw-human.txt sw-human-A.txt sw-human-percpu.txt; do
	replay "$FX/$f"
	check "$f: exit 2 (got $RC)" [ "$RC" = 2 ]
	check "$f: the diagnosis ($(head -c 300 "$T/err"))" \
		grep -q "$f: perf stat's human output: re-run with -x, or -j" "$T/err"
done
replay "$FX/sw-metric-only.csv"
check "--metric-only: exit 2 (got $RC)" [ "$RC" = 2 ]
check "--metric-only: the diagnosis ($(head -c 300 "$T/err"))" \
	grep -q 'sw-metric-only.csv: perf stat --metric-only output holds metrics without the counts' "$T/err"

# 3. -r N: the variance column is not an event; without -I the tick is the elapsed time, which
# perf gives as task-clock / CPUs utilized (606.49 ms / 1.982 = 306.0 ms; 2002.35 / 2.001 = 1000.7 ms)
replay "$FX/sw-repeat.csv"
check "-r 3: exit 0 ($(head -c 300 "$T/err"))" [ "$RC" = 0 ]
check "-r 3: the events perf named" \
	bash -c "[ \"\$(cut -d, -f5 '$T/out' | grep -v '_ps$' | sort -u | tr '\n' ' ')\" = 'context_switches cpu_clock name page_faults task_clock ' ]"
check "-r 3: no variance in a name" bash -c "! grep -q '%\|_85\|19_64' '$T/out'"
check "-r 3: the counts perf printed" grep -q '^[0-9.]*,[0-9.]*,all,event,page_faults,45069,1.0000,ok' "$T/out"
check "-r 3: one tick of the elapsed 306.0 ms, not the summed CPU time" \
	grep -q '^0.305999,305.999,all,event,task_clock,' "$T/out"
replay "$FX/hw-repeat.csv"
check "hardware -r: the elapsed 1000.7 ms" grep -q '^1.000675,1000.675,all,event,cycles,4812345678,' "$T/out"
# per CPU without -I: the longest run time of a CPU (perf's own base for its /sec)
replay "$FX/sw-percpu-once.ssv"
check "per CPU without -I: exit 0" [ "$RC" = 0 ]
check "per CPU without -I: from the longest run time" grep -q 'one interval of 0.506 s, from the longest run time' "$T/err"
# aggregated, no -I, nothing that gives the elapsed time: refused
printf '10,,cycles,2000000000,100.00,,\n' >"$T/agg.csv"
replay "$T/agg.csv"
check "aggregated without -I or an elapsed time: exit 2 (got $RC)" [ "$RC" = 2 ]
check "aggregated without -I or an elapsed time: says what to add" grep -q 'add -e duration_time' "$T/err"

# 4. multiplexed small counts: exactly the counts perf printed (150 and 50 at 0.50 % running)
replay "$FX/hw-mux-small.csv"
check "small multiplexed counts: exit 0" [ "$RC" = 0 ]
check "small multiplexed counts: 150 in every interval" \
	bash -c "[ \"\$(grep ',0,event,branch_misses,' '$T/out' | cut -d, -f6 | tr '\n' ' ')\" = '150 150 150 150 ' ]"
check "small multiplexed counts: 50 in every interval" \
	bash -c "[ \"\$(grep ',0,event,cache_misses,' '$T/out' | cut -d, -f6 | tr '\n' ' ')\" = '50 50 50 50 ' ]"
check "small multiplexed counts: marked scaled" grep -q ',0,event,cache_misses,50,0.0200,scaled' "$T/out"

# 5. garbage in every shape: exit 2 with the line number, never 0
for f in sw-percpu.csv sw-aggregated.csv sw-percpu.json sw-aggregated.json sw-percpu-once.ssv sw-repeat.csv \
	sw-per-core.csv sw-per-core.json sw-per-socket-repeat.json hw-per-cache.csv; do
	sed '4a this line is not what perf stat writes' "$FX/$f" >"$T/g-$f"
	replay "$T/g-$f"
	check "garbage in $f: exit 2 (got $RC)" [ "$RC" = 2 ]
	check "garbage in $f: the line number ($(head -c 300 "$T/err"))" grep -q "g-$f:5: not a perf stat" "$T/err"
done
t_done

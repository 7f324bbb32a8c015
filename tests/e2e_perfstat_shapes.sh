#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_perfstat_shapes.sh: every shape perf stat writes, as perf wrote it (captures of this kind
# of machine's perf 6.1 in tests/fixtures/perfstat, hardware ones written in perf's layout):
# --per-core/--per-socket/--per-die/--per-node refused with the option to use, the human output
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

# 1. aggregated per unit: a clear refusal naming the option and the unit perf printed
for shape in per-core:csv:S0-D0-C0 per-core:json:S0-D0-C0 per-socket:csv:S0 per-socket:json:S0 \
	per-die:csv:S0-D0 per-node:csv:N0; do
	IFS=: read -r opt ext unit <<<"$shape"
	replay "$FX/sw-$opt.$ext"
	check "--$opt $ext: exit 2 (got $RC)" [ "$RC" = 2 ]
	check "--$opt $ext: the line, the option and the unit ($(head -c 300 "$T/err"))" \
		grep -q "sw-$opt.$ext:3: perf stat --$opt output (one row per .*, here $unit): .*re-run perf stat with -A instead of --$opt" "$T/err"
	check "--$opt $ext: no output" [ ! -s "$T/out" ]
done
replay "$FX/hw-per-core.csv"
check "hardware --per-core: refused (exit $RC)" [ "$RC" = 2 ]
check "hardware --per-core: the reason" grep -q 'hw-per-core.csv:3: perf stat --per-core output' "$T/err"

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
for f in sw-percpu.csv sw-aggregated.csv sw-percpu.json sw-aggregated.json sw-percpu-once.ssv sw-repeat.csv; do
	sed '4a this line is not what perf stat writes' "$FX/$f" >"$T/g-$f"
	replay "$T/g-$f"
	check "garbage in $f: exit 2 (got $RC)" [ "$RC" = 2 ]
	check "garbage in $f: the line number ($(head -c 300 "$T/err"))" grep -q "g-$f:5: not a perf stat" "$T/err"
done
t_done

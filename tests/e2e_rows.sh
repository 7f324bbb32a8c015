#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_rows.sh: rows keyed by a unit (--per-core, --per-socket, :rows, ...) on sysfs trees with SMT
# siblings and two sockets: each row's counts are the sums of its CPUs' rows and its metrics the
# formulas over those sums (tests/rows_check.py reads the groups from the tree itself); the key
# in text, CSV, JSON and OpenMetrics; recordings, flight recordings, replay and --remote; missing
# topology files; bad input;
# and, where perf runs, the labels and grouping of perf stat --per-core on this machine.
source "$(dirname "$0")/lib.sh"

CHECK="python3 $T_SRC/tests/rows_check.py"
SMT=$T_SRC/tests/sysfs/x86-2s-smt
SIM=(-b --backend sim --seed 3 -n 3 -i 100 --sim-cpus 8 --no-rc)
# same_json A B: the same JSON Lines records but for the wall-clock time and pmutop's own figures
same_json() {
	python3 -c 'import json,sys
r=lambda p:[{k:v for k,v in json.loads(l).items() if k not in ("timestamp","self","host")} for l in open(p)]
sys.exit(r(sys.argv[1])!=r(sys.argv[2]))' "$1" "$2"
}

# --- sums and formulas, per unit ----------------------------------------------------------------
run_cmd "${SIM[@]}" --sysfs-root "$SMT" -m cpi -f json
check "per-CPU run exits 0 ($(head -c 200 "$T_TMP/err"))" [ "$RC" -eq 0 ]
cp "$T_TMP/out" "$T_TMP/cpu.json"
for u in core die socket cluster cache; do
	run_cmd "${SIM[@]}" --sysfs-root "$SMT" -m cpi -f json --rows $u
	cp "$T_TMP/out" "$T_TMP/$u.json"
	check "--rows $u: sums of the CPU rows, formulas of the sums ($($CHECK sums "$SMT" $u "$T_TMP/cpu.json" "$T_TMP/$u.json" | head -3))" \
		$CHECK sums "$SMT" $u "$T_TMP/cpu.json" "$T_TMP/$u.json"
done
# the perf-style options are the same as --rows
for u in core socket; do
	run_cmd "${SIM[@]}" --sysfs-root "$SMT" -m cpi -f json --per-$u
	check "--per-$u is --rows $u" same_json "$T_TMP/out" "$T_TMP/$u.json"
done
# :rows at start-up (-c) is the option
run_cmd "${SIM[@]}" --sysfs-root "$SMT" -m cpi -f json -c "rows socket"
check ":rows socket is --per-socket" same_json "$T_TMP/out" "$T_TMP/socket.json"
check "core rows: S0-D0-C0 .. S1-D0-C1, two CPUs each" python3 -c '
import json,sys
r=json.loads(open(sys.argv[1]).readline())
sys.exit(not([(c["core"],c["ncpus"]) for c in r["cpus"]]==[("S0-D0-C0",2),("S0-D0-C1",2),("S1-D0-C0",2),("S1-D0-C1",2)]))' "$T_TMP/core.json"

# --- the key in text, CSV and OpenMetrics ------------------------------------------------------
run_cmd "${SIM[@]}" --sysfs-root "$SMT" -m cpi -f text --per-socket
check "text: a SOCKET column with S0, S1 and all" bash -c "grep -qE '^SOCKET ' '$T_TMP/out' && grep -qE '^ +S0 ' '$T_TMP/out' && grep -qE '^ +S1 ' '$T_TMP/out' && grep -qE '^ +all ' '$T_TMP/out'"
run_cmd "${SIM[@]}" --sysfs-root "$SMT" -m cpi -f csv --per-core
check "CSV: the key column is named core" bash -c "head -1 '$T_TMP/out' | grep -q '^time_s,interval_ms,core,kind,'"
check "CSV: the values of the JSON rows" python3 -c '
import json,sys
j=[json.loads(l) for l in open(sys.argv[1])]
want={}
for t,r in enumerate(j):
    for c in r["cpus"]:
        for e,v in c["events"].items(): want[(t,c["core"],e)]=v["value"]
got={}; t=-1; last=None
for l in open(sys.argv[2]).readlines()[1:]:
    f=l.split(",")
    if f[0]!=last: t+=1; last=f[0]
    if f[3]=="event" and f[2]!="all": got[(t,f[2],f[4])]=int(f[5])
sys.exit(got!=want)' "$T_TMP/core.json" "$T_TMP/out"
run_cmd "${SIM[@]}" --sysfs-root "$SMT" -m cpi -f openmetrics --per-core -n 1
cpi=$(python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); print([c for c in r["cpus"] if c["core"]=="S1-D0-C0"][0]["metrics"]["cpi"])' "$T_TMP/core.json")
check "OpenMetrics: a core=\"S1-D0-C0\" gauge with the row's cpi ($cpi)" python3 -c '
import re,sys
for l in open(sys.argv[1]):
    m=re.match(r"pmutop_metric_cpi\{host=\"[^\"]*\",mode=\"cpi\",core=\"S1-D0-C0\",core_type=\"\"\} (\S+)",l)
    if m: sys.exit(abs(float(m.group(1))-float(sys.argv[2]))>1e-5*float(sys.argv[2]))
sys.exit(1)' "$T_TMP/out" "$cpi"
check "OpenMetrics: the all row keeps cpu=\"all\"" grep -q 'pmutop_metric_cpi{host="[^"]*",mode="cpi",cpu="all"' "$T_TMP/out"
if /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then
	check "OpenMetrics with core labels parses strictly" \
		/usr/bin/python3 "$T_SRC/tests/openmetrics_check.py" parse "$T_TMP/out"
else
	skip "python3-prometheus-client is not installed: the strict OpenMetrics parse is left out"
fi

# --- core types (hybrid): the groups are the core PMUs' cpus files -----------------------------
HY=$T_SRC/tests/sysfs/x86-hybrid
run_cmd "${SIM[@]}" --sysfs-root "$HY" -m sw -f json --per-type -n 1
want="$(cat "$HY/sys/bus/event_source/devices/cpu_core/cpus") $(cat "$HY/sys/bus/event_source/devices/cpu_atom/cpus")"
check "--per-type: cpu_core and cpu_atom rows of 4 CPUs each (tree: $want)" python3 -c '
import json,sys
r=json.loads(open(sys.argv[1]).readline())
sys.exit(not(r["rows"]=="type" and [(c["type"],c["ncpus"]) for c in r["cpus"]]==[("cpu_core",4),("cpu_atom",4)]))' "$T_TMP/out"
check "--per-type: the tree's CPU lists are 0-3 and 4-7" [ "$want" = "0-3 4-7" ]

# --- missing files degrade, said once ----------------------------------------------------------
BL=$T_SRC/tests/sysfs/arm-biglittle-topo
BLA=(-b --backend sim --seed 3 -n 3 -i 100 --sim-cpus 6 --sim-family generic --no-rc --sysfs-root "$BL" -m cpi -f json)
run_cmd "${BLA[@]}"
cp "$T_TMP/out" "$T_TMP/bl-cpu.json"
run_cmd "${BLA[@]}" --per-cluster
cp "$T_TMP/out" "$T_TMP/bl-cluster.json"
check "no die_id: said once ($(grep -c die_id "$T_TMP/err") times)" [ "$(grep -c 'no die_id: a die per socket' "$T_TMP/err")" -eq 1 ]
check "big.LITTLE clusters: sums and formulas ($($CHECK sums "$BL" cluster "$T_TMP/bl-cpu.json" "$T_TMP/bl-cluster.json" | head -3))" \
	$CHECK sums "$BL" cluster "$T_TMP/bl-cpu.json" "$T_TMP/bl-cluster.json"
run_cmd "${SIM[@]}" --sim-cpus 4 --sysfs-root "$T_SRC/tests/sysfs/x86-skylake" -m cpi -f csv --per-core -n 1
check "no topology/: each CPU a row of its own, CPU0..CPU3" bash -c "grep -q '^[^,]*,[^,]*,CPU3,event,cycles,' '$T_TMP/out' && ! grep -q ',S0-D0' '$T_TMP/out'"
check "no topology/: said once" [ "$(grep -c 'no topology/ for CPU 0-3' "$T_TMP/err")" -eq 1 ]

# --- bad input: a clear message, nothing changes -----------------------------------------------
run_cmd "${SIM[@]}" --sysfs-root "$SMT" --rows thread
check "--rows thread: exit 2 naming the units" bash -c "[ $RC -eq 2 ] && grep -q 'unknown unit \"thread\" (units: cpu|core|die|socket|cluster|cache|type)' '$T_TMP/err'"
run_cmd "${SIM[@]}" --sysfs-root "$SMT" -m cpi -f json -c "rows sock"
check ":rows sock (a unique prefix) is socket" same_json "$T_TMP/out" "$T_TMP/socket.json"
run_cmd "${SIM[@]}" --sysfs-root "$SMT" -m cpi -f json -c "rows bogus"
check "-c 'rows bogus': exit 2 naming the units" bash -c "[ $RC -eq 2 ] && grep -q 'unknown unit \"bogus\"' '$T_TMP/err'"
run_cmd -b --no-rc -R "$T_SRC/tests/fixtures/perfstat/sw-percpu.csv" -f json --per-core
check "a perf stat import has no topology: --per-core is refused ($(head -c 160 "$T_TMP/err"))" \
	bash -c "[ $RC -eq 2 ] && grep -q 'no CPU topology' '$T_TMP/err'"
run_cmd -b --no-rc -R "$T_SRC/tests/fixtures/perfstat/sw-percpu.csv" -f json -c "rows core"
check "-c 'rows core' on the import: the same refusal" bash -c "[ $RC -ne 0 ] && grep -q 'no CPU topology' '$T_TMP/err'"

# --- recordings carry the topology and the unit; replay reproduces the rows ---------------------
run_cmd "${SIM[@]}" --sysfs-root "$SMT" -m cpi -f json --per-core -r "$T_TMP/core.rec"
check "a --per-core recording's header has the topology and rows \"core\"" python3 -c '
import json,sys
h=json.loads(open(sys.argv[1]).readline())
sys.exit(not(h["rows"]=="core" and h["topology"]["5"]==[0,0,2,1,3,0]))' "$T_TMP/core.rec"
run_cmd -b --no-rc -R "$T_TMP/core.rec" -f json
check "its replay has the live run's core rows" python3 -c '
import json,sys
a=[json.loads(l) for l in open(sys.argv[1])]; b=[json.loads(l) for l in open(sys.argv[2])]
sys.exit(not(len(a)==len(b)==3 and all(x["rows"]==y["rows"]=="core" and x["cpus"]==y["cpus"] and x["total"]==y["total"] for x,y in zip(a,b))))' "$T_TMP/core.json" "$T_TMP/out"
run_cmd "${SIM[@]}" --sysfs-root "$SMT" -m cpi -f json -r "$T_TMP/cpu.rec"
run_cmd -b --no-rc -R "$T_TMP/cpu.rec" -f json --per-socket
cp "$T_TMP/out" "$T_TMP/replay-socket.json"
run_cmd -b --no-rc -R "$T_TMP/cpu.rec" -f json
check "a per-CPU recording replayed --per-socket: sums and formulas" \
	$CHECK sums "$SMT" socket "$T_TMP/out" "$T_TMP/replay-socket.json"

# --- the flight recorder keeps the topology and the unit; its replay = live at the same times ---
run_cmd "${SIM[@]}" --sysfs-root "$SMT" -m cpi -f json --per-core -n 4 --flight 30 --flight-out "$T_TMP/fl" --alert "cpi > 0 on 0"
cp "$T_TMP/out" "$T_TMP/flive.json"
check "a rule wrote a flight recording" [ -s "$T_TMP/fl-1.jsonl" ]
run_cmd -b --no-rc -R "$T_TMP/fl-1.jsonl" -f json
check "the flight recording replayed: core rows = live at the same times" python3 -c '
import json,sys
a={}
for l in open(sys.argv[1]):
    r=json.loads(l); a[r["time"]]=r
b=[json.loads(l) for l in open(sys.argv[2])]
sys.exit(not(len(b)>=3 and all(y["rows"]=="core" and y["time"] in a and a[y["time"]]["cpus"]==y["cpus"] and a[y["time"]]["total"]==y["total"] for y in b)))' "$T_TMP/flive.json" "$T_TMP/out"

# --- a remote board: the agent's stream carries the topology, the viewer sums ----------------
AGENT=${PMUTOP_AGENT_BIN:-$(dirname "$BIN")/pmutop-agent}
[ -x "$AGENT" ] || AGENT=$BIN
printf '#!/bin/sh\n# stand-in for "ssh -T -- HOST": runs the command line here\nshift 2\nexec sh -c "$*"\n' >"$T_TMP/transport.sh"
chmod +x "$T_TMP/transport.sh"
run_cmd -b --no-rc -n 3 -i 100 -m cpi -f json --per-core --remote board --transport "$T_TMP/transport.sh" \
	--agent "$(printf '%q' "$AGENT") --backend sim --seed 3 --sim-cpus 8 --sysfs-root $(printf '%q' "$SMT")"
check "--remote --per-core: the live run's core rows ($(head -c 160 "$T_TMP/err"))" python3 -c '
import json,sys
a=[json.loads(l) for l in open(sys.argv[1])]; b=[json.loads(l) for l in open(sys.argv[2])]
sys.exit(not(len(a)==len(b)==3 and all(y["backend"]=="remote" and x["cpus"]==y["cpus"] and x["total"]==y["total"] for x,y in zip(a,b))))' "$T_TMP/core.json" "$T_TMP/out"

# --- perf stat on this machine: the same labels and CPUs per row (software events) --------------
# Optional by nature: it needs perf and system-wide counting here; the sysfs trees above are the
# test that always runs.
if ! command -v perf >/dev/null 2>&1; then
	skip "perf is not installed: the comparison with perf stat --per-core is left out"
elif ! perf stat -a --per-core -x, -e task-clock sleep 0.05 >/dev/null 2>"$T_TMP/perf-probe.csv" ||
	! grep -q 'task-clock' "$T_TMP/perf-probe.csv"; then
	skip "perf stat -a --per-core does not run here ($(head -c 120 "$T_TMP/perf-probe.csv"))"
else
	for u in core die socket; do
		perf stat -a --per-$u -x, -e task-clock,context-switches sleep 0.1 >/dev/null 2>"$T_TMP/perf-$u.csv"
		run_cmd -b --no-rc -n 1 -i 100 -m sw -f json --per-$u
		if [ "$RC" -ne 0 ]; then
			skip "pmutop -m sw does not count here: $(head -c 120 "$T_TMP/err")"
			continue
		fi
		check "--per-$u: perf stat's labels and CPUs per row ($($CHECK perf "$T_TMP/perf-$u.csv" "$T_TMP/out"))" \
			$CHECK perf "$T_TMP/perf-$u.csv" "$T_TMP/out"
	done
fi

t_done

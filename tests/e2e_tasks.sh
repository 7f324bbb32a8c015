#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_tasks.sh: counting tasks and cgroups, and perf's habits. The options (-p is a process, not
# --force; -a, -A, -I, -x, -j as perf stat means them; a command after --) on the sim; where
# perf_event_open counts software events here: `pmutop -b -f json -- CMD` against
# `perf stat -x, -e task-clock,page-faults,context-switches CMD` (5 runs each: page faults
# within 1 % (medians), the exit status CMD's; task-clock within 5 % of the kernel's CPU time of
# the same run, getrusage of CMD's tree, the reference perf stat is held to as well),
# -p on a busy loop and -G on a cgroup the test makes with the loop moved into it against the
# scheduler's own count of the loop's CPU time (/proc/PID/schedstat), a task that exits mid-run
# and a command that forks children.
source "$(dirname "$0")/lib.sh"

SIM=(-b --backend sim --no-rc -n 1 -i 100)
EV=task-clock,page-faults,context-switches

# --- perf's habits ------------------------------------------------------------------------------
run_cmd "${SIM[@]}" -p $$ -f json
check "-p PID counts a process, not --force (rc $RC: $(head -c 160 "$T_TMP/err"))" \
	grep -q "\"task\":\"[^\"]*\\[$$\\]\"" "$T_TMP/out"
run_cmd "${SIM[@]}" -p 999999999
check "-p of no process is a usage error naming it (rc $RC)" \
	bash -c "[ $RC -eq 2 ] && grep -q 'no such process' '$T_TMP/err'"
run_cmd "${SIM[@]}" -p 12x
check "-p 12x is a usage error (rc $RC)" bash -c "[ $RC -eq 2 ] && grep -q 'not a list of ids' '$T_TMP/err'"
run_cmd "${SIM[@]}" -a -A -f json
check "-a and -A are accepted: every CPU, a row each (rc $RC)" \
	bash -c "[ $RC -eq 0 ] && grep -q '\"cpu\":' '$T_TMP/out'"
run_cmd "${SIM[@]}" -I 250 -f json
check "-I 250 is perf's interval in ms" grep -q '"interval_ms":250.0' "$T_TMP/out"
run_cmd "${SIM[@]}" -x,
check "-x, writes CSV" grep -q '^time_s,' "$T_TMP/out"
run_cmd "${SIM[@]}" -x ';'
check "-x ';' names pmutop's option (rc $RC)" bash -c "[ $RC -eq 2 ] && grep -q -- '-f csv' '$T_TMP/err'"
run_cmd "${SIM[@]}" -j
check "-j writes JSON" python3 -c 'import json,sys; json.loads(open(sys.argv[1]).readline())' "$T_TMP/out"
run_cmd "${SIM[@]}" true
check "a bare command names -- (rc $RC)" bash -c "[ $RC -eq 2 ] && grep -q 'after --' '$T_TMP/err'"
run_cmd "${SIM[@]}" -p 1 -- true
check "-p and -- CMD together are refused (rc $RC)" [ "$RC" -eq 2 ]
run_cmd "${SIM[@]}" -p 1 -G x
check "tasks and cgroups together are refused (rc $RC)" [ "$RC" -eq 2 ]
run_cmd "${SIM[@]}" -u no-such-user-here
check "-u of no user is refused (rc $RC)" bash -c "[ $RC -eq 2 ] && grep -q 'no user' '$T_TMP/err'"

# --- against perf stat, where software events count here ----------------------------------------
if ! command -v perf >/dev/null 2>&1 || ! perf stat -x, -e task-clock true >/dev/null 2>&1; then
	skip "perf stat does not run here: the comparisons with it need it"
	t_done
fi
if ! timeout 20 "$BIN" -b -n 1 -i 100 --no-rc -e task-clock -p $$ >/dev/null 2>&1; then
	skip "perf_event_open cannot count a task here (perf_event_paranoid, no CAP_PERFMON)"
	t_done
fi

# same_run LIVE REPLAY: the same JSON Lines records but for where they came from (the source, the
# recorded machine and file), the host, the
# wall-clock time and pmutop's own figures
same_run() {
	python3 -c 'import json,sys
r=lambda p:[{k:v for k,v in json.loads(l).items() if k not in ("timestamp","self","host","backend","machine","replay")} for l in open(p)]
a,b=r(sys.argv[1]),r(sys.argv[2])
if len(a)!=len(b): print("records:",len(a),"live,",len(b),"replayed")
for n,(x,y) in enumerate(zip(a,b)):
    for k in x:
        if x[k]!=y.get(k): print("record",n+1,k,str(x[k])[:150],"|",str(y.get(k))[:150]); break
sys.exit(not (a and a==b))' "$1" "$2"
}

# A command whose page faults do not vary (dd's buffer) with some CPU time (the loop).
CMD=(sh -c 'dd if=/dev/zero of=/dev/null bs=4M count=25 2>/dev/null; i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; exit 7')
# sum_json FILE: each event's sum over the ticks of the task rows, "name value" lines
sum_json() {
	python3 -c 'import json,sys
s={}
for l in open(sys.argv[1]):
    o=json.loads(l)
    for row in o["cpus"]:
        for k,v in row["events"].items():
            if v["value"] is not None: s[k]=s.get(k,0)+v["value"]
for k,v in sorted(s.items()): print(k,v)' "$1"
}
: >"$T_TMP/p.sums"
: >"$T_TMP/f.sums"
st_ok=1
for i in 1 2 3 4 5; do
	timeout 60 "$BIN" -b --no-rc -i 100ms -f json -e $EV -- "${CMD[@]}" >"$T_TMP/p.json" 2>"$T_TMP/p.err"
	rc=$?
	[ "$rc" -eq 7 ] || st_ok=0
	sum_json "$T_TMP/p.json" | tr '\n' ' ' >>"$T_TMP/p.sums"
	echo >>"$T_TMP/p.sums"
	perf stat -x, -e $EV "${CMD[@]}" 2>"$T_TMP/f.csv"
	awk -F, '{ print $3, $1 }' "$T_TMP/f.csv" | tr '\n' ' ' >>"$T_TMP/f.sums"
	echo >>"$T_TMP/f.sums"
done
check "-- CMD exits with CMD's status 7 in 5 runs ($(tail -3 "$T_TMP/p.err" | tr '\n' ' '))" [ "$st_ok" = 1 ]
check "-- CMD prints perf stat's summary" grep -q "Performance counter stats for 'sh -c" "$T_TMP/p.err"
# median NAME FILE: the median of NAME's values over the runs' lines
median() {
	python3 -c 'import statistics,sys
v=[]
for l in open(sys.argv[2]):
    w=l.split()
    d=dict(zip(w[0::2],w[1::2]))
    if sys.argv[1] in d: v.append(float(d[sys.argv[1]]))
print(statistics.median(v) if len(v)==5 else "nan")' "$1" "$2"
}
within() { # A B FRACTION: |A - B| <= FRACTION * B
	python3 -c 'import sys; a,b,f=map(float,sys.argv[1:]); sys.exit(not (b > 0 and abs(a-b) <= f*b))' "$@"
}
pf_p=$(median page_faults "$T_TMP/p.sums") pf_f=$(median page-faults "$T_TMP/f.sums")
tc_p=$(median task_clock "$T_TMP/p.sums") tc_f=$(median task-clock "$T_TMP/f.sums")
cs_p=$(median context_switches "$T_TMP/p.sums") cs_f=$(median context-switches "$T_TMP/f.sums")
# perf stat -x, prints task-clock in msec
tc_f_ns=$(python3 -c "print(float('$tc_f') * 1e6)")
echo "-- CMD, medians of 5: page faults pmutop $pf_p perf $pf_f; task-clock ns pmutop $tc_p perf $tc_f_ns; context switches pmutop $cs_p perf $cs_f"
check "-- CMD: page faults within 1 % of perf stat's (pmutop $pf_p, perf $pf_f)" within "$pf_p" "$pf_f" 0.01
# task-clock against perf stat's, each run's task-clock divided by the kernel's CPU time of the
# same run: the same work's CPU time varies from run to run by more than the tolerance (perf stat
# alone, 6 runs of CMD back to back on one machine: 269 to 443 ms). RUSAGE runs CMD and writes the
# CPU time (ns) of itself and its reaped children (getrusage, user + system: the scheduler's
# runtime of the whole tree that -- CMD counts). The two are not equal: task-clock also counts the
# wrapper's own exit after its getrusage (python's teardown, ~16 ms here: 1.066 to 1.098 of the
# reference for this CMD, perf stat and pmutop alike); what perf stat shows per second of the
# kernel's, pmutop shows too.
RUSAGE=(python3 -c 'import os,sys,resource
pid=os.fork()
if pid==0: os.execvp(sys.argv[2],sys.argv[2:])
_,st,_=os.wait4(pid,0)
s=resource.getrusage(resource.RUSAGE_SELF); c=resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1],"w").write("%d\n" % round((s.ru_utime+s.ru_stime+c.ru_utime+c.ru_stime)*1e9))
sys.exit(os.waitstatus_to_exitcode(st))')
: >"$T_TMP/tc.ratios"
for i in 1 2 3 4 5; do
	rm -f "$T_TMP/ru.p" "$T_TMP/ru.f"
	timeout 60 "$BIN" -b --no-rc -i 100ms -f json -e task-clock -- "${RUSAGE[@]}" "$T_TMP/ru.p" "${CMD[@]}" >"$T_TMP/tc.json" 2>/dev/null
	perf stat -x, -e task-clock "${RUSAGE[@]}" "$T_TMP/ru.f" "${CMD[@]}" 2>"$T_TMP/tc.csv"
	tc_run=$(sum_json "$T_TMP/tc.json" | awk '$1 == "task_clock" { print $2 }')
	tf_run=$(awk -F, '/task-clock/ { print $1 * 1e6; exit }' "$T_TMP/tc.csv")
	echo "${tc_run:-0} $(cat "$T_TMP/ru.p" 2>/dev/null || echo 0) ${tf_run:-0} $(cat "$T_TMP/ru.f" 2>/dev/null || echo 0)" >>"$T_TMP/tc.ratios"
done
# MEDIAN-RATIO COL-A COL-B: the median over the runs of column A / column B
median_ratio() {
	python3 -c 'import statistics,sys
r=[]
for l in open(sys.argv[1]):
    w=[float(x) for x in l.split()]
    a,b=w[int(sys.argv[2])],w[int(sys.argv[3])]
    r.append(a/b if b > 0 else float("nan"))
print(statistics.median(r) if len(r)==5 else "nan", " ".join("%.3f" % x for x in r))' "$T_TMP/tc.ratios" "$@"
}
read -r tc_ratio tc_runs < <(median_ratio 0 1)
read -r tf_ratio tf_runs < <(median_ratio 2 3)
tc_vs_perf=$(python3 -c "print($tc_ratio / $tf_ratio)")
echo "-- CMD: task-clock / the kernel's CPU time of the same run, median of 5: pmutop $tc_ratio ($tc_runs), perf stat $tf_ratio ($tf_runs): $tc_vs_perf; across runs, medians pmutop $tc_p ns perf $tc_f_ns ns"
check "-- CMD: task-clock a second of the kernel's CPU time within 5 % of perf stat's (pmutop $tc_ratio, runs $tc_runs; perf stat $tf_ratio, runs $tf_runs)" \
	within "$tc_ratio" "$tf_ratio" 0.05
check "-- CMD: context switches counted (pmutop $cs_p, perf $cs_f)" \
	python3 -c "import sys; sys.exit(not float('$cs_p') > 0)"

# A command that forks children, one exiting early: all counted (inherit), the status its own.
FORK=(sh -c 'dd if=/dev/zero of=/dev/null bs=4M count=10 2>/dev/null & (i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done) & wait; exit 3')
timeout 60 "$BIN" -b --no-rc -i 100ms -f json -e $EV -r "$T_TMP/fork.rec" -- "${FORK[@]}" >"$T_TMP/fork.json" 2>"$T_TMP/fork.err"
rc=$?
run_cmd -b --no-rc -f json -R "$T_TMP/fork.rec"
cp "$T_TMP/out" "$T_TMP/fork.replay.json"
check "-- CMD with children: the replay of its recording equals the live run (rc $RC: $(head -c 160 "$T_TMP/err"))" \
	same_run "$T_TMP/fork.json" "$T_TMP/fork.replay.json"
check "-- CMD with children: its status 3 (rc $rc)" [ "$rc" -eq 3 ]
perf stat -x, -e page-faults "${FORK[@]}" 2>"$T_TMP/fork.csv"
pf_child=$(sum_json "$T_TMP/fork.json" | awk '$1 == "page_faults" { print $2 }')
pf_perf=$(awk -F, '{ print $1; exit }' "$T_TMP/fork.csv")
check "-- CMD with children: their page faults counted, as perf stat's within 2 % (pmutop $pf_child, perf $pf_perf)" \
	within "${pf_child:-0}" "$pf_perf" 0.02

# --- -p and -G on a busy loop, against the scheduler's count (/proc/PID/schedstat) ------------
sh -c 'while :; do :; done' &
LOOP=$!
T_CLEANUPS+=("kill $LOOP 2>/dev/null; wait $LOOP 2>/dev/null")
sched_ns() { awk '{ print $1 }' "/proc/$1/schedstat"; }
# share PROGRAM-JSON EVENT: the event's sum over the rows / the sum of the intervals (ns), the
# first record left out: it counts from before the first record was seen (count_window)
share() {
	python3 -c 'import json,sys
t=v=0
for l in list(open(sys.argv[1]))[1:]:
    o=json.loads(l); t+=o["interval_ms"]*1e6
    for row in o["cpus"]:
        x=row["events"][sys.argv[2]]["value"]
        v+=x or 0
print(v/t if t else 0, v)' "$1" "$2"
}
# count_window FILE ARGS...: pmutop ARGS writing FILE, with the loop's scheduler time taken when
# its first record arrives (a, ta) and when its last (the 6th) does (b, tb): the window its
# records 2..6 count, without pmutop's start-up and exit, when the loop gets another share of the
# CPUs (2 CPUs shared with another test and, under ASan, a slower start)
lines() { wc -l <"$1" 2>/dev/null || echo 0; }
count_window() {
	local out=$1 i
	shift
	timeout 30 "$BIN" "$@" >"$out" 2>"$out.err" &
	local p=$!
	for ((i = 0; i < 2000 && $(lines "$out") < 1; i++)); do sleep 0.01; done
	a=$(sched_ns $LOOP) ta=$(date +%s%N)
	for ((i = 0; i < 2000 && $(lines "$out") < 6; i++)); do sleep 0.01; done
	b=$(sched_ns $LOOP) tb=$(date +%s%N)
	wait $p
}
count_window "$T_TMP/pid.json" -b --no-rc -n 6 -i 500ms -f json -e task-clock -p $LOOP
read -r sh_p ns_p < <(share "$T_TMP/pid.json" task_clock)
sh_s=$(python3 -c "print(($b - $a) / ($tb - $ta))")
echo "-p: cpu share pmutop $sh_p, /proc/$LOOP/schedstat $sh_s"
check "-p PID: the loop's CPU share within 5 % of /proc's (pmutop $sh_p, /proc $sh_s)" within "$sh_p" "$sh_s" 0.05
check "-p PID: one task's all row is that task's row (a task counts once, not once per thread)" \
	python3 -c 'import json,sys
for l in open(sys.argv[1]):
    o=json.loads(l); r=o["cpus"][0]
    if len(o["cpus"])!=1 or r["metrics"]!=o["total"]["metrics"]: sys.exit(1)' "$T_TMP/pid.json"

# the same rows in CSV and OpenMetrics: a task column / label, one series per task
run_cmd -b --no-rc -n 2 -i 200ms -f csv -e task-clock -p $LOOP
check "-p in CSV: a task column, the row comm[pid]" \
	bash -c "head -1 '$T_TMP/out' | grep -q '^time_s,interval_ms,task,' && grep -q ',sh\[$LOOP\],event,task_clock,' '$T_TMP/out'"
run_cmd -b --no-rc -n 2 -i 200ms -f openmetrics -e task-clock -p $LOOP
check "-p in OpenMetrics: task=\"sh[$LOOP]\" labels, no per-thread cpu series" \
	bash -c "grep -q 'pmutop_event_total{[^}]*task=\"sh\[$LOOP\]\"' '$T_TMP/out' && ! grep -q 'pmutop_event_total{[^}]*cpu=' '$T_TMP/out'"
if python3 -c 'import prometheus_client' 2>/dev/null; then
	check "-p in OpenMetrics parses ($(python3 "$T_SRC/tests/openmetrics_check.py" parse "$T_TMP/out" 2>&1 | tail -1))" \
		python3 "$T_SRC/tests/openmetrics_check.py" parse "$T_TMP/out"
fi

# cgroups: the hierarchy perf counts cgroups of (a v1 perf_event one, else the v2 mount)
CGROOT=$(awk '$3 == "cgroup" && $4 ~ /perf_event/ { print $2; exit }' /proc/self/mounts)
[ -n "$CGROOT" ] || CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
CG=pmutop-e2e-$$
if [ -z "$CGROOT" ] || ! mkdir "$CGROOT/$CG" 2>/dev/null; then
	skip "no cgroup hierarchy to make a group in here (not root, or no cgroup mount)"
else
	T_CLEANUPS+=("kill $LOOP 2>/dev/null; wait $LOOP 2>/dev/null; rmdir '$CGROOT/$CG' 2>/dev/null")
	echo $LOOP >"$CGROOT/$CG/cgroup.procs"
	count_window "$T_TMP/cg.json" -b --no-rc -n 6 -i 500ms -f json -e cpu-clock -G "$CG"
	read -r sh_c ns_c < <(share "$T_TMP/cg.json" cpu_clock)
	sh_s=$(python3 -c "print(($b - $a) / ($tb - $ta))")
	echo "-G: cpu share pmutop $sh_c, /proc/$LOOP/schedstat $sh_s"
	check "-G: the row is the cgroup's path" grep -q "\"cgroup\":\"$CG\"" "$T_TMP/cg.json"
	check "-G CGROUP: its CPU share within 5 % of /proc's (pmutop $sh_c, /proc $sh_s)" within "$sh_c" "$sh_s" 0.05
	run_cmd -b --no-rc -n 1 -i 200ms -f csv -e cpu-clock --for-each-cgroup "^$CG\$"
	check "--for-each-cgroup PATTERN finds the group (rc $RC)" grep -q ",$CG,event,cpu_clock," "$T_TMP/out"
	run_cmd -b --no-rc -n 1 -G no-such-group-$$
	check "-G of no group is refused, naming it (rc $RC)" \
		bash -c "[ $RC -eq 2 ] && grep -q 'no-such-group' '$T_TMP/err'"
fi

# A child that appears after counting started counts into its process (-p follows what it
# starts, as -- CMD does): dd's page faults (perf stat's count of the same dd) are in the row.
sh -c 'sleep 0.8; dd if=/dev/zero of=/dev/null bs=4M count=25 2>/dev/null; sleep 0.5' &
LATE=$!
run_cmd -b --no-rc -n 8 -i 250ms -f json -e page-faults -p $LATE
wait $LATE 2>/dev/null
late=$(sum_json "$T_TMP/out" | awk '$1 == "page_faults" { print $2 }')
perf stat -x, -o "$T_TMP/dd.csv" -e page-faults dd if=/dev/zero of=/dev/null bs=4M count=25 2>/dev/null
dd_pf=$(awk -F, '/page-faults/ { print $1; exit }' "$T_TMP/dd.csv")
check "-p: a child started after counting began is counted (row $late faults, dd alone $dd_pf)" \
	python3 -c "import sys; sys.exit(not float('${late:-0}') >= 0.98 * float('$dd_pf'))"

# A task that sleeps through a tick counted nothing in it: 0, not "not counted".
sleep 30 &
SLEEPER=$!
T_CLEANUPS+=("kill $SLEEPER 2>/dev/null")
run_cmd -b --no-rc -n 2 -i 200ms -f csv -e task-clock,context-switches -p $SLEEPER
check "-p of a sleeping task: its counts are 0, state ok (rc $RC: $(grep ",event,task_clock," "$T_TMP/out" | tail -1))" \
	grep -q ",sleep\[$SLEEPER\],event,task_clock,0,1.0000,ok," "$T_TMP/out"
kill $SLEEPER 2>/dev/null

# A task that exits mid-run: its row keeps its counts, the run goes on. The task waits stopped
# until pmutop's first record is out (a loop this short is over before an ASan build's start-up
# is), then runs its loop and exits.
sh -c 'kill -STOP $$; i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done' &
SHORT=$!
T_CLEANUPS+=("kill -CONT $SHORT 2>/dev/null; kill $SHORT 2>/dev/null")
for ((i = 0; i < 500; i++)); do grep -q '^State:.*stopped' "/proc/$SHORT/status" 2>/dev/null && break; sleep 0.01; done
timeout 30 "$BIN" -b --no-rc -n 6 -i 200ms -f json -e task-clock,page-faults -r "$T_TMP/short.rec" -p $SHORT \
	>"$T_TMP/short.json" 2>"$T_TMP/short.err" </dev/null &
SHORT_PMUTOP=$!
for ((i = 0; i < 2000 && $(lines "$T_TMP/short.json") < 1; i++)); do sleep 0.01; done
kill -CONT $SHORT
wait $SHORT_PMUTOP
live_rc=$?
wait $SHORT 2>/dev/null
run_cmd -b --no-rc -f json -R "$T_TMP/short.rec"
check "-p of a task that exits mid-run: the replay equals the live run (rc $RC)" same_run "$T_TMP/short.json" "$T_TMP/out"
cp "$T_TMP/short.json" "$T_TMP/out"
RC=$live_rc
check "-p of a task that exits mid-run: no crash, every tick out (rc $RC, $(wc -l <"$T_TMP/out") lines)" \
	bash -c "[ $RC -eq 0 ] && [ \$(wc -l <'$T_TMP/out') -eq 6 ]"
tot=$(sum_json "$T_TMP/out" | awk '$1 == "task_clock" { print $2 }')
check "-p of a task that exits mid-run: its CPU time counted ($tot ns)" \
	python3 -c "import sys; sys.exit(not float('${tot:-0}') > 1e6)"
t_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_tasks_top.sh: the task view's list in batch (-b --tasks-top N): at most N task rows a record,
# a busy loop among them with its CPU share against the scheduler's count of its time
# (/proc/PID/schedstat); held rows while -r records; refusals (no -b, the sim, -p, bad N).
source "$(dirname "$0")/lib.sh"

if ! timeout 20 "$BIN" -b -n 1 -i 100 --no-rc -e task-clock -p $$ >/dev/null 2>&1; then
	skip "perf_event_open cannot count a task here (perf_event_paranoid, no CAP_PERFMON)"
	t_done
fi

within() { python3 -c "import sys; a, b, t = map(float, sys.argv[1:]); sys.exit(not abs(a - b) <= max(t * b, 0.01))" "$@"; }
sched_ns() { awk '{ print $1 }' "/proc/$1/schedstat"; }

sh -c 'while :; do :; done' &
LOOP=$!
T_CLEANUPS+=("kill $LOOP 2>/dev/null; wait $LOOP 2>/dev/null")
sleep 0.3 # it has run before the list is taken (CPU time since the last scan)

# --- the busiest 8 tasks, counted for the run ----------------------------------------------------
a=$(sched_ns $LOOP) ta=$(date +%s%N)
run_cmd -b -f json -n 6 -i 500ms --no-rc -m sw --tasks-top 8
b=$(sched_ns $LOOP) tb=$(date +%s%N)
check "--tasks-top 8: runs (rc $RC: $(head -c 200 "$T_TMP/err"))" [ $RC -eq 0 ]
check "--tasks-top 8: 6 records, each of 1 to 8 task rows keyed comm[tid]" python3 -c '
import json, re, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ok = len(recs) == 6 and all(o["rows"] == "task" and 1 <= len(o["cpus"]) <= 8 and
    all(re.search(r"\[[0-9]+\]$", r["task"]) for r in o["cpus"]) for o in recs)
sys.exit(not ok)' "$T_TMP/out"
# The loop's CPU time as pmutop counted it (its cpu-clock in the records it is in, over their
# intervals) against the scheduler's count over the whole run (/proc/PID/schedstat before and
# after: start-up and exit included, while pmutop's records cover only part of it). Shares of
# different spans differ under load; amounts do not: pmutop's count must lie within what the
# scheduler counted, and miss no more of it than the time the records do not cover (schedstat of
# a running task may lag by a scheduler tick or more: 50 ms allowed at each end).
shares=$(python3 -c '
import json, sys
t = v = 0
for l in open(sys.argv[1]):
    o = json.loads(l)
    for r in o["cpus"]:
        if r["task"] == sys.argv[2]:
            t += o["interval_ms"] * 1e6
            v += r["events"]["clock"]["value"] or 0
ran, wall = int(sys.argv[3]), int(sys.argv[4])
print(v / t if t else -1, ran / wall, v, ran, wall - t)' "$T_TMP/out" "sh[$LOOP]" $((b - a)) $((tb - ta)))
read -r sh_p sh_s v_ns ran_ns uncovered_ns <<<"$shares"
echo "--tasks-top: sh[$LOOP] share pmutop $sh_p, /proc/$LOOP/schedstat $sh_s (over the whole run);" \
	"counted $v_ns ns, ran $ran_ns ns, $uncovered_ns ns of the run outside the records"
check "--tasks-top: the busy loop is listed (sh[$LOOP])" grep -q "\"task\":\"sh\\[$LOOP\\]\"" "$T_TMP/out"
check "--tasks-top: the loop's counted CPU time lies within what the scheduler counted, missing no more than the run outside the records (counted $v_ns ns, ran $ran_ns ns, outside $uncovered_ns ns)" \
	python3 -c "import sys; v, ran, out = map(float, sys.argv[1:]); sys.exit(not (v > 0 and ran - out - 5e7 <= v <= ran + 5e7))" \
	"$v_ns" "$ran_ns" "$uncovered_ns"

# --- with -r the rows are those of the recording's header: they stay (no reopening) ----------
run_cmd -b -f json -n 12 -i 200ms --no-rc -m sw --tasks-top 4 -r "$T_TMP/top.jsonl"
check "--tasks-top with -r: runs (rc $RC: $(head -c 200 "$T_TMP/err"))" [ $RC -eq 0 ]
check "--tasks-top with -r: the same task rows in all 12 records (past 5 ticks a list would follow)" \
	python3 -c '
import json, sys
sets = [tuple(r["task"] for r in json.loads(l)["cpus"]) for l in open(sys.argv[1])]
sys.exit(not (len(sets) == 12 and len(set(sets)) == 1))' "$T_TMP/out"
cp "$T_TMP/out" "$T_TMP/live.json"
run_cmd -b -f json --no-rc -R "$T_TMP/top.jsonl"
check "--tasks-top with -r: the replay's records carry the run's rows and metrics (rc $RC)" \
	python3 -c '
import json, sys
def recs(p):
    return [[(r["task"], r["metrics"]) for r in json.loads(l)["cpus"]] for l in open(p)]
live, rep = recs(sys.argv[1]), recs(sys.argv[2])
sys.exit(not (live and live == rep))' "$T_TMP/live.json" "$T_TMP/out"

# --- refusals: clear, exit 2 ------------------------------------------------------------------------
run_cmd --no-rc -n 1 --tasks-top 3
check "--tasks-top without -b: refused, naming the screen's way (rc $RC)" \
	bash -c "[ $RC -eq 2 ] && grep -q 'add -b (on the screen: T, :set tasks N)' '$T_TMP/err'"
run_cmd -b --no-rc -n 1 --backend sim --tasks-top 3
check "--tasks-top with the sim: refused, saying it counts this machine (rc $RC)" \
	bash -c "[ $RC -eq 2 ] && grep -q 'tasks-top: .*this machine' '$T_TMP/err'"
run_cmd -b --no-rc -n 1 -p $$ --tasks-top 3
check "--tasks-top with -p: refused, the run counts the tasks given (rc $RC)" \
	bash -c "[ $RC -eq 2 ] && grep -q 'counts the tasks given on the command line' '$T_TMP/err'"
run_cmd -b --no-rc -n 1 --tasks-top 0
check "--tasks-top 0: refused with the range (rc $RC)" \
	bash -c "[ $RC -eq 2 ] && grep -q 'from 1 to 256' '$T_TMP/err'"
t_done

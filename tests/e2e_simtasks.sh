#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_simtasks.sh: the sim's tasks (--sim-tasks N, --sim-task-churn K). Hardware modes per task
# without a PMU: the same seed gives the same numbers, the tasks' counts add up to no more than
# the CPUs' of a CPU run with that seed (each task is a share of the CPU it runs on), top-down
# shares per task add up to 100 %; tasks that end or start mid-run go offline or come online
# with no restart (time and seq monotonic); JSON, CSV and OpenMetrics carry task rows, and a
# recording replays equal to the live run tick for tick.
source "$(dirname "$0")/lib.sh"
T=$T_TMP
SIM=(-b --backend sim --no-rc -i 20 --seed 7)

# --- bad input: a clear message, exit 2 -----------------------------------------------------------
run_cmd -b --no-rc -n 1 --sim-tasks 3
check "--sim-tasks without the sim is refused (rc $RC)" \
	bash -c "[ $RC -eq 2 ] && grep -q 'with --backend sim' '$T/err'"
run_cmd "${SIM[@]}" -n 1 --sim-tasks 0
check "--sim-tasks 0 is refused (rc $RC)" bash -c "[ $RC -eq 2 ] && grep -q 'sim-tasks' '$T/err'"
run_cmd "${SIM[@]}" -n 1 --sim-tasks 2 --sim-task-churn 3
check "churn of more tasks than there are is refused (rc $RC)" \
	bash -c "[ $RC -eq 2 ] && grep -q 'at most --sim-tasks' '$T/err'"
run_cmd "${SIM[@]}" -n 1 --sim-tasks 2 -p $$
check "--sim-tasks with -p is refused (rc $RC)" bash -c "[ $RC -eq 2 ] && grep -q 'not with -p' '$T/err'"

# --- hardware modes per task against a CPU run of the same seed -----------------------------------
# CHECK: each tick, each event: the tasks' sum <= the CPUs' sum (+1 a task: rounding), and the
# tasks take a real part of it (over 20 % over the run); top-down shares of a task add up to 100;
# the tasks' clock (their run time) is within the CPUs' busy time
for spec in "generic cpi" "generic llc" "skl topdown" "skl offcore" "icl topdown" "generic sw"; do
	set -- $spec
	fam=$1 mode=$2
	"$BIN" "${SIM[@]}" --sim-family "$fam" --sim-cpus 4 -m "$mode" -n 20 -f json \
		>"$T/cpu.json" 2>"$T/cpu.err" </dev/null
	"$BIN" "${SIM[@]}" --sim-family "$fam" --sim-cpus 4 -m "$mode" -n 20 -f json --sim-tasks 10 \
		>"$T/task.json" 2>"$T/task.err" </dev/null
	rc=$?
	python3 - "$T/cpu.json" "$T/task.json" "$mode" >"$T/py.out" 2>&1 <<'EOF'
import json, sys
cpu = [json.loads(l) for l in open(sys.argv[1])]
task = [json.loads(l) for l in open(sys.argv[2])]
mode = sys.argv[3]
bad = []
if len(cpu) != 20 or len(task) != 20:
    bad.append("%d CPU ticks, %d task ticks" % (len(cpu), len(task)))
tsum = csum = 0
for c, t in zip(cpu, task):
    if t.get("rows") != "task" or len(t["cpus"]) != 10:
        bad.append("tick %s: not 10 task rows" % t["seq"]); break
    for ev in c["total"]["events"]:
        cs = sum(r["events"][ev]["value"] or 0 for r in c["cpus"])
        ts = sum(r["events"][ev]["value"] or 0 for r in t["cpus"])
        if ts > cs + len(t["cpus"]):
            bad.append("tick %s %s: tasks %d > CPUs %d" % (t["seq"], ev, ts, cs))
        if cs > 1000:
            tsum += ts; csum += cs
            if ts <= 0 and ev != "idle":  # a task has no idle time
                bad.append("tick %s %s: the tasks count none of the CPUs' %d" % (t["seq"], ev, cs))
    if mode == "sw":  # a task runs in its CPU's busy time: the tasks' clock within it
        busy = sum(r["events"]["busy"]["value"] for r in c["cpus"])
        clk = sum(r["events"]["clock"]["value"] for r in t["cpus"])
        if not 0.2 * busy < clk <= busy + len(t["cpus"]):
            bad.append("tick %s: the tasks ran %d ns of the CPUs' %d busy" % (t["seq"], clk, busy))
    for r in t["cpus"]:
        if not all(e["state"] in ("ok", "scaled", "not_counted") for e in r["events"].values()):
            bad.append("tick %s %s: an event not counted: %s" % (t["seq"], r["task"], r["events"]))
            break
        if mode == "topdown":
            m = r["metrics"]
            s = sum(m[k] for k in ("frontend", "bad_spec", "backend", "retiring"))
            if abs(s - 100) > 0.5:
                bad.append("tick %s %s: top-down shares add up to %.2f" % (t["seq"], r["task"], s))
if not csum or tsum < 0.2 * csum:
    bad.append("the tasks count %d of the CPUs' %d" % (tsum, csum))
print("\n".join(bad[:5]) if bad else "ok %.3f" % (tsum / csum))
EOF
	check "$fam $mode: per task, within the CPUs' counts (rc $rc: $(head -c 400 "$T/py.out"))" \
		grep -q '^ok' "$T/py.out"
done

# --- deterministic from the seed -------------------------------------------------------------------
"$BIN" "${SIM[@]}" -m cpi -n 5 -f csv --sim-tasks 5 2>/dev/null </dev/null | cut -d, -f1-8 >"$T/a.csv"
"$BIN" "${SIM[@]}" -m cpi -n 5 -f csv --sim-tasks 5 2>/dev/null </dev/null | cut -d, -f1-8 >"$T/b.csv"
"$BIN" -b --backend sim --no-rc -i 20 --seed 8 -m cpi -n 5 -f csv --sim-tasks 5 2>/dev/null \
	</dev/null | cut -d, -f1-8 >"$T/c.csv"
check "the same seed gives the same CSV" cmp -s "$T/a.csv" "$T/b.csv"
check "CSV has a task column and the tasks' names" \
	bash -c "head -1 '$T/a.csv' | grep -q ',task,' && grep -q '^[0-9.]*,20.000,cc1\[1003\],event,cycles,[0-9]' '$T/a.csv'"
check "another seed gives other numbers" bash -c "! cmp -s '$T/a.csv' '$T/c.csv'"

# --- churn: tasks that end and start mid-run, recorded and replayed ---------------------------------
"$BIN" "${SIM[@]}" --sim-family skl -m topdown -n 30 -f json --sim-tasks 6 --sim-task-churn 4 \
	-r "$T/rec.jsonl" >"$T/live.json" 2>"$T/live.err" </dev/null
check "churn run: exit 0 ($(head -c 200 "$T/live.err"))" [ $? = 0 ]
timeout 30 "$BIN" -b --no-rc -R "$T/rec.jsonl" -f json >"$T/replay.json" 2>"$T/replay.err" </dev/null
check "replay: exit 0 ($(head -c 200 "$T/replay.err"))" [ $? = 0 ]
python3 - "$T/live.json" "$T/replay.json" >"$T/churn.out" 2>&1 <<'EOF'
import json, sys
live = [json.loads(l) for l in open(sys.argv[1])]
rep = [json.loads(l) for l in open(sys.argv[2])]
bad = []
def mono(name, vals):
    if any(b - a != 1 for a, b in zip(vals, vals[1:])) if name == "seq" else \
       any(not b > a for a, b in zip(vals, vals[1:])):
        bad.append("%s not monotonic: %s" % (name, vals))
mono("seq", [r["seq"] for r in live])
mono("time", [r["time"] for r in live])
# each task's life: the ticks its row is counted (not offline)
life = {}
for r in live:
    for c in r["cpus"]:
        on = any(e["state"] != "offline" for e in c["events"].values())
        life.setdefault(c["task"], []).append(on)
steady = [k for k, v in life.items() if all(v)]
ended = [k for k, v in life.items() if v[0] and not v[-1] and v == sorted(v, reverse=True)]
started = [k for k, v in life.items() if not v[0] and v[-1] and v == sorted(v)]
if len(steady) != 2 or len(ended) != 2 or len(started) != 2:
    bad.append("steady %s, ended %s, started %s: %s" % (steady, ended, started, life))
# a task that started counts from its second tick on (its first primes), with shares adding up
for r in live:
    for c in r["cpus"]:
        m = c["metrics"]
        if m.get("retiring") is not None:
            s = sum(m[k] for k in ("frontend", "bad_spec", "backend", "retiring"))
            if abs(s - 100) > 0.5:
                bad.append("seq %s %s: shares add up to %.2f" % (r["seq"], c["task"], s))
# replay equals live, tick by tick, every task's events and metrics
if len(live) != len(rep):
    bad.append("%d live ticks, %d replayed" % (len(live), len(rep)))
for a, b in zip(live, rep):
    for k in ("seq", "time", "rows", "mode"):
        if a[k] != b[k]:
            bad.append("seq %s: %s %s live, %s replayed" % (a["seq"], k, a[k], b[k]))
    if [c["task"] for c in a["cpus"]] != [c["task"] for c in b["cpus"]]:
        bad.append("seq %s: other task rows" % a["seq"])
        continue
    for x, y in zip(a["cpus"], b["cpus"]):
        for ev, v in x["events"].items():
            if (v["value"], v["state"]) != (y["events"][ev]["value"], y["events"][ev]["state"]):
                bad.append("seq %s %s %s: %s live, %s replayed" % (a["seq"], x["task"], ev, v, y["events"][ev]))
        for mk, v in x["metrics"].items():
            w = y["metrics"].get(mk)
            if (v is None) != (w is None) or (v is not None and abs(v - w) > 1e-6 * max(1, abs(v))):
                bad.append("seq %s %s %s: %s live, %s replayed" % (a["seq"], x["task"], mk, v, w))
print("\n".join(bad[:6]) if bad else "ok")
EOF
check "churn: 2 steady, 2 ended, 2 started, no restart, replay equals live ($(head -c 600 "$T/churn.out"))" \
	grep -qx ok "$T/churn.out"

# --- OpenMetrics carries task labels ------------------------------------------------------------------
run_cmd "${SIM[@]}" -m cpi -n 2 -f openmetrics --sim-tasks 4
check "OpenMetrics: task= labels (rc $RC)" \
	grep -q '^pmutop_event_total{[^}]*task="java\[1002\]",event="cycles"} [0-9]' "$T/out"
t_done

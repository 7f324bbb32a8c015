#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_cgroup_cpus.sh: the CPU set changes while counting cgroups or tasks. A cgroup's rows reopen
# on the new CPU set: `:cpus 1` counts a busy loop pinned to CPU 1 and `:cpus 0` does not (the
# loop's own /proc/PID/schedstat says how much it ran); a CPU that comes online in a --sysfs-root
# tree gets the cgroup's row on it, which counts the loop, with no restart (seq, time monotonic),
# the recording says so
# (a cpus record with the rows' cgroups) and replays equal to the live run. Task rows stay task
# rows: `:cpus` is refused with a clear message and a CPU coming online changes nothing.
source "$(dirname "$0")/lib.sh"
T=$T_TMP
if ! timeout 20 "$BIN" -b -n 1 -i 100 --no-rc -e task-clock -p $$ >/dev/null 2>&1 </dev/null; then
	skip "perf_event_open cannot count a task here (perf_event_paranoid, no CAP_PERFMON)"
	t_done
fi
TREE=$T/tree
cp -r "$T_SRC/tests/sysfs/x86-skylake" "$TREE"
ONLINE=$TREE/sys/devices/system/cpu/online
# spin CPU SECONDS OUT: a loop pinned to CPU that writes its run time so far (ns) to OUT at exit
spin() {
	exec python3 -c '
import os, sys, time
os.sched_setaffinity(0, {int(sys.argv[1])})
t = time.time()
while time.time() - t < float(sys.argv[2]): pass
open(sys.argv[3], "w").write(open("/proc/self/schedstat").read().split()[0])
os._exit(0)' "$@"
}
runtime() { cut -d' ' -f1 "/proc/$1/schedstat" 2>/dev/null || echo 0; }

# --- tasks: rows stay tasks --------------------------------------------------------------------------
run_cmd -b --no-rc -n 2 -i 100 -e task-clock -p $$ -c 'cpus 1'
check "tasks: :cpus is refused, naming why (rc $RC: $(head -c 200 "$T/err"))" \
	bash -c "[ $RC -eq 2 ] && grep -q 'its rows stay the tasks' '$T/err'"
echo 0 >"$ONLINE"
"$BIN" -b --no-rc -i 100 -n 20 -e task-clock,context-switches -p $$ --sysfs-root "$TREE" -f json \
	>"$T/tasks.json" 2>"$T/tasks.err" </dev/null &
PM=$!
sleep 0.8
echo 0-1 >"$ONLINE"
wait "$PM"
check "tasks under hotplug: exit 0 ($(head -c 200 "$T/tasks.err"))" [ $? = 0 ]
check "tasks under hotplug: nothing reopened" bash -c "! grep -q 'came online' '$T/tasks.err'"
check "tasks under hotplug: every record has the one task row, no CPU rows" python3 -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
seq = [r["seq"] for r in recs]
ok = len(recs) == 20 and seq == list(range(1, 21)) and all(
    r["rows"] == "task" and [c["task"] for c in r["cpus"]] == ["bash[%s]" % sys.argv[2]] for r in recs)
sys.exit(0 if ok else 1)' "$T/tasks.json" $$

# --- cgroups ------------------------------------------------------------------------------------------
CGROOT=$(awk '$3 == "cgroup" && $4 ~ /perf_event/ { print $2; exit }' /proc/self/mounts)
[ -n "$CGROOT" ] || CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
CG=pmutop-cpus-$$
if [ -z "$CGROOT" ] || ! mkdir "$CGROOT/$CG" 2>/dev/null; then
	skip "no cgroup hierarchy to make a group in here (not root, or no cgroup mount)"
	t_done
fi
T_CLEANUPS+=("rmdir $CGROOT/$CG 2>/dev/null")
if [ "$(nproc)" -lt 2 ]; then
	skip "one CPU: a loop on CPU 1 cannot be made"
	t_done
fi
# the loop runs until the test kills it (a loaded machine stretches the test past any fixed time)
spin 1 120 "$T/spin.ns" &
LOOP=$!
T_CLEANUPS+=("kill $LOOP 2>/dev/null; wait $LOOP 2>/dev/null; rmdir $CGROOT/$CG 2>/dev/null")
echo $LOOP >"$CGROOT/$CG/cgroup.procs"
# a second loop on CPU 1, outside the cgroup: the cgroup's row must not count it (the two share
# CPU 1, so a row that counted all of CPU 1 would count about twice the cgroup's loop)
spin 1 120 "$T/other.ns" &
OTHER=$!
T_CLEANUPS+=("kill $OTHER 2>/dev/null")
# :cpus 1 and :cpus 0 (given at start-up; the rows reopen on the new set): the loop runs on 1 only
r0=$(runtime $LOOP)
run_cmd -b --no-rc -n 5 -i 200 -e task-clock -G $CG -c 'cpus 1' -f json
r1=$(runtime $LOOP)
cp "$T/out" "$T/cpus1.json"
kill $OTHER 2>/dev/null
RC1=$RC
run_cmd -b --no-rc -n 5 -i 200 -e task-clock -G $CG -c 'cpus 0' -f json
cp "$T/out" "$T/cpus0.json"
check "cgroups: :cpus 1 and :cpus 0 run (rc $RC1, $RC: $(head -c 200 "$T/err"))" [ "$RC1$RC" = 00 ]
python3 - "$T/cpus1.json" "$T/cpus0.json" "$r0" "$r1" "$CG" >"$T/py.out" 2>&1 <<'EOF'
import json, sys
one = [json.loads(l) for l in open(sys.argv[1])]
zero = [json.loads(l) for l in open(sys.argv[2])]
ran = (int(sys.argv[4]) - int(sys.argv[3])) / 1e9  # s the loop ran around the first run
bad = []
for recs, n in ((one, "cpus 1"), (zero, "cpus 0")):
    if any(r["rows"] != "cgroup" or [(c["cgroup"], c["ncpus"]) for c in r["cpus"]] != [(sys.argv[5], 1)]
           for r in recs):
        bad.append("%s: not the one cgroup on one CPU: %s" % (n, recs[0]["cpus"]))
s1 = sum(r["cpus"][0]["events"]["task_clock"]["value"] or 0 for r in one) / 1e9
s0 = sum(r["cpus"][0]["events"]["task_clock"]["value"] or 0 for r in zero) / 1e9
t1 = one[-1]["time"] - one[0]["time"] + one[0]["interval_ms"] / 1e3
# the row counts the loop: a good part of what schedstat says it ran around the run (start and
# exit included); schedstat is no upper bound: a cgroup's task-clock ran over it by up to 0.16 s
# a second on a loaded machine. The loop outside the cgroup shares CPU 1 with it: a row that
# counted all of CPU 1 would count about the t1 s counted, the cgroup's loop gets half at most.
if not 0.2 * ran < s1:
    bad.append("cpus 1: the cgroup ran %.3f s, its loop %.3f s around the run" % (s1, ran))
if s1 > 0.75 * t1:
    bad.append("cpus 1: the cgroup ran %.3f s of %.3f s: all of CPU 1, not its loop" % (s1, t1))
if any(r["cpus"][0]["events"]["task_clock"]["state"] != "ok" for r in zero + one):
    bad.append("a tick not counted: %s" % [r["cpus"][0]["events"]["task_clock"]["state"] for r in zero + one])
if s0 > 0.05 * s1:
    bad.append("cpus 0: the cgroup ran %.3f s on CPU 0, the loop is pinned to CPU 1" % s0)
print("\n".join(bad) if bad else "ok")
print("cpus 1: %.3f s of the loop's %.3f s (%.3f s counted); cpus 0: %.4f s" % (s1, ran, t1, s0))
EOF
check "cgroups: the rows count the CPU set asked for ($(head -c 400 "$T/py.out"))" grep -qx ok "$T/py.out"

# a CPU that comes online while counting the cgroup: its row appears, recorded and replayed
echo 0 >"$ONLINE"
"$BIN" -b --no-rc -i 200 -n 16 -e task-clock,context-switches -G $CG --sysfs-root "$TREE" -f json \
	-r "$T/rec.jsonl" >"$T/live.json" 2>"$T/live.err" </dev/null &
PM=$!
for ((i = 0; i < 200; i++)); do
	[ -f "$T/live.json" ] && [ "$(wc -l <"$T/live.json")" -ge 4 ] && break
	sleep 0.05
done
echo 0-1 >"$ONLINE"
wait "$PM"
check "cgroups under hotplug: exit 0 ($(head -c 200 "$T/live.err"))" [ $? = 0 ]
check "cgroups under hotplug: CPU 1 came online" grep -q "CPU 1 came online: counting it" "$T/live.err"
check "the recording has a cpus record naming the cgroup's rows" \
	grep -q "^{\"type\":\"cpus\",\"t\":[0-9.]*,\"cpus\":\[0,1\],\"row_keys\":\[\"$CG\",\"$CG\"\]}" "$T/rec.jsonl"
timeout 30 "$BIN" -b --no-rc -R "$T/rec.jsonl" -f json >"$T/replay.json" 2>"$T/replay.err" </dev/null
check "replay: exit 0 ($(head -c 200 "$T/replay.err"))" [ $? = 0 ]
python3 - "$T/live.json" "$T/replay.json" "$CG" >"$T/hp.out" 2>&1 <<'EOF'
import json, sys
live = [json.loads(l) for l in open(sys.argv[1])]
rep = [json.loads(l) for l in open(sys.argv[2])]
bad = []
seq = [r["seq"] for r in live]
if seq != list(range(1, len(live) + 1)) or len(live) != 16:
    bad.append("seq %s" % seq)
if any(not b["time"] > a["time"] for a, b in zip(live, live[1:])):
    bad.append("time not monotonic")
# the rows counted: 1 until CPU 1 came online, then 2 (a tick the cgroup left no time on a CPU
# may count 1 row)
n = [r["cpus"][0]["ncpus"] for r in live]
on = n.index(2) if 2 in n else len(n)
if any(k != 1 for k in n[:on]) or on < 2 or on > len(n) - 3 or any(
        r["cpus"][0]["cgroup"] != sys.argv[3] for r in live):
    bad.append("the cgroup's CPUs: %s" % n)
# the loop is pinned to CPU 1: the cgroup counts it once its row on CPU 1 is there
tc = [r["cpus"][0]["events"]["task_clock"]["value"] or 0 for r in live]
before, after = tc[:on], tc[on + 1:]
if not after or max(before) > 0.05 * 200e6 or min(after) < 0.1 * 200e6:
    bad.append("task-clock per tick on CPU 0 %s, then on 0-1 %s" % (before, after))
if len(live) != len(rep):
    bad.append("%d live ticks, %d replayed" % (len(live), len(rep)))
for a, b in zip(live, rep):
    if (a["seq"], a["time"], a["cpus"]) != (b["seq"], b["time"], b["cpus"]):
        bad.append("seq %s: %s live, %s replayed" % (a["seq"], a["cpus"], b["cpus"]))
print("\n".join(bad[:4]) if bad else "ok")
EOF
check "cgroups under hotplug: one row on CPU 0, then on 0-1 counting the loop on 1, no restart; replay equals live ($(head -c 500 "$T/hp.out"))" \
	grep -qx ok "$T/hp.out"
grep -qx ok "$T/hp.out" || head -c 600 "$T/replay.err"
kill $LOOP 2>/dev/null
wait $LOOP 2>/dev/null
echo "measured: $(tail -1 "$T/py.out")"
t_done

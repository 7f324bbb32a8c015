#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_hotplug_tree.sh: CPU hotplug without touching the machine: a --sysfs-root tree whose online
# file changes while pmutop runs (CPU 1 comes online, later goes away). time, seq and the
# wall-clock timestamp stay monotonic for the whole run, in the output and the recording; the
# recording carries the change and replays tick for tick.
source "$(dirname "$0")/lib.sh"
T=$T_TMP
TREE=$T/tree
cp -r "$T_SRC/tests/sysfs/x86-skylake" "$TREE"
ONLINE=$TREE/sys/devices/system/cpu/online
# the perf backend counts software events on CPUs 0 and 1 of this machine
if ! timeout 20 "$BIN" -b -m sw -n 1 -i 50 -C 0,1 >/dev/null 2>&1 </dev/null; then
	echo "SKIP: software events cannot be counted on CPUs 0 and 1 here (perf_event_paranoid, or one CPU)"
	exit 77
fi
echo 0 >"$ONLINE"
"$BIN" -b -m sw -i 100 -n 60 --sysfs-root "$TREE" -f json -r "$T/rec.jsonl" >"$T/out.json" 2>"$T/err" </dev/null &
PID=$!
T_CLEANUPS+=("kill $PID 2>/dev/null")
# steps follow the records written, not the clock
wait_records() {
	local i
	for ((i = 0; i < 1200; i++)); do
		[ "$(wc -l <"$T/out.json")" -ge "$1" ] && return 0
		kill -0 "$PID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
wait_records 5
echo 0-1 >"$ONLINE"
# pmutop reads the online list once a second: CPU 1's row appears
for ((i = 0; i < 600; i++)); do
	grep -q '"cpu":1,' "$T/out.json" && break
	sleep 0.05
done
wait_records $(($(wc -l <"$T/out.json") + 5))
echo 0 >"$ONLINE"
wait "$PID"
RC=$?
check "exit 0 ($(tail -3 "$T/err"))" [ "$RC" = 0 ]
check "the message says CPU 1 came online" grep -q "CPU 1 came online: counting it" "$T/err"
python3 - "$T/out.json" "$T/rec.jsonl" >"$T/py.out" 2>&1 <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
bad = []
def mono(name, vals):
    for a, b in zip(vals, vals[1:]):
        if not b > a:
            bad.append("%s goes from %s to %s" % (name, a, b))
            return
mono("time", [r["time"] for r in recs])
mono("seq", [r["seq"] for r in recs])
mono("timestamp", [r["timestamp"] for r in recs])
rows = [[c["cpu"] for c in r["cpus"]] for r in recs]
if [0] not in rows or not any(1 in x for x in rows):
    bad.append("CPU 1 never got a row: %s" % rows[:3])
ticks = [json.loads(l) for l in open(sys.argv[2])]
mono("recording t", [t["t"] for t in ticks if t.get("type") == "tick"])
print("\n".join(bad) if bad else "ok")
sys.exit(1 if bad else 0)
EOF
check "time, seq, timestamp and the recording's t monotonic: $(cat "$T/py.out")" grep -qx ok "$T/py.out"

# the recording carries the change (format version 2, a cpus record before the mode that
# reopens), and its replay reproduces the live run tick for tick: no tick dropped, the same
# time, seq and counts on every CPU the live run showed
check "the recording is version 2" grep -q '^{"type":"header","format":"pmutop-recording","version":2,' "$T/rec.jsonl"
check "the recording has a cpus record" grep -q '^{"type":"cpus","t":[0-9.]*,"cpus":\[0,1\]' "$T/rec.jsonl"
timeout 30 "$BIN" -b -R "$T/rec.jsonl" -f json >"$T/replay.json" 2>"$T/replay.err" </dev/null
check "replay: exit 0" [ $? = 0 ]
check "replay: no tick dropped ($(head -c 300 "$T/replay.err"))" bash -c "! grep -q 'skipped' '$T/replay.err'"
python3 - "$T/out.json" "$T/replay.json" >"$T/eq.out" 2>&1 <<'EOF'
import json, sys
live = [json.loads(l) for l in open(sys.argv[1])]
rep = [json.loads(l) for l in open(sys.argv[2])]
bad = []
if len(live) != len(rep):
    bad.append("%d live records, %d replayed" % (len(live), len(rep)))
for a, b in zip(live, rep):
    for key in ("time", "seq"):
        if a[key] != b[key]:
            bad.append("%s %s live, %s replayed" % (key, a[key], b[key]))
    rows = {c["cpu"]: c for c in b["cpus"]}
    for c in a["cpus"]:
        r = rows.get(c["cpu"])
        if r is None or r["events"] != c["events"]:
            bad.append("t %s CPU %d: %s live, %s replayed" % (a["time"], c["cpu"], c["events"], r and r["events"]))
print("\n".join(bad[:5]) if bad else "ok")
EOF
check "replay = live, tick for tick: $(cat "$T/eq.out")" grep -qx ok "$T/eq.out"

# -C may name the CPU that came online later in the recording (its rows start without counts)
timeout 30 "$BIN" -b -R "$T/rec.jsonl" -C 0,1 -f json >"$T/replayc.json" 2>"$T/replayc.err" </dev/null
check "replay -C 0,1: exit 0 ($(head -c 200 "$T/replayc.err"))" [ $? = 0 ]
check "replay -C 0,1: CPU 1 counted once it came online" \
	grep -q '"cpu":1,"events":{"clock":{"value":[0-9]' "$T/replayc.json"

# rows by core: the CPU that comes online has its place in them on replay too (the cpus record
# carries its topology, as the header does the others'). In this tree CPU 1 is CPU 0's SMT
# sibling (core 0), so it joins core 0's row; a replay that did not know its place would give it
# a row of its own.
CT=$T/coretree
cp -r "$T_SRC/tests/sysfs/x86-skylake-smt" "$CT"
echo 0 >"$CT/sys/devices/system/cpu/cpu1/topology/core_id"
echo 0,1 >"$CT/sys/devices/system/cpu/cpu0/topology/thread_siblings_list"
echo 0,1 >"$CT/sys/devices/system/cpu/cpu1/topology/thread_siblings_list"
echo 0 >"$CT/sys/devices/system/cpu/online"
"$BIN" -b -m sw -i 100 -n 40 --sysfs-root "$CT" --per-core -f json -r "$T/core.jsonl" >"$T/out.json" 2>"$T/err" </dev/null &
PID=$!
T_CLEANUPS+=("kill $PID 2>/dev/null")
wait_records 5
echo 0-1 >"$CT/sys/devices/system/cpu/online"
wait "$PID"
check "--per-core live: exit 0 ($(tail -2 "$T/err"))" [ $? = 0 ]
check "--per-core: the cpus record carries CPU 1's place (core 0) (cpus records: $(grep -c '^{"type":"cpus"' "$T/core.jsonl"), records: $(wc -l <"$T/out.json"), stderr: $(tail -2 "$T/err" | head -c 300))" \
	grep -q '^{"type":"cpus",.*"topology":{"0":\[0,0,0,0,[0-9]*,[0-9]*\],"1":\[0,0,0,0,' "$T/core.jsonl"
timeout 30 "$BIN" -b -R "$T/core.jsonl" --per-core -f json >"$T/replay.json" 2>"$T/replay.err" </dev/null
check "--per-core replay: exit 0 ($(head -c 300 "$T/replay.err"))" [ $? = 0 ]
python3 - "$T/out.json" "$T/replay.json" >"$T/eq.out" 2>&1 <<'EOF2'
import json, sys
live = [json.loads(l) for l in open(sys.argv[1])]
rep = [json.loads(l) for l in open(sys.argv[2])]
bad = []
if len(live) != len(rep):
    bad.append("%d live records, %d replayed" % (len(live), len(rep)))
rows = lambda r: [(c["core"], c["ncpus"]) for c in r["cpus"]]
for a, b in zip(live, rep):
    for key in ("time", "seq", "rows"):
        if a[key] != b[key]:
            bad.append("%s %s live, %s replayed" % (key, a[key], b[key]))
    if rows(a) != rows(b):
        bad.append("t %s: rows %s live, %s replayed" % (a["time"], rows(a), rows(b)))
    for x, y in zip(a["cpus"], b["cpus"]):
        if x["events"] != y["events"] or x["metrics"] != y["metrics"]:
            bad.append("t %s %s: %s live, %s replayed" % (a["time"], x["core"], x["events"], y["events"]))
if not any(("S0-D0-C0", 2) in rows(r) for r in live):
    bad.append("CPU 1 never joined core 0 live: %s" % rows(live[-1]))
print("\n".join(bad[:5]) if bad else "ok")
EOF2
check "--per-core: replay = live, rows and counts, CPU 1 in core 0's row: $(cat "$T/eq.out")" grep -qx ok "$T/eq.out"

# and through --remote: the board's cpus record brings CPU 1's place, the client's core row
# takes it in
echo 0 >"$CT/sys/devices/system/cpu/online"
HP_TREE=$CT PMUTOP_BIN=$BIN "$BIN" -b --remote board --transport "$T_SRC/tests/fixtures/replay/tree-transport.sh" \
	--agent "${PMUTOP_AGENT_BIN:-$(dirname "$BIN")/pmutop-agent}" -i 100 -n 40 --per-core -f json \
	>"$T/out.json" 2>"$T/rerr" </dev/null &
PID=$!
T_CLEANUPS+=("kill $PID 2>/dev/null")
wait_records 5
echo 0-1 >"$CT/sys/devices/system/cpu/online"
wait "$PID"
check "--per-core --remote: exit 0 ($(tail -2 "$T/rerr"))" [ $? = 0 ]
check "--per-core --remote: CPU 1 joins core 0's row ($(tail -1 "$T/out.json" | head -c 120))" \
	grep -q '"cpus":\[{"core":"S0-D0-C0","ncpus":2,' "$T/out.json"
check "--per-core --remote: no row of its own for CPU 1" bash -c "! grep -q '\"core\":\"CPU1\"' '$T/out.json'"

# the remote stream does the same: the board's CPU 1 comes online, the client gets its row and
# goes on (before: it stuck at its last tick)
AGENT=${PMUTOP_AGENT_BIN:-$(dirname "$BIN")/pmutop-agent}
echo 0 >"$ONLINE"
HP_TREE=$TREE PMUTOP_BIN=$BIN "$BIN" -b --remote board --transport "$T_SRC/tests/fixtures/replay/tree-transport.sh" \
	--agent "$AGENT" -i 100 -n 30 -f json >"$T/out.json" 2>"$T/rerr" </dev/null &
PID=$!
T_CLEANUPS+=("kill $PID 2>/dev/null")
wait_records 5
echo 0-1 >"$ONLINE"
wait "$PID"
RC=$?
check "remote: exit 0 ($(tail -2 "$T/rerr"))" [ "$RC" = 0 ]
check "remote: all 30 records" [ "$(wc -l <"$T/out.json")" = 30 ]
check "remote: CPU 1 gets its row" grep -q '"cpu":1,' "$T/out.json"
python3 - "$T/out.json" "$T/out.json" >"$T/py.out" 2>&1 <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
for key in ("time", "seq", "timestamp"):
    v = [r[key] for r in recs]
    if not all(b > a for a, b in zip(v, v[1:])):
        print("%s not monotonic" % key); sys.exit(1)
print("ok")
EOF
check "remote: time, seq, timestamp monotonic ($(cat "$T/py.out"))" grep -qx ok "$T/py.out"
t_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_task_exit.sh: a task that ends mid-run, live, with software events: -p on a long-lived and a
# short-lived process. The short one's row counts up to its end, then is offline for good, as a
# CPU that went offline (never reopened: its id may be reused); no restart (seq and time
# monotonic), no validity flag on a task that sleeps; its task-clock matches the scheduler's own
# count of its busy phase (/proc/PID/schedstat, read by the process itself) and perf stat -p on
# the same process within 5 %; the recording replays equal to the live run.
source "$(dirname "$0")/lib.sh"
T=$T_TMP
if ! timeout 20 "$BIN" -b -n 1 -i 100 --no-rc -e task-clock -p $$ >/dev/null 2>&1 </dev/null; then
	skip "perf_event_open cannot count a task here (perf_event_paranoid, no CAP_PERFMON)"
	t_done
fi
# busy SLEEP BUSY OUT: writes OUT.ready and sleeps SLEEP s, then spins BUSY s, writing its run
# time over the spin (ns, from /proc/self/schedstat) to OUT; it ends at once (no interpreter
# teardown to count). pmutop starts once both are ready: it counts their spins, not their start.
busy() {
	exec python3 -c '
import os, sys, time
sleep, spin, out = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
run = lambda: int(open("/proc/self/schedstat").read().split()[0])
open(out + ".ready", "w").close()
time.sleep(sleep)
r0 = run(); t = time.time()
while time.time() - t < spin: pass
r1 = run()
open(out, "w").write("%d\n" % (r1 - r0))
os._exit(0)' "$@"
}
busy 1.5 4.5 "$T/long.ns" &
LONG=$!
busy 2.0 1.2 "$T/short.ns" &
SHORT=$!
T_CLEANUPS+=("kill $LONG $SHORT 2>/dev/null")
for ((i = 0; i < 200; i++)); do
	[ -e "$T/long.ns.ready" ] && [ -e "$T/short.ns.ready" ] && break
	sleep 0.05
done
"$BIN" -b --no-rc -i 200 -n 25 -e task-clock,context-switches,page-faults -p "$LONG,$SHORT" \
	-f json -r "$T/rec.jsonl" >"$T/live.json" 2>"$T/live.err" </dev/null &
PM=$!
HAVE_PERF=0
if command -v perf >/dev/null 2>&1 && perf stat -x, -e task-clock true >/dev/null 2>&1; then
	HAVE_PERF=1
	timeout 20 perf stat -x, -e task-clock -p "$SHORT" -o "$T/perf.csv" &
	PERF=$!
fi
wait "$PM"
RC=$?
[ $HAVE_PERF = 1 ] && wait "$PERF"
wait "$SHORT" "$LONG" 2>/dev/null
check "live: exit 0 ($(head -c 300 "$T/live.err"))" [ "$RC" = 0 ]
check "no validity flag on tasks that sleep or end ($(grep -m1 invalid "$T/live.err"))" \
	bash -c "! grep -q invalid '$T/live.err'"
timeout 30 "$BIN" -b --no-rc -R "$T/rec.jsonl" -f json >"$T/replay.json" 2>"$T/replay.err" </dev/null
check "replay: exit 0 ($(head -c 200 "$T/replay.err"))" [ $? = 0 ]
python3 - "$T/live.json" "$T/replay.json" "$LONG" "$SHORT" "$(cat "$T/short.ns" 2>/dev/null)" \
	"$T/perf.csv" >"$T/py.out" 2>&1 <<'EOF'
import json, os, sys
live = [json.loads(l) for l in open(sys.argv[1])]
rep = [json.loads(l) for l in open(sys.argv[2])]
long_pid, short_pid, short_ns, perf_csv = sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
bad, notes = [], []
seqs = [r["seq"] for r in live]
if any(b - a != 1 for a, b in zip(seqs, seqs[1:])) or len(live) != 25:
    bad.append("seq %s" % seqs)
times = [r["time"] for r in live]
if any(not b > a for a, b in zip(times, times[1:])):
    bad.append("time not monotonic: %s" % times)
def row(r, pid):
    return next(c for c in r["cpus"] if c["task"].endswith("[%s]" % pid))
on = lambda c: c["events"]["task_clock"]["state"] != "offline"
lng = [on(row(r, long_pid)) for r in live]
sht = [on(row(r, short_pid)) for r in live]
if not all(lng):
    bad.append("the long task went offline: %s" % lng)
if not sht[0] or sht[-1] or sht != sorted(sht, reverse=True) or sht.count(False) < 5:
    bad.append("the short task's row is not online, then offline for good: %s" % sht)
total = sum(row(r, short_pid)["events"]["task_clock"]["value"] or 0 for r in live)
ref = int(short_ns) if short_ns else 0
if not ref or abs(total - ref) > 0.05 * ref:
    bad.append("short task-clock %d ns, its schedstat %d ns" % (total, ref))
notes.append("task-clock %d / schedstat %d = %.4f" % (total, ref, total / ref if ref else 0))
if os.path.exists(perf_csv):
    ps = [l.split(",") for l in open(perf_csv) if "task-clock" in l]
    perf_ns = float(ps[0][0]) * 1e6 if ps and ps[0][0].replace(".", "").isdigit() else 0
    if not perf_ns or abs(total - perf_ns) > 0.05 * perf_ns:
        bad.append("short task-clock %d ns, perf stat -p %d ns" % (total, perf_ns))
    notes.append("perf stat -p %.0f ns: ratio %.4f" % (perf_ns, total / perf_ns if perf_ns else 0))
if len(live) != len(rep):
    bad.append("%d live ticks, %d replayed" % (len(live), len(rep)))
for a, b in zip(live, rep):
    if (a["seq"], a["time"]) != (b["seq"], b["time"]):
        bad.append("seq %s: time %s live, %s replayed" % (a["seq"], a["time"], b["time"]))
    for x, y in zip(a["cpus"], b["cpus"]):
        if x["task"] != y["task"] or x["events"] != y["events"]:
            bad.append("seq %s %s: %s live, %s replayed" % (a["seq"], x["task"], x["events"], y["events"]))
print("\n".join(bad[:6]) if bad else "ok")
print("; ".join(notes))
EOF
check "the short task ends like a CPU going offline; counts match schedstat and perf stat; replay equals live ($(head -c 700 "$T/py.out"))" \
	grep -qx ok "$T/py.out"
[ $HAVE_PERF = 1 ] || skip "perf stat does not run here: the comparison with perf stat -p was left out"
echo "measured: $(tail -1 "$T/py.out")"
t_done

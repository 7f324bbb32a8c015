#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_hotplug.sh: a CPU that goes offline and comes back is shown offline, then reopened and counted.
# Takes the first CPU above 0 offline for a moment, which disturbs the machine: runs only with
# PMUTOP_TEST_HOTPLUG=1 (.ci/run sets it) and as root.
set -u
bin=${PMUTOP_BIN:?}
if [ "${PMUTOP_TEST_HOTPLUG:-0}" != 1 ]; then
  echo "SKIP: takes a CPU offline for a moment; set PMUTOP_TEST_HOTPLUG=1 to run it (CI does)"; exit 77
fi
cpu=$(ls -d /sys/devices/system/cpu/cpu[1-9]* 2>/dev/null | head -1)
ctl=$cpu/online
if [ -z "$cpu" ] || [ ! -w "$ctl" ] || [ "$(id -u)" != 0 ]; then
  echo "SKIP: needs root and a CPU with a writable online file (have: ${ctl:-none})"; exit 77
fi
n=${cpu##*/cpu}
[ "$(cat "$ctl")" = 1 ] || { echo "SKIP: CPU $n is already offline"; exit 77; }
out=$(mktemp)
"$bin" -b -m sw -i 100 -f json > "$out" 2>/dev/null &
pid=$!
trap 'echo 1 > "$ctl" 2>/dev/null; kill "$pid" 2>/dev/null; rm -f "$out"' EXIT
# Steps follow the records pmutop has written, not the clock (a loaded machine only slows them).
records() { wc -l < "$out"; }
# wait_records N: until the output has N records (1 when pmutop ended first or after 60 s).
wait_records() {
  local i
  for ((i = 0; i < 1200; i++)); do
    [ "$(records)" -ge "$1" ] && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
wait_records 3
if ! echo 0 > "$ctl" 2>/dev/null; then
  kill -TERM "$pid"; wait "$pid"; echo "SKIP: the kernel refused to take CPU $n offline"; exit 77
fi
wait_records $(($(records) + 3))
echo 1 > "$ctl"
wait_records $(($(records) + 5))
kill -TERM "$pid"
wait "$pid"
rc=$?
python3 - "$out" "$n" "$rc" <<'PY'
import json, sys
path, cpu, rc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
recs = [json.loads(l) for l in open(path)]
fail = passed = 0
def check(cond, msg):
    global fail, passed
    print(("ok   " if cond else "FAIL ") + msg)
    fail += not cond
    passed += bool(cond)
check(rc == 0, "pmutop exit status 0 after SIGTERM (got %d)" % rc)
for key in ("time", "seq", "timestamp"):
    v = [r[key] for r in recs]
    check(all(b > a for a, b in zip(v, v[1:])), "%s monotonic through the hotplug" % key)
check(len(recs) >= 11, "at least 11 records (got %d)" % len(recs))
states = []
for r in recs:
    row = [c for c in r["cpus"] if c["cpu"] == cpu][0]
    states.append("offline" if row.get("offline") else row["events"]["clock"]["state"])
print("cpu%d states: %s" % (cpu, " ".join(states)))
off = [i for i, s in enumerate(states) if s == "offline"]
check(len(off) >= 2, "CPU shown offline for some ticks")
if off:
    after = states[off[-1] + 1:]
    check(len(after) >= 3, "ticks after it came back")
    # the first tick after reopening restarts deltas (not counted), then it counts again
    check(after[:3].count("ok") >= 1 and after[-1] == "ok", "counted again within 2 ticks of coming back")
    last = [c for c in recs[-1]["cpus"] if c["cpu"] == cpu][0]
    v = last["events"]["clock"]["value"]
    check(v is not None and v > 0, "cpu-clock counts after reopening (%s ns)" % v)
print("%d passed, %d failed" % (passed, fail))
sys.exit(1 if fail else 0)
PY
first=$?

# ---- a CPU offline when pmutop starts gets its row once it comes online ----------------------
# pmutop counts the CPUs online at start; it reads the online list once a second and reopens its
# counters with a row for a CPU that came online.
out2=$(mktemp)
trap 'echo 1 > "$ctl" 2>/dev/null; rm -f "$out" "$out2"' EXIT
if ! echo 0 > "$ctl" 2>/dev/null; then
  echo "SKIP: the kernel refused to take CPU $n offline"; exit "$first"
fi
"$bin" -b -m sw -i 100 -n 40 -f json > "$out2" 2>/dev/null &
pid=$!
sleep 0.6
echo 1 > "$ctl"
wait $pid
rc=$?
python3 - "$out2" "$n" "$rc" <<'PY'
import json, sys
path, cpu, rc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
recs = [json.loads(l) for l in open(path)]
fail = passed = 0
def check(cond, msg):
    global fail, passed
    print(("ok   " if cond else "FAIL ") + msg)
    fail += not cond
    passed += bool(cond)
check(rc == 0, "offline at start: pmutop exit status 0 (got %d)" % rc)
for key in ("time", "seq", "timestamp"):
    v = [r[key] for r in recs]
    check(all(b > a for a, b in zip(v, v[1:])), "offline at start: %s monotonic" % key)
check(len(recs) == 40, "offline at start: 40 records (got %d)" % len(recs))
rows = [[c for c in r["cpus"] if c["cpu"] == cpu] for r in recs]
check(bool(recs) and not rows[0], "offline at start: no row for CPU %d in the first record" % cpu)
added = [i for i, r in enumerate(rows) if r]
check(bool(added), "offline at start: CPU %d gets a row once online" % cpu)
if added:
    check(all(rows[i] for i in range(added[0], len(rows))), "its row stays")
    last = rows[-1][0]
    check(not last.get("offline") and last["events"]["clock"]["state"] == "ok", "counted: %s" % last["events"]["clock"]["state"])
    counted = [c for c in recs[-1]["cpus"] if not c.get("offline") and c["events"]["tsc"]["state"] in ("ok", "scaled")]
    if counted:
        want = sum(c["metrics"]["tsc_ghz"] for c in counted) / len(counted)
        got = recs[-1]["total"]["metrics"]["tsc_ghz"]
        check(got is not None and abs(got - want) < 1e-3 * want, "all-row tsc_ghz %r = mean of the counted CPUs %r" % (got, want))
print("%d passed, %d failed" % (passed, fail))
sys.exit(1 if fail else 0)
PY
second=$?
[ "$first" -eq 0 ] && [ "$second" -eq 0 ]
# ---- end: a CPU offline when pmutop starts -----------------------------------------------------

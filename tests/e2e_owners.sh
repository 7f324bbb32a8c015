#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_owners.sh: --list-owners: a dump of hardware facts read back (counter index, the NMI
# watchdog, cgroup, BPF and KVM holders), a fake /proc tree, and for real: perf stat, perf record
# and a second pmutop are listed with pid, comm and events, and gone once they exit.
source "$(dirname "$0")/lib.sh"
FIX=$T_SRC/tests/fixtures/owners/zen4-busy.json

# ---- a dump of what the iterator returns on a hardware PMU, read back ----
run_cmd --list-owners --owners-from "$FIX"
check "fixture: exit 0" [ "$RC" = 0 ]
out=$T_TMP/out
check "fixture: source named" grep -q '^# owners: source fixture' "$out"
check "fixture: watchdog holds counter 0 on CPU 0" \
	grep -Eq '^0 +watchdog +- +kernel +cycles +pinned +- +- +0$' "$out"
check "fixture: perf's cycles on counter 1, ran 50%" \
	grep -Eq '^0 +process +4242 +perf +cycles +- +50% +active +1$' "$out"
check "fixture: perf's cycles not scheduled on CPU 1" \
	grep -Eq '^1 +process +4242 +perf +cycles +- +50% +inactive +-$' "$out"
# perf's names for a hardware cache event (type 3, config 0x10000) and a raw one (type 4)
check "fixture: cgroup event named as perf does, pinned" \
	grep -Eq '^1 +cgroup +5000 +perf +L1-dcache-load-misses +pinned +100% +active +3$' "$out"
check "fixture: BPF event, exclusive" \
	grep -Eq '^0 +bpf +6000 +bpftrace +r76 +exclusive +100% +active +4$' "$out"
check "fixture: pmutop's own group" grep -Eq '^0 +self +1234 +pmutop +cycles \[group 1\]' "$out"
check "fixture: KVM guest" grep -Eq '^any +kvm +7000 +qemu-system-x86 +4 vCPUs' "$out"
check "fixture: the watchdog's fix" grep -qxF \
	'# counter 0 on CPU 0 held by the NMI watchdog (sysctl kernel.nmi_watchdog=0 frees it)' "$out"
check "fixture: perf's share" grep -qxF \
	'# pid 4242 perf holds cycles,instructions on CPUs 0-1, ran 50 % of its time' "$out"
# JSON: written, read back, written again: the same owners
run_cmd --list-owners -f json --owners-from "$FIX"
cp "$T_TMP/out" "$T_TMP/dump1.json"
run_cmd --list-owners -f json --owners-from "$T_TMP/dump1.json"
check "fixture: JSON dump reads back to the same owners" python3 -c '
import json,sys
a=json.load(open(sys.argv[1]))["owners"]; b=json.load(open(sys.argv[2]))["owners"]
src=json.load(open(sys.argv[3]))["owners"]
assert a==b, (a,b)
assert len(a)==len(src)==9
w=[o for o in a if o["kind"]=="watchdog"]
assert [o["counter"] for o in w]==[0,0]
p=[o for o in a if o["pid"]==4242 and o["cpu"]==0 and o["event"]=="cycles"][0]
assert p["counter"]==1 and abs(p["ran"]-0.5)<1e-9 and p["state"]=="active"' \
	"$T_TMP/dump1.json" "$T_TMP/out" "$FIX"
# bad input: a clear message, exit 1
run_cmd --list-owners --owners-from "$T_TMP/nonexistent.json"
check "missing dump: exit 1" [ "$RC" = 1 ]
check "missing dump: says so" grep -q 'nonexistent.json' "$T_TMP/err"
echo '{"owners":[{"kind":"alien","pid":1}]}' >"$T_TMP/bad.json"
run_cmd --list-owners --owners-from "$T_TMP/bad.json"
check "bad kind: exit 1 with the reason" \
	bash -c '[ "$1" = 1 ] && grep -q "unknown kind \"alien\"" "$2"' _ "$RC" "$T_TMP/err"

# ---- the /proc fallback on a fake tree (a Skylake with the watchdog on) ----
ROOT=$T_TMP/root
cp -r "$T_SRC/tests/sysfs/x86-skylake" "$ROOT"
mkdir -p "$ROOT/proc/4242/fd" "$ROOT/proc/7000/fd" "$ROOT/proc/99/fd"
echo perf >"$ROOT/proc/4242/comm"
echo qemu-system-x86 >"$ROOT/proc/7000/comm"
echo bash >"$ROOT/proc/99/comm"
for fd in 3 4 5; do ln -s 'anon_inode:[perf_event]' "$ROOT/proc/4242/fd/$fd"; done
ln -s /dev/null "$ROOT/proc/4242/fd/0"
ln -s 'anon_inode:kvm-vcpu:0' "$ROOT/proc/7000/fd/10"
ln -s 'anon_inode:kvm-vcpu:1' "$ROOT/proc/7000/fd/11"
ln -s 'anon_inode:[eventfd]' "$ROOT/proc/99/fd/3"
run_cmd --list-owners --sysfs-root "$ROOT"
check "fake /proc: exit 0" [ "$RC" = 0 ]
check "fake /proc: the source says /proc" grep -q '^# owners: source proc' "$T_TMP/out"
check "fake /proc: perf's 3 files" grep -Eq '^any +process +4242 +perf +3 perf event files' \
	"$T_TMP/out"
check "fake /proc: the guest's 2 vCPUs" grep -Eq '^any +kvm +7000 +qemu-system-x86 +2 vCPUs' \
	"$T_TMP/out"
check "fake /proc: no line for a process without perf files" bash -c '! grep -q " 99 " "$1"' _ \
	"$T_TMP/out"
check "fake /proc: the watchdog (sysctl 1, hardware PMU)" grep -qxF \
	'# a counter held by the NMI watchdog (sysctl kernel.nmi_watchdog=0 frees it)' "$T_TMP/out"
echo 0 >"$ROOT/proc/sys/kernel/nmi_watchdog"
run_cmd --list-owners --sysfs-root "$ROOT"
check "fake /proc: watchdog off: not listed" bash -c '! grep -Eq "^[0-9a-z]+ +watchdog|NMI watchdog" "$1"' \
	_ "$T_TMP/out"

# ---- for real: perf stat, perf record and a second pmutop ----
if ! command -v perf >/dev/null 2>&1; then
	skip "live owners: perf is not installed (scripts/deps.sh test installs linux-perf)"
	t_done
fi
if ! perf stat -a -e cpu-clock true >/dev/null 2>&1; then
	skip "live owners: perf stat -a is not allowed here (perf_event_paranoid, not root)"
	t_done
fi
PIDS=()
T_CLEANUPS+=('for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null')
timeout 40 perf stat -a -e cpu-clock,page-faults sleep 30 >/dev/null 2>&1 &
STAT=$!
timeout 40 perf record -a -e cpu-clock -o "$T_TMP/perf.data" sleep 30 >/dev/null 2>&1 &
REC=$!
timeout 40 "$BIN" -b -m sw -i 200 -n 150 >/dev/null 2>&1 &
TOP=$!
PIDS=("$STAT" "$REC" "$TOP")
# timeout(1) runs each command as its child: the perf event files are the child's
child() { cat "/proc/$1/task/$1/children" 2>/dev/null | awk '{print $1}'; }
perf_files() { ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'anon_inode:\[perf_event\]'; }
for _ in $(seq 100); do
	S=$(child $STAT) R=$(child $REC) P=$(child $TOP)
	if [ -n "$S" ] && [ -n "$R" ] && [ -n "$P" ] && [ "$(perf_files "$S")" -gt 0 ] &&
		[ "$(perf_files "$R")" -gt 0 ] && [ "$(perf_files "$P")" -gt 0 ]; then
		break
	fi
	sleep 0.1
done
ONLINE=$(cat /sys/devices/system/cpu/online)
# what /proc itself shows, read just before (the independent count of files)
NS=$(perf_files "$S") NR=$(perf_files "$R") NP=$(perf_files "$P")
run_cmd --list-owners -f json
cp "$T_TMP/out" "$T_TMP/live.json"
check "live: exit 0" [ "$RC" = 0 ]
SOURCE=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["source"])' \
	"$T_TMP/live.json" 2>/dev/null)
echo "live: source $SOURCE; perf stat $S ($NS files), perf record $R ($NR), pmutop $P ($NP)"
cat >"$T_TMP/check.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
stat, rec, top = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
nfiles = dict(zip((stat, rec, top), map(int, sys.argv[5:8])))
online = set()
for part in sys.argv[8].split(","):
    a, _, b = part.partition("-")
    online.update(range(int(a), int(b or a) + 1))
by = {}
for o in d["owners"]:
    by.setdefault(o["pid"], []).append(o)
for pid, comm in ((stat, "perf"), (rec, "perf"), (top, "pmutop")):
    assert pid in by, f"pid {pid} ({comm}) not listed"
    assert all(o["comm"] == comm for o in by[pid]), (pid, by[pid])
    assert all(o["kind"] == "process" for o in by[pid]), by[pid]
if d["source"] == "bpf":
    # the events perf was asked for, one per online CPU each (perf stat -a)
    got = {(o["event"], o["cpu"]) for o in by[stat]}
    want = {(e, c) for e in ("cpu-clock", "page-faults") for c in online}
    assert got == want, (got, want)
    assert {o["cpu"] for o in by[rec] if o["event"] == "cpu-clock"} == online, by[rec]
    assert all(o["type"] is not None and "state" in o for o in by[stat])
    for pid in (stat, rec, top):
        assert len(by[pid]) == nfiles[pid], (pid, len(by[pid]), nfiles[pid])
else:
    for pid in (stat, rec, top):
        assert [o["files"] for o in by[pid]] == [nfiles[pid]], (pid, by[pid], nfiles[pid])
EOF
check "live: perf stat, perf record and pmutop listed ($SOURCE)" python3 "$T_TMP/check.py" \
	"$T_TMP/live.json" "$S" "$R" "$P" "$NS" "$NR" "$NP" "$ONLINE"
# the /proc fallback on the same processes
PMUTOP_OWNERS_NO_BPF=1 run_cmd --list-owners -f json
NS2=$(perf_files "$S") NR2=$(perf_files "$R") NP2=$(perf_files "$P")
check "live /proc: listed with their file counts" python3 "$T_TMP/check.py" \
	"$T_TMP/out" "$S" "$R" "$P" "$NS2" "$NR2" "$NP2" "$ONLINE"
check "live /proc: says which source" grep -q '"source":"proc"' "$T_TMP/out"
# the screen: key W opens the counters view with the same holders, Esc leaves it
if command -v tmux >/dev/null 2>&1; then
	source "$T_SRC/tests/tmuxlib.sh"
	tmux_open 132 120 # other perf users may be listed too
	start --no-rc -m sw -i 500
	keys W
	check "screen: the counters view names its source" \
		wait_for "^Who holds the counters \(source $SOURCE" 10
	check "screen: perf stat's holder line" wait_for "^  pid $S perf holds " 10
	check "screen: the second pmutop's events" wait_for "^[0-9a-z]+ +process +$P +pmutop " 10
	check "screen: pmutop itself, with its group" wait_for "^[0-9a-z]+ +self +[0-9]+ +pmutop " 10
	check "screen: nothing held invalid" wait_for '^Counts held invalid: 0 ' 5
	keys Escape
	check "screen: Esc goes back to the table" wait_for '^ +all ' 5
	keys q
	quit_check "screen"
else
	skip "screen: tmux is not installed"
fi
# the text listing names them too
run_cmd --list-owners
check "live text: perf stat's line" grep -Eq "^[0-9a-z]+ +process +$S +perf " "$T_TMP/out"
check "live text: the second pmutop" grep -Eq "^[0-9a-z]+ +process +$P +pmutop " "$T_TMP/out"
# they exit: gone from the map
kill "$S" "$R" "$P" 2>/dev/null
wait "$STAT" "$REC" "$TOP" 2>/dev/null
for _ in $(seq 50); do
	[ -d "/proc/$S" ] || [ -d "/proc/$R" ] || [ -d "/proc/$P" ] || break
	sleep 0.1
done
run_cmd --list-owners -f json
check "after exit: none of them is listed" python3 -c '
import json,sys
pids={o["pid"] for o in json.load(open(sys.argv[1]))["owners"]}
assert not pids & {int(p) for p in sys.argv[2:]}, pids' "$T_TMP/out" "$S" "$R" "$P"
t_done

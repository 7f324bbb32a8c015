#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_syscalls.sh: a batch run's system calls per tick, counted by strace (the kernel's view,
# not pmutop's): with no input watched the loop waits with one read() of its signalfd and no
# poll(), writes one record per tick, and a signal still ends a run blocked in that read.
source "$(dirname "$0")/lib.sh"

# sim backend: no counter reads, so what is left per tick is the loop's wait and the output
calls() { # FORMAT TICKS: "total write read poll clock_gettime memory" system calls of a run
	# pmutop's own thread (no -f), and no leak check at exit in a sanitizer's build (it runs a
	# thread and waits for it with sched_yield, as often as it takes)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -c -o "$T_TMP/st-$1-$2" \
		"$BIN" --no-rc -b --backend sim --sim-cpus 2 -i 10 -n "$2" -f "$1" \
		>/dev/null 2>"$T_TMP/err" </dev/null
	# strace -c columns: % time, seconds, usecs/call, calls, [errors,] syscall. Memory calls
	# are the allocator's (a sanitizer's allocator returns memory when it sees fit): apart.
	awk '$NF == "total" { t = $4 } $NF ~ /^(write|read|poll|ppoll|clock_gettime)$/ {
		n[$NF == "ppoll" ? "poll" : $NF] += $4 }
		$NF ~ /^(mmap|munmap|madvise|mprotect|mremap|brk)$/ { n["memory"] += $4 }
		END { printf "%d %d %d %d %d %d\n", t, n["write"], n["read"], n["poll"],
			n["clock_gettime"], n["memory"] }' "$T_TMP/st-$1-$2"
}

if ! command -v strace >/dev/null; then
	skip "strace is not installed: the system calls cannot be counted"
	t_done
fi

for fmt in csv json; do
	read -r t1 w1 r1 p1 c1 m1 <<<"$(calls "$fmt" 10)"
	read -r t2 w2 r2 p2 c2 m2 <<<"$(calls "$fmt" 60)"
	check "$fmt: the runs counted ($t1 and $t2 calls)" [ "$t1" -gt 0 -a "$t2" -gt "$t1" ]
	check "$fmt: no poll() in a batch run with no input watched ($p1, $p2)" [ "$p2" = 0 ]
	check "$fmt: one write per record (50 ticks: $((w2 - w1)))" [ "$((w2 - w1))" = 50 ]
	check "$fmt: one read per tick, the signalfd (50 ticks: $((r2 - r1)))" [ "$((r2 - r1))" = 50 ]
	# JSON's own CPU use reads the process CPU clock (a system call) at most every 100 ms:
	# 50 ticks of 10 ms are 0.5 s or more, so 5 or 6 reads; a loaded machine stretches the
	# ticks, so the bound is one read in 5 ticks on average (it was one every tick)
	check "$fmt: the process CPU clock not every tick (50 ticks: $((c2 - c1)))" \
		[ "$((c2 - c1))" -le 10 ]
	check "$fmt: no other system call per tick (50 ticks: $((t2 - m2 - t1 + m1)) in all)" \
		[ "$((t2 - m2 - t1 + m1))" -le $((100 + c2 - c1)) ]
	[ "$T_FAIL" = 0 ] || paste "$T_TMP/st-$fmt-10" "$T_TMP/st-$fmt-60" | sed 's/^/| /'

done

# CPU hotplug is followed without a sysfs read a second: the live sw mode reads /proc/stat each
# tick, whose cpuN lines are the online CPUs, and the online list is read again only when they
# change (or every 10 s). 40 ticks of 100 ms: the one read at start (it was one every second).
# e2e_hotplug takes a CPU offline and back under this rule; e2e_hotplug_tree reads a tree's
# online list once a second.
# online_reads ARGS...: a 40-tick run of pmutop ARGS under strace; sets fd (the descriptor it
# keeps open on the online list: its last open), n (reads of it after that open), stat_reads
# (reads of /proc/stat) and stat_opens (its opens)
online_reads() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -e trace=openat,pread64 \
		-o "$T_TMP/st-online" "$BIN" --no-rc -b -i 100 -n 40 -f csv "$@" >"$T_TMP/online.out" \
		2>"$T_TMP/err" </dev/null
	local rc=$?
	check "$* under strace: exit 0 (got $rc: $(head -c 300 "$T_TMP/err"))" [ "$rc" = 0 ]
	fd=$(sed -n 's|^openat(.*/devices/system/cpu/online".*= \([0-9]*\)$|\1|p' "$T_TMP/st-online" | tail -1)
	n=$(awk -v fd="${fd:-x}" '/^openat\(.*\/devices\/system\/cpu\/online"/ { n = 0 }
		index($0, "pread64(" fd ",") == 1 { n++ } END { print n + 0 }' "$T_TMP/st-online")
	stat_reads=$(grep -c '^pread64([0-9]*, "cpu ' "$T_TMP/st-online")
	stat_opens=$(grep -c '^openat(.*"/proc/stat"' "$T_TMP/st-online")
}
online_reads -m sw
check "the online list read once in 40 ticks of 100 ms that read /proc/stat ($n reads of fd ${fd:-none}, $stat_reads of /proc/stat)" \
	[ -n "$fd" -a "$n" = 1 -a "$stat_reads" -ge 40 ]
check "sw: /proc/stat opened once and read with pread ($stat_opens opens)" [ "$stat_opens" = 1 ]
# events with no /proc/stat event (perf's software events alone): the online list once a
# second, as before; the validity guard reads /proc/stat itself for the CPUs' busy time (at most
# every 100 ms, so every tick here) on a descriptor it keeps (it was an open, reads and a close
# each time: every hardware mode's tick at 100 ms and longer)
online_reads -e cpu-clock,context-switches
check "without /proc/stat events the online list is read once a second (4 s of ticks: $n reads of fd ${fd:-none})" \
	[ -n "$fd" -a "$n" -ge 3 ]
check "without /proc/stat events the guard reads it with pread on one descriptor ($stat_opens opens, $stat_reads preads in 40 ticks)" \
	[ "$stat_opens" -le 1 -a "$stat_reads" -ge 20 ]

# a signal ends a run blocked in that read: a 60 s period, so only the signal can wake it
for sig in INT TERM; do
	"$BIN" --no-rc -b --backend sim -i 60000 -f csv >"$T_TMP/long.out" 2>&1 </dev/null &
	pid=$!
	# blocked in read(): state S with the signals blocked (SigBlk has SIGINT's bit)
	for _ in $(seq 200); do
		grep -q '^State:.*S' "/proc/$pid/status" 2>/dev/null &&
			[ "$(awk '/^SigBlk/ { print $2 }' "/proc/$pid/status")" != 0000000000000000 ] && break
		sleep 0.05
	done
	sleep 0.2
	kill -$sig $pid
	timeout 10 tail --pid=$pid -f /dev/null
	if kill -0 $pid 2>/dev/null; then
		kill -KILL $pid
		fail "SIG$sig: the run blocked in its wait was still there after 10 s"
	fi
	wait $pid
	rc=$?
	check "SIG$sig ends a run blocked in its wait, exit 0 (got $rc)" [ "$rc" = 0 ]
done
t_done

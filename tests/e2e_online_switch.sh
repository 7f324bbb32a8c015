#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_online_switch.sh: the CPU hotplug rule across an event change mid-run, on the real screen.
# The live sw mode reads /proc/stat each tick and the online CPU list only when /proc/stat's cpuN
# lines change; ":remove busy idle" leaves the running screen with no /proc/stat event, and from
# then on the list is read once a second again. Counted by strace (the kernel's view of the
# reads), not by pmutop. The header's util source follows the change too.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"

if ! command -v strace >/dev/null; then
	skip "strace is not installed: the reads cannot be counted"
	t_done
fi
tmux_open 120 30
# no leak check at exit in a sanitizer's build (it waits for its thread with sched_yield)
START_ENV="ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}detect_leaks=0 strace -e trace=openat,pread64,close -o '$T_TMP/st'"
check "sw under strace: the table appears" start --no-rc -m sw -i 100
check "sw: the util column is there" wait_for '^CPU +util'
# where util comes from, as the header says: /proc/stat's busy and idle here unless the machine
# has msr/mperf/ (then util keeps its column after the change)
from_proc=0
pane_has 'util from proc/busy/ proc/idle/' && from_proc=1
sleep 3
keys ":remove busy idle" Enter
check ":remove busy idle: the events are gone from the header" wait_gone 'util from proc/busy/'
if [ "$from_proc" = 1 ]; then
	check ":remove busy idle: the util column goes (it needs them without msr/mperf/)" \
		wait_gone '^CPU +util'
	check ":remove busy idle: the header no longer names a util source" pane_lacks 'util from'
else
	check ":remove busy idle: util stays, from msr/mperf/" pane_has 'util from msr/mperf/'
fi
sleep 4.5
keys q
quit_check "quit after the change"

# the change: the sw mode's backend reads /proc/stat on one descriptor (the first read of a "cpu"
# line) until it closes it (the validity guard reads the file on a descriptor of its own once the
# mode has no busy and idle events); the reads of the online list's descriptor (its last open's)
# before and after that point, and the backend's /proc/stat reads before it
read -r stat_n before after guard_opens guard_reads < <(awk '
	/^openat\(.*\/devices\/system\/cpu\/online"/ { match($0, /= [0-9]+$/); fd = substr($0, RSTART + 2) }
	/^pread64\([0-9]+, "cpu / { split($0, a, /[(,]/); if (sfd == "") sfd = a[2]
		if (!ended && a[2] == sfd) { stat++; last = NR } }
	/^close\([0-9]+\)/ { split($0, a, /[()]/); if (sfd != "" && a[2] == sfd && !ended) { ended = 1; last = NR } }
	/^pread64\(/ { split($0, a, /[(,]/); if (fd != "" && a[2] == fd) at[++n] = NR }
	/^openat\(.*"\/proc\/stat"/ { op[++no] = NR }
	/^pread64\([0-9]+, "cpu / { sr[++ns] = NR }
	END { for (i = 1; i <= n; i++) if (at[i] < last) b++; else f++
		for (i = 1; i <= no; i++) go += op[i] > last
		for (i = 1; i <= ns; i++) gr += sr[i] > last
		printf "%d %d %d %d %d\n", stat, b, f, go, gr }' "$T_TMP/st")
check "the sw mode read /proc/stat every tick for ~3 s ($stat_n reads)" [ "$stat_n" -ge 20 ]
check "while /proc/stat was read, the online list was read at most twice ($before)" \
	[ "$before" -le 2 ]
# 4.5 s and the quit: 4 to 6 reads at once a second; not every tick (45 or more)
check "after :remove busy idle, the online list is read once a second (4.5 s: $after reads)" \
	[ "$after" -ge 3 -a "$after" -le 10 ]
# where the two meet: with busy and idle gone the validity guard reads /proc/stat itself for
# its busy figure, at most every 100 ms, on one descriptor it keeps (not an open a tick)
check "after the change the guard preads /proc/stat on one descriptor ($guard_opens opens, $guard_reads reads)" \
	[ "$guard_opens" -le 1 -a "$guard_reads" -ge 20 ]
[ "$T_FAIL" = 0 ] || grep -E 'online"|^pread64\([0-9]+, "cpu ' "$T_TMP/st" | cut -c1-80 | tail -30
t_done

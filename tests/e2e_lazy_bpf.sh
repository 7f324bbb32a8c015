#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_lazy_bpf.sh: libbpf (and libelf, libz) is mapped only while the ownership map's BPF
# iterator is loaded: pmutop is not linked against it (ldd); a live screen does not load it
# before the map is read; the counters view reads the map, and then the screen keeps the
# iterator's link (an anon_inode:bpf_link descriptor), says "source bpf", lists its own events
# (as the kernel's /proc/PID/fd counts them), while /proc/PID/maps lists no libbpf, libelf or
# libz. Where the iterator cannot load, the /proc fallback and its reason are checked instead.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"

if ! grep -aq 'libbpf\.so' "$BIN"; then
	echo "SKIP: $BIN is built without the BPF iterator (no libbpf at build time)"
	exit 77
fi
check "pmutop is not linked against libbpf, libelf or libz (ldd)" \
	bash -c "! ldd '$BIN' | grep -qE 'libbpf|libelf|libz\\.'"

# a tall pane: every other program holding perf events on this machine is listed too, and
# 40 lines did not reach the screen's own rows when another pmutop held 100 events
tmux_open 160 400
start --no-rc -m sw -i 200
pid=$(pgrep -n -P "$("${TM[@]}" display-message -p '#{pane_pid}')")
check "the screen runs (pid $pid)" test -n "$pid"
sleep 1
check "no BPF link and no libbpf before the map is read" \
	bash -c "! ls -l /proc/$pid/fd | grep -q bpf_link && ! grep -q '/libbpf' /proc/$pid/maps"
keys ":view counters" Enter
wait_for 'Who holds the counters' 10
link=0
for _ in $(seq 100); do # the counters view reads the map within a tick or two
	link=$(ls -l /proc/"$pid"/fd 2>/dev/null | grep -c 'anon_inode:bpf_link' || true)
	[ "$link" -ge 1 ] && break
	pane_has 'source proc' && break
	sleep 0.1
done
sleep 0.5 # a tick after the load
if [ "${link:-0}" -ge 1 ]; then
	check "libbpf, libelf and libz are not mapped while the iterator's link is kept" \
		bash -c "! grep -qE '/lib(bpf|elf|z)[.-]' /proc/$pid/maps"
	check "libc is (the maps were read)" grep -q '/libc.so' /proc/"$pid"/maps
	check "the counters view says the map comes from the iterator" pane_has 'source bpf'
	nperf=$(ls -l /proc/"$pid"/fd | grep -c 'anon_inode:\[perf_event\]')
	nself=$(pane | grep -cE "^[0-9]+ +self +$pid ")
	check "the iterator lists the screen's own events ($nself rows; /proc/PID/fd: $nperf perf files)" \
		test "$nself" -ge 1 -a "$nself" -le "$nperf"
	keys ":quit" Enter
	quit_check "the screen with the iterator"
else
	check "no libbpf mapped with the /proc fallback" \
		bash -c "! grep -qE '/lib(bpf|elf|z)[.-]' /proc/$pid/maps"
	keys ":quit" Enter
	quit_check "the screen"
	out=$("$BIN" --no-rc --list-owners 2>&1)
	check "the iterator did not load here, and --list-owners says why: $(head -1 <<<"$out")" \
		grep -q '^# owners: source proc.*(BPF iterator did not load: ' <<<"$out"
	echo "SKIP: the BPF iterator does not load here ($(head -1 <<<"$out")); the fallback was checked"
	t_done
	exit 77
fi
t_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_cadence_hint.sh: the sampling line suggests --realtime when the ticks' p99 lateness over
# the window exceeds 1 ms and pmutop is not already real-time, and not otherwise. pmutop is made
# late for real: a loop stops it (SIGSTOP) for at least 4 ms of every 15 ms, so a timer expiry
# that falls in a stop is seen only when it ends (the kernel's own wake-up, several ms late).
# Each line is judged by the p99 it prints itself: hint if and only if p99 > 1.00 ms.
source "$(dirname "$0")/lib.sh"
T=$T_TMP

# stopper PID: stops PID for >= 4 ms of every ~15 ms until it exits
stopper() {
	while kill -STOP "$1" 2>/dev/null; do
		sleep 0.004
		kill -CONT "$1" 2>/dev/null || break
		sleep 0.011
	done
}
# run OUT [ARGS...]: pmutop sampling every 10 ms on the sim backend, 12 text records of 200 ms
run() {
	local out=$1
	shift
	timeout 30 "$BIN" --no-rc -b -n 12 --sample 10 --refresh 200 --backend sim --sim-cpus 2 \
		-m cpi --flight 0 -f text "$@" >"$T/$out" 2>"$T/$out.err" </dev/null
}
# run_stopped OUT [ARGS...]: as run, pmutop itself (not a shell) stopped by the stopper; RC
run_stopped() {
	local out=$1 p s
	shift
	"$BIN" --no-rc -b -n 12 --sample 10 --refresh 200 --backend sim --sim-cpus 2 -m cpi \
		--flight 0 -f text "$@" >"$T/$out" 2>"$T/$out.err" </dev/null &
	p=$!
	T_CLEANUPS+=("kill -CONT $p 2>/dev/null; kill $p 2>/dev/null")
	sleep 0.3
	stopper $p &
	s=$!
	wait $p
	RC=$?
	wait $s 2>/dev/null
}
# lines FILE: the late fields of the sampling lines, one per line
lines() { grep -o '| late p99 [^|]*|' "$1"; }
# agree FILE [MIN]: every sampling line (at least MIN, default 10) carries the hint exactly when
# its own p99 is above 1 ms
agree() {
	local bad
	[ "$(lines "$1" | wc -l)" -ge "${2:-10}" ] || { echo "  sampling lines: $(head -c 300 "$1")"; return 1; }
	# a p99 printed as 1.00 may be just above 1 ms (hint) or at it (none): either is right
	bad=$(lines "$1" | awk '{ late = $4 > 1.00; hint = /\(try --realtime\)/ } $4 != "1.00" && late != hint')
	[ -z "$bad" ] || { echo "  hint and p99 disagree: $bad"; return 1; }
}
# late_lines FILE: how many lines show p99 above 1 ms
late_lines() { lines "$1" | awk '$4 > 1.00' | wc -l; }

# late: stopped for 4 ms of every 15
run_stopped late.txt
check "stopped run exits 0 ($RC): $(head -c 200 "$T/late.txt.err")" [ $RC = 0 ]
check "late: some lines show p99 over 1 ms ($(late_lines "$T/late.txt"))" [ "$(late_lines "$T/late.txt")" -ge 3 ]
check "late: those lines suggest --realtime" grep -q 'late p99 [0-9.]* max [0-9.]* ms (try --realtime), missed' "$T/late.txt"
check "late: hint exactly on the lines with p99 over 1 ms" agree "$T/late.txt"

# not stopped: on time lines carry no hint (a loaded machine may make some lines late: each
# line is judged by its own p99)
run free.txt
check "free run exits 0" [ $? = 0 ]
check "free: hint exactly on the lines with p99 over 1 ms" agree "$T/free.txt"
echo "free run: $(late_lines "$T/free.txt") of $(lines "$T/free.txt" | wc -l) lines late"

# already real-time: late, but no hint (--realtime cannot help a stopped process)
if [ "$(id -u)" = 0 ] && chrt -f 1 true 2>/dev/null; then
	run_stopped rt.txt --realtime
	check "--realtime run exits 0 ($RC): $(head -c 200 "$T/rt.txt.err")" [ $RC = 0 ]
	check "--realtime: late lines ($(late_lines "$T/rt.txt"))" [ "$(late_lines "$T/rt.txt")" -ge 3 ]
	check "--realtime: no hint" bash -c "! grep -q 'try --realtime' '$T/rt.txt'"
else
	skip "SCHED_FIFO is refused here (needs root or CAP_SYS_NICE): the --realtime case is not run"
fi
# the screen's sampling line, the same hint (pmutop in a tmux pane, stopped as above), within
# 100 columns though the stops make pmutop miss ticks (the missed-ticks note comes after it)
if command -v tmux >/dev/null; then
	source "$(dirname "$0")/tmuxlib.sh"
	tmux_open 100 24
	# no job control: the shell would take the terminal back when pmutop stops
	keys "set +m; cd '$T'" Enter
	start --no-rc --backend sim --sim-cpus 2 -m cpi --sample 10 --refresh 200 --flight 0
	check "screen: the sampling line" wait_for '\| late p99 [0-9.]+ max [0-9.]+ ms' 10
	pane >"$T/screen1"
	check "screen: hint exactly when the line's p99 is over 1 ms" agree "$T/screen1" 1
	SP=$(pgrep -P "$("${TM[@]}" list-panes -F '#{pane_pid}' | head -1)" | head -1)
	stopper "$SP" &
	S=$!
	check "screen: stopped, the line suggests --realtime" wait_for 'late p99 [0-9.]+ max [0-9.]+ ms \(try --realtime\)' 10
	kill $S 2>/dev/null
	wait $S 2>/dev/null
	kill -CONT "$SP" 2>/dev/null
	keys q
	quit_check "screen"
else
	skip "tmux is not installed: the screen case is not run"
fi
t_done

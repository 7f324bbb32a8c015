# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_realtime.sh: --realtime puts pmutop under SCHED_FIFO priority 1 (the kernel's own
# /proc/PID/stat policy and rt_priority fields say so), never a counted command; where the
# kernel refuses, the run stops at once with exit 2, a message naming CAP_SYS_NICE and no
# output. Without --realtime the policy stays SCHED_OTHER.
source "$(dirname "$0")/lib.sh"

# policy PID: "POLICY RTPRIO" from /proc/PID/stat (fields 41 and 40; the name may hold spaces)
policy() { sed 's/.*) //' /proc/"$1"/stat | awk '{ print $39, $38 }'; }

# bg ARGS: pmutop -b ARGS in the background (sim backend, 100 ms); its PID in $PID once it ticks
bg() {
	"$BIN" -b --backend sim --sim-cpus 2 -i 100 -n 30 -f csv "$@" \
		>"$T_TMP/out" 2>"$T_TMP/err" </dev/null &
	PID=$!
	T_CLEANUPS+=("kill $PID 2>/dev/null")
	for _ in $(seq 100); do # however busy the machine is
		[ "$(wc -l <"$T_TMP/out")" -ge 2 ] && break
		sleep 0.2
	done
}

bg
check "SCHED_OTHER without --realtime ($(policy $PID))" test "$(policy $PID)" = "0 0"
kill $PID 2>/dev/null
wait $PID 2>/dev/null

if chrt -f 1 true 2>/dev/null; then
	bg --realtime
	check "SCHED_FIFO priority 1 with --realtime ($(policy $PID))" test "$(policy $PID)" = "1 1"
	check "the run says so" grep -q 'SCHED_FIFO priority 1' "$T_TMP/err"
	wait $PID
	check "the run ends well" test $? -eq 0
	# a counted command starts under SCHED_OTHER (SCHED_RESET_ON_FORK)
	run_cmd -b -m sw -i 100 -n 2 -f csv --realtime -- sh -c 'sed "s/.*) //" /proc/self/stat | awk "{ print \$39 }" >'"$T_TMP/child"
	if [ -s "$T_TMP/child" ]; then
		check "the counted command runs SCHED_OTHER ($(cat "$T_TMP/child"))" \
			test "$(cat "$T_TMP/child")" = 0
	else
		skip "no counted command ran here (perf events refused: $(head -1 "$T_TMP/err"))"
	fi
else
	skip "SCHED_FIFO is not allowed to this test's user: the success path is not checked"
fi

# refused: an unprivileged user without RLIMIT_RTPRIO
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	(
		ulimit -r 0
		exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
			timeout 30 "$BIN" -b --no-rc --backend sim -i 100 -n 3 -f csv --realtime
	) >"$T_TMP/out" 2>"$T_TMP/err" </dev/null
	RC=$?
	check "refused --realtime exits 2 (got $RC)" test "$RC" -eq 2
	check "the message names what it needs" grep -q 'refused SCHED_FIFO.*CAP_SYS_NICE' "$T_TMP/err"
	check "nothing is written" test ! -s "$T_TMP/out"
elif ! chrt -f 1 true 2>/dev/null; then
	run_cmd -b --no-rc --backend sim -i 100 -n 3 -f csv --realtime
	check "refused --realtime exits 2 (got $RC)" test "$RC" -eq 2
	check "the message names what it needs" grep -q 'refused SCHED_FIFO.*CAP_SYS_NICE' "$T_TMP/err"
else
	skip "cannot drop to an unprivileged user here: the refusal is not checked"
fi
t_done

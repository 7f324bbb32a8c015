#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_idlewin.sh: sampling-ring windows close on time while the kernel throttles every CPU. With
# kernel.perf_event_max_sample_rate at 500/s a 100us cpu-clock leader is throttled after 2 to 5
# samples of each scheduler tick (rate / HZ, HZ 100 to 250), and on an idle CPU, whose tick stops
# (NOHZ), until something wakes it: no CPU writes a sample for tens to hundreds of ms. A window
# still ends on its refresh grid: each throttled CPU gets a tick at the end whose counts repeat its
# last ones (it counts nothing while throttled). Checked against the wall clock (each record's
# arrival, timed by this script) and the kernel's own count (cpu-clock + throttled = interval).
# No busy loops: idle CPUs are the case (on a loaded machine episodes last a tick at most).
# The sysctl is global: the test runs alone (RUN_SERIAL) and restores it on every exit.
source "$(dirname "$0")/lib.sh"
T=$T_TMP
throttle_setup "the synthetic records are tested in test_perfring"

N=20
# each record's arrival on the wall clock (bash's EPOCHREALTIME: gettimeofday, no fork)
T0=$EPOCHREALTIME
timeout 30 "$BIN" --no-rc -b -n $N -i 100 --sample 100us --sample-path ring --flight 0 -m sw \
	-c "$DEF" -f json 2>"$T/idle.err" </dev/null | while IFS= read -r line; do
	printf '%s\n' "$line" >>"$T/idle.json"
	printf '%s\n' "$EPOCHREALTIME" >>"$T/arrive"
done
RC=${PIPESTATUS[0]}
NOW=$(cat "$RATE")
restore_sample_rate
if [ "$NOW" != 500 ]; then # another program (a second test suite) set it meanwhile
	echo "SKIP: $RATE was changed to $NOW during the run by another program"
	exit 77
fi

jqs() { jq -se "length > 0 and ($2)" "$1" >/dev/null || { echo "  $1: $(jq -c '[.interval_ms, [.cpus[] | [.events.c.value, .events.c.state, .throttled_ms, .throttles]]]' "$1" | head -$N)"; return 1; }; }
check "the run exits 0 ($RC)" [ "$RC" = 0 ]
check "$N records" jqs "$T/idle.json" "length == $N"
# the case: at 10 kHz against 500/s every CPU is throttled most of every window (> 90 % on this
# VM busy or idle; an idle CPU often all of it, its episode begun in an earlier window), so at
# nearly every window's end every CPU is
check "every CPU throttled over half of every window" jqs "$T/idle.json" \
	'all(.[]; .interval_ms as $iv | all(.cpus[]; .throttled_ms > 0.5 * $iv))'
# a CPU throttled all window long counted nothing, and says so: a count of 0, not "not counted"
# (the tick at the end carries the window's time, as a read() would)
check "every CPU's cpu-clock counted (a value) in every window" jqs "$T/idle.json" \
	'all(.[]; all(.cpus[]; .events.c.value != null))'
# A window closes at its first tick at or after its end less half a period (0.05 ms): a boundary
# tick exactly at the end, or a CPU's sample as its timer fires (late by the host's scheduling of
# a virtual CPU: up to 0.1 ms measured). 1 ms also covers a CPU neither throttled nor sampled at
# the end, read() 1 ms later and spread back to it. Before, a window waited for the first sample
# after the end: up to a scheduler tick (1 to 10 ms) late on a busy CPU, tens to hundreds idle.
check "every window lasts 100 ms +- 1 ms" jqs "$T/idle.json" 'all(.[]; (.interval_ms - 100 | fabs) <= 1)'

# The wall clock: N windows of 100 ms are written within N * 100 ms of the start, plus the start
# itself (exec, opening the groups: under 100 ms measured here, 40 on a loaded machine) and the
# last record's drain (the rings are drained every 25 ms) and scheduling; 300 ms in all. Before,
# windows of 100 to 410 ms on an idle machine took 1.5 to 4 times as long.
wall_ok() {
	local n last
	n=$(wc -l <"$T/arrive")
	last=$(tail -1 "$T/arrive")
	awk -v t0="$T0" -v t="$last" -v n="$n" -v want=$N 'BEGIN { ms = (t - t0) * 1000;
		if (n != want || ms < want * 100 || ms > want * 100 + 300) {
			printf "  %d records in %.1f ms of wall clock (want %d in %d to %d)\n", n, ms, want, want * 100, want * 100 + 300; exit 1 } }'
}
check "$N records of 100 ms written within $N x 100 ms + 300 ms of wall clock" wall_ok
# each record's timestamp (the end of its window, pmutop's clock) against its arrival (the
# wall clock): written after its end, within two drains (50 ms) and scheduling (100 ms in all)
arrivals_ok() {
	jq -r '.timestamp' "$T/idle.json" | paste - "$T/arrive" | awk '{ d = ($2 - $1) * 1000;
		if (d < -2 || d > 100) { printf "  record %d: arrived %.1f ms after its end\n", NR, d; bad = 1 } }
		END { exit bad }'
}
check "each record arrives 0 to 100 ms after its window's end (timestamp)" arrivals_ok
# the kernel's own count: cpu-clock stops while throttled, so cpu-clock + throttled_ms is the
# interval (as e2e_throttle: the median of windows and CPUs within 3 %, none short by over 5 %)
shortfall_ok() {
	local e
	e=$(jq -s '[.[] | .interval_ms as $iv | .cpus[] | (($iv - (.events.c.value // 0) / 1e6) - .throttled_ms) / $iv]' "$T/idle.json")
	jq -e --argjson want $((N * NCPU)) 'length == $want and all(.[]; . < 0.05) and (sort | .[length / 2 | floor] | fabs < 0.03)' <<<"$e" >/dev/null ||
		{ echo "  errors (interval - cpu-clock - throttled) / interval: $(jq -c 'map(. * 1000 | round / 1000)' <<<"$e")"; return 1; }
}
check "cpu-clock + throttled_ms = interval: median of windows and CPUs 3 %, none above 5 %" shortfall_ok
check "self: the throttled time is the windows' total" jqs "$T/idle.json" \
	'(map([.cpus[].throttled_ms] | add) | add) as $s | (.[-1].self.throttled_ms - $s | fabs) < 0.01'
t_done

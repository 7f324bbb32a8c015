#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_steady_faults.sh: a steady batch tick takes no page fault: at 10 ms in the sw mode (perf
# source, software events) with the flight recorder on, the minor faults between 1 s and 3 s
# after start stay within a small bound for CSV, JSON and OpenMetrics. The rings a tick writes
# (the flight recorder's slots, OpenMetrics' baseline history) are mapped in when made; lazily
# zeroed, each new page they reach costs a tick a fault (JSON took ~20 in that span). An ASan
# build's checks fault in the shadow of memory as they first read it (a shadow page for 32 KiB of
# the ring), which are the sanitizer's faults: there the resident memory outside the shadow is
# what must not grow; it is checked in every build.
source "$(dirname "$0")/lib.sh"

# minor faults (/proc/PID/stat field 10; the fields after the command's closing parenthesis
# start at field 3)
minflt() { awk '{ sub(/.*\) /, ""); print $8 }' "/proc/$1/stat" 2>/dev/null; }

# an ASan build's minor faults include its shadow's; rss_kib (lib.sh) leaves the shadow out
ASAN=0
if asan_build; then ASAN=1; fi
PAGE_KIB=$(($(getconf PAGESIZE) / 1024))

# A steady tick: the 200 ticks of 1 s to 3 s (the start's allocations are done by 1 s), CPU 0
# only (-C 0) and a 5 s flight ring (501 slots of a few hundred bytes), so that the ring is
# under the 2 MiB mapped in when made (MEM_PREFAULT_MAX) on any machine. Bound:
# 3. A lazily mapped ring costs far more on any machine (the flight ring's slots, 192 bytes on
# one CPU, are a page every 21 ticks, ~10 in the span; the baseline history a page every ~50
# ticks; more CPUs, bigger slots and more pages); the bound leaves room for the odd fault
# of the kernel's own (a page of the stack or of stdio's buffer first reached late). The spike
# log is not a tick's: it grows as spikes are logged, a page per 24 of them, and the sw mode's
# default rules log many on a busy machine, so a user rule that never fires replaces them.
BOUND=3
if ! timeout 10 "$BIN" --no-rc -b -m sw -i 10 -n 2 -f csv >/dev/null 2>"$T_TMP/probe.err" \
	</dev/null; then
	skip "the sw mode does not run here (perf software events): $(head -c 200 "$T_TMP/probe.err")"
	t_done
fi
for fmt in csv json openmetrics; do
	# -n 1000: 10 s, killed after its 3 s; at 1 s and 3 s only quick reads (the fault count, a
	# copy of smaps), parsed after the run: a slow start of python3 on a loaded machine does not
	# move the span's end
	"$BIN" --no-rc -b -m sw -C 0 -i 10 -n 1000 -f "$fmt" --flight 5 --alert "util > 1000" \
		>/dev/null 2>"$T_TMP/$fmt.err" </dev/null &
	pid=$!
	sleep 1
	a=$(minflt $pid)
	cat "/proc/$pid/smaps" >"$T_TMP/$fmt.smaps1" 2>/dev/null
	sleep 2
	b=$(minflt $pid)
	cat "/proc/$pid/smaps" >"$T_TMP/$fmt.smaps2" 2>/dev/null
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	ra= rb=
	[ -s "$T_TMP/$fmt.smaps1" ] && ra=$(rss_kib "$T_TMP/$fmt.smaps1")
	[ -s "$T_TMP/$fmt.smaps2" ] && rb=$(rss_kib "$T_TMP/$fmt.smaps2")
	if [ -z "$a" ] || [ -z "$b" ] || [ -z "$ra" ] || [ -z "$rb" ]; then
		fail "$fmt: the run ended before 3 s: $(head -c 300 "$T_TMP/$fmt.err")"
		continue
	fi
	grew="$((rb - ra)) KiB in a steady 2 s of 10 ms ticks (at most $((BOUND * PAGE_KIB)) KiB)"
	check "$fmt: resident memory (without a sanitizer's shadow) grew $grew" \
		[ "$((rb - ra))" -le "$((BOUND * PAGE_KIB))" ]
	if [ "$ASAN" = 1 ]; then
		echo "($fmt: an ASan build: its $((b - a)) minor faults include its shadow's)"
	else
		check "$fmt: $((b - a)) minor faults in a steady 2 s of 10 ms ticks (at most $BOUND)" \
			[ "$((b - a))" -le "$BOUND" ]
	fi
done
t_done

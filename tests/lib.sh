# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh: shared helpers for the end-to-end scripts (tests/e2e_*.sh): checks, golden files.
# Usage: source "$(dirname "$0")/lib.sh"; check/pass/fail/skip ...; t_done
set -u
T_SRC=${PMUTOP_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BIN=${PMUTOP_BIN:-$T_SRC/build/pmutop}
GOLDEN=$T_SRC/tests/golden
T_PASS=0 T_FAIL=0 T_SKIP=0
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/pmutop-e2e.XXXXXX")
T_CLEANUPS=()
t_cleanup() {
	local c
	for c in "${T_CLEANUPS[@]}"; do eval "$c"; done
	rm -rf "$T_TMP"
}
trap t_cleanup EXIT
# python3 started directly, not through a version manager's shim (0.5 s a start): the
# interpreter the build found (PMUTOP_TEST_PYTHON), linked first in PATH while it exists
if [ -x "${PMUTOP_TEST_PYTHON:-}" ] && mkdir "$T_TMP/bin" && ln -s "$PMUTOP_TEST_PYTHON" "$T_TMP/bin/python3"; then
	export PATH="$T_TMP/bin:$PATH"
fi
# batch mode runs the rc file too: keep the tester's own out of the tests
export XDG_CONFIG_HOME=$T_TMP/config

if [ ! -x "$BIN" ]; then
	echo "SKIP: pmutop binary not found at $BIN (set PMUTOP_BIN)"
	exit 77
fi

pass() { T_PASS=$((T_PASS + 1)); }
fail() { T_FAIL=$((T_FAIL + 1)); echo "FAIL: $*"; }
skip() { T_SKIP=$((T_SKIP + 1)); echo "SKIP: $*"; }
# check DESC CMD...: passes when CMD succeeds.
check() {
	local desc=$1
	shift
	if "$@"; then pass; else fail "$desc"; fi
}
# asan_build: whether $BIN is an ASan build (its runtime's symbols are in the binary); nm runs
# once per test shell (it takes a while on an ASan binary on a loaded machine; a call in a
# command substitution caches nothing, so a test calls it once first)
asan_build() {
	if [ -z "${T_ASAN_BUILD:-}" ]; then
		T_ASAN_BUILD=no
		if nm "$BIN" 2>/dev/null | grep -c __asan_init >/dev/null; then T_ASAN_BUILD=yes; fi
	fi
	[ "$T_ASAN_BUILD" = yes ]
}
# rss_kib PID|FILE: the process's resident KiB (/proc/PID/smaps, or a copy of it taken earlier
# with `cat`, which is quick where starting python3 under load is not) without an ASan build's
# shadow (1/8 of every byte it ever touched, kept after a free: on x86-64 the mappings below
# 0x10007fff8000; elsewhere, or in a plain build, no mapping is left out)
rss_kib() {
	local end=0
	if [ "$(uname -m)" = x86_64 ] && asan_build; then end=$((0x10007fff8000)); fi
	python3 -c 'import sys
kib = 0; shadow = False
src = sys.argv[1]
for l in open("/proc/" + src + "/smaps" if src.isdigit() else src):
    f = l.split()
    if "-" in f[0] and not f[0].endswith(":"):
        shadow = int(f[0].split("-")[0], 16) < int(sys.argv[2])
    elif f[0] == "Rss:" and not shadow:
        kib += int(f[1])
print(kib)' "$1" "$end" 2>/dev/null
}
# run_cmd: runs "$BIN" ARGS with stdout/stderr in $T_TMP/out, $T_TMP/err, status in $RC
# (124 when it ran past 30 s).
run_cmd() {
	timeout 30 "$BIN" "$@" >"$T_TMP/out" 2>"$T_TMP/err" </dev/null
	RC=$?
}
# golden_cmp NAME FILE: compares FILE with tests/golden/NAME byte for byte.
# PMUTOP_UPDATE_GOLDEN=1 rewrites the golden file instead.
# Drops what differs from run to run and machine to machine by nature: pmutop's own cadence and
# CPU use ("self" in JSON, the "sample ... | self ..." status line in text), the host name and the
# wall-clock time (JSON "host" and "timestamp", the last two CSV columns).
golden_normalise() {
	case "${2:-$1}" in
	*.json) python3 -c 'import json,sys
out=[]
for l in open(sys.argv[1]):
    o=json.loads(l); o.pop("self",None); o.pop("host",None); o.pop("timestamp",None)
    out.append(json.dumps(o,separators=(",",":")))
open(sys.argv[1],"w").write("".join(x+"\n" for x in out))' "$1" ;;
	*.text) sed -i '/^sample .* | self /d' "$1" ;;
	*.csv) sed -i 's/,[^,]*,[^,]*$//' "$1" ;; # the host and the wall-clock time
	esac
}
golden_cmp() {
	local name=$1 file=$2 g=$GOLDEN/$1
	golden_normalise "$file" "$name"
	if [ "${PMUTOP_UPDATE_GOLDEN:-0}" = 1 ]; then
		mkdir -p "$(dirname "$g")"
		cp "$file" "$g"
		echo "updated $g"
		pass
		return 0
	fi
	if [ ! -f "$g" ]; then
		fail "golden $name missing (run with PMUTOP_UPDATE_GOLDEN=1 to create it)"
		return 1
	fi
	if cmp -s "$file" "$g"; then
		pass
	else
		fail "golden $name differs:"
		diff -u "$g" "$file" | head -20
		return 1
	fi
}
# kernel_pmu_events WHAT: sets ARCH to the kernel's tools/perf/pmu-events/arch (Debian's
# linux-source-6.1, extracted once into the build tree), or skips the test for WHAT with the
# reason and ends it.
kernel_pmu_events() {
	local tar=/usr/src/linux-source-6.1.tar.xz dest
	dest=$(dirname "$BIN")/pmu-events-6.1
	ARCH=$dest/linux-source-6.1/tools/perf/pmu-events/arch
	if [ ! -d "$ARCH" ] && [ -f "$tar" ]; then
		bash "$T_SRC/tests/pmu_events_extract.sh" "$dest"
	fi
	if [ ! -d "$ARCH" ]; then
		skip "$1: $tar absent (Debian package linux-source-6.1; scripts/deps.sh test installs it)"
		t_done
	fi
}
t_done() {
	echo "$(basename "$0"): $T_PASS passed, $T_FAIL failed, $T_SKIP skipped"
	[ "$T_FAIL" -eq 0 ] || exit 1
	exit 0
}
# lower_sample_rate RATE: sets kernel.perf_event_max_sample_rate (global) to RATE samples/s for
# the rest of the test and restores the value found on exit. RUN_SERIAL keeps one ctest run's
# tests apart; the lock keeps two suites (other build trees, sanitizer runs) apart, so one
# never restores the other's lowered value. restore_sample_rate puts it back early and lets the
# next suite go. Returns 1 when the sysctl cannot be written.
T_RATE_FILE=/proc/sys/kernel/perf_event_max_sample_rate
lower_sample_rate() {
	exec 9>/tmp/pmutop-tests-sample-rate.lock || return 1
	flock -w 300 9 || { echo "lower_sample_rate: another suite held the lock for 300 s"; return 1; }
	T_RATE_OLD=$(cat "$T_RATE_FILE") || return 1
	# cleanups run in order: the rate is restored before the lock goes (with the fd, at exit)
	T_CLEANUPS+=("restore_sample_rate")
	trap 'exit 143' TERM INT HUP # the EXIT trap restores the rate on a signal (ctest's timeout)
	echo "$1" >"$T_RATE_FILE"
}
restore_sample_rate() {
	[ -n "${T_RATE_OLD:-}" ] && echo "$T_RATE_OLD" >"$T_RATE_FILE"
	T_RATE_OLD=
	flock -u 9 2>/dev/null || true
}
# throttle_setup WHY: the start of the tests that make the kernel throttle sampling for real
# (kernel.perf_event_max_sample_rate lowered to 500/s for the test). Without jq, root or per-CPU
# software counters the test is skipped, saying WHY (what covers it then). Sets DEF (cpu-clock
# c, task-clock t, clk = c per interval), NCPU and RATE.
throttle_setup() {
	command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
	RATE=$T_RATE_FILE
	if [ "$(id -u)" != 0 ] || ! [ -w "$RATE" ]; then
		echo "SKIP: lowering $RATE needs root ($1)"
		exit 77
	fi
	DEF="define eq c=perf::CPU-CLOCK,t=perf::TASK-CLOCK clk=c/interval_ns"
	timeout 10 "$BIN" --no-rc -b -n 1 -i 100 -m sw -c "$DEF" -f json >"$T_TMP/probe.json" \
		2>"$T_TMP/probe.err" </dev/null
	if ! jq -e '.cpus[0].events.c.state == "ok"' "$T_TMP/probe.json" >/dev/null 2>&1; then
		echo "SKIP: per-CPU software counters do not open here: $(head -c 200 "$T_TMP/probe.err")"
		exit 77
	fi
	NCPU=$(jq '.cpus | length' "$T_TMP/probe.json")
	lower_sample_rate 500 || { echo "SKIP: $RATE cannot be written"; exit 77; }
}
# busy_cpus SECONDS N: N busy loops (one per CPU, their PIDs in BUSY) for SECONDS at most, killed
# at the latest on exit. A busy CPU keeps its scheduler tick, so the kernel ends a throttling
# episode within a tick (on an idle NOHZ CPU an episode lasts up to hundreds of ms).
busy_cpus() {
	BUSY=()
	for _ in $(seq "$2"); do
		timeout "$1" sh -c 'while :; do :; done' &
		BUSY+=($!)
	done
	T_CLEANUPS+=("kill ${BUSY[*]} 2>/dev/null")
}

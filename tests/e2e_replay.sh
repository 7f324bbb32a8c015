#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_replay.sh: pmutop -b -R on perf stat CSV/JSON (metrics, warnings with line numbers), a
# two-mode recording, modes the recording cannot serve, and truncated/corrupt/hostile files.
set -u
BIN=${PMUTOP_BIN:?PMUTOP_BIN not set}
FX=${PMUTOP_SRC:-..}/tests/fixtures
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }

# 1. perf stat imports: the numbers perf printed, as metrics of the cpi mode
for f in stat.csv stat.json; do
	timeout 20 "$BIN" -b -m cpi -f json -R "$FX/perfstat/$f" >"$T/out.json" 2>"$T/err" || no "$f: exit $?: $(cat "$T/err")"
	[ "$(wc -l <"$T/out.json")" -eq 3 ] || no "$f: $(wc -l <"$T/out.json") intervals, want 3"
	head -1 "$T/out.json" | grep -q '"cpu":0,"events":{"cycles":{"value":2000000,"running":1.0,"state":"ok"},"instructions":{"value":1000000,"running":1.0,"state":"ok"}},"metrics":{"cpi":2.0,"ipc":0.5' ||
		no "$f: first interval of CPU 0: $(head -c 400 "$T/out.json")"
	head -1 "$T/out.json" | grep -q '"instructions":{"value":null,"running":0.0,"state":"not_counted"}' || no "$f: <not counted> lost"
	sed -n 2p "$T/out.json" | grep -q '"cpi":3.11111' || no "$f: second interval of CPU 1"
	grep -q '"replay":"' "$T/out.json" || no "$f: no replay member"
	grep -q "skipped" "$T/err" && no "$f: a line skipped: $(cat "$T/err")" # garbage is an error now
done
# the text output says REPLAY; the default mode is the recorded event list
timeout 20 "$BIN" -b -R "$FX/perfstat/stat.csv" >"$T/out.txt" 2>/dev/null || no "stat.csv text: exit $?"
grep -q "mode perf-stat  backend replay  REPLAY" "$T/out.txt" || no "text header: $(head -1 "$T/out.txt")"
grep -q "n/s" "$T/out.txt" || no "<not supported> is not n/s"

# 2. a recording with two modes and a mark
timeout 20 "$BIN" -b -f json -R "$FX/replay/two-modes.jsonl" >"$T/two.json" 2>"$T/two.err" || no "two-modes: exit $?"
[ "$(grep -c '"mode":"cpi"' "$T/two.json")" -eq 4 ] || no "two-modes: cpi ticks"
[ "$(grep -c '"mode":"sw"' "$T/two.json")" -eq 2 ] || no "two-modes: sw ticks"
grep -q "mark at 2.5 s: build started" "$T/two.err" || no "two-modes: mark not shown"
grep -q "switched to mode sw" "$T/two.err" || no "two-modes: mode switch not shown"
# -n limits the ticks
[ "$(timeout 20 "$BIN" -b -n 2 -f json -R "$FX/replay/two-modes.jsonl" 2>/dev/null | wc -l)" -eq 2 ] || no "-n 2"

# 3. a mode whose events were not recorded
timeout 20 "$BIN" -b -m dcache -R "$FX/replay/two-modes.jsonl" >/dev/null 2>"$T/err"
rc=$?
[ $rc -ne 0 ] || no "mode dcache on a cpi recording: exit 0"
grep -q "mode dcache needs events daccess, dmiss that the recording lacks" "$T/err" || no "dcache: $(cat "$T/err")"

# 4. truncated, corrupt, future and hostile files: a clear message, never a crash
check_bad() { # file, wanted exit status, message
	timeout 20 "$BIN" -b -R "$1" >"$T/bad.out" 2>"$T/bad.err"
	local rc=$?
	[ $rc -eq "$2" ] || no "$1: exit $rc, want $2 ($(cat "$T/bad.err"))"
	grep -q -- "$3" "$T/bad.err" || no "$1: message: $(cat "$T/bad.err")"
	if LC_ALL=C grep -q $'\x1b' "$T/bad.out" "$T/bad.err"; then no "$1: an escape character reached the output"; fi
}
check_bad "$FX/rec/truncated.jsonl" 0 "truncated.jsonl:4: last line is incomplete"
check_bad "$FX/rec/corrupt.jsonl" 0 "corrupt.jsonl:4: corrupt line .* skipped"
check_bad "$FX/rec/future.jsonl" 2 "format version 3 is newer"
check_bad "$FX/replay/wrongtype.jsonl" 2 'wrongtype.jsonl:3: tick: CPU 0: "c" must be a list'
check_bad "$FX/replay/negative.jsonl" 2 "negative.jsonl:3: .*negative"
check_bad "$FX/replay/toobig.jsonl" 2 "does not fit in 64 bits"
check_bad "$FX/replay/badcpu.jsonl" 2 "CPU 7"
check_bad "$FX/replay/notjson.txt" 2 "not a pmutop recording"
check_bad "$T/missing.jsonl" 2 "cannot open"
check_bad "$FX/rec/hostile.jsonl" 0 "no interval to show"
check_bad "$FX/replay/hostile2.jsonl" 0 'x1b\[?1049h screen switch'
grep -q 'evil\\x1b\[2J' "$T/bad.out" || no "hostile mode name not shown escaped: $(head -2 "$T/bad.out")"
grep -q ' 615' "$T/bad.out" || no "huge counters: delta not 615"
: >"$T/empty.jsonl"
check_bad "$T/empty.jsonl" 2 "empty file"
head -c 100000 /dev/urandom >"$T/random.bin"
check_bad "$T/random.bin" 2 "random.bin:"

# 5. options
timeout 5 "$BIN" -b -R x.jsonl --remote h >/dev/null 2>&1 && no "-R with --remote accepted"
timeout 5 "$BIN" -b -R "$FX/replay/two-modes.jsonl" --speed 40 >/dev/null 2>&1 && no "--speed 40 accepted"

[ $fail -eq 0 ] && echo "e2e_replay: ok"
exit $fail

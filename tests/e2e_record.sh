#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_record.sh: -r on the sim backend replays (-b -R) to the same JSON; kill -9 mid-recording
# still replays; a full disk or an unwritable file is reported and monitoring goes on; rotation.
set -u
BIN=${PMUTOP_BIN:?PMUTOP_BIN not set}
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to compare JSON"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }

# Compares two JSON Lines outputs, ignoring what must differ between a live run and its replay.
same_json() {
	python3 - "$1" "$2" <<'PY'
import json, sys
def load(p):
    out = []
    for line in open(p):
        o = json.loads(line)
        o.pop("backend", None)   # "sim" vs "replay"
        o.pop("self", None)      # pmutop's own cadence and CPU use: a property of each run
        o.pop("replay", None)    # the replayed file
        o.pop("machine", None)   # the recorded machine a replay names
        out.append(o)
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
# the wall-clock time: a recording keeps its start to the second
for x, y in zip(a, b):
    tx, ty = x.pop("timestamp", None), y.pop("timestamp", None)
    if tx is None or ty is None or abs(tx - ty) >= 1.0:
        print("timestamps differ: live %s, replay %s" % (tx, ty))
        sys.exit(1)
if not a or a != b:
    print("live %d records, replay %d" % (len(a), len(b)))
    for x, y in zip(a, b):
        if x != y:
            print("first difference:\n  live   %s\n  replay %s" % (x, y)); break
    sys.exit(1)
PY
}

# 1. round trips: several sim set-ups, each replayed to identical JSON
cases=(
	"-m cpi --sim-cpus 4"
	"-m cpi --sim-cpus 3 --sim-mux 0.5"
	"-m sw --sim-cpus 2 --sim-offline 1:2-4"
	"-m cpi --sim-cpus 2 --sim-fail-event 1"
	"-m dcache --sim-cpus 2 --sim-family xscale1"
)
for c in "${cases[@]}"; do
	# shellcheck disable=SC2086
	timeout 20 "$BIN" -b -n 6 -i 10 --backend sim --seed 7 $c -f json -r "$T/rt.jsonl" >"$T/live.json" 2>"$T/live.err" ||
		{ no "live run ($c): $(cat "$T/live.err")"; continue; }
	timeout 20 "$BIN" -b -R "$T/rt.jsonl" -f json >"$T/replay.json" 2>"$T/replay.err" ||
		{ no "replay ($c): $(cat "$T/replay.err")"; continue; }
	same_json "$T/live.json" "$T/replay.json" || no "round trip differs ($c)"
	grep -q '"replay":' "$T/replay.json" || no "replay output lacks the replay member ($c)"
done
# the text output says REPLAY for a non-simulated source is covered in e2e_replay.sh

# 2. kill -9 while recording: everything up to the last complete tick replays
"$BIN" -b -i 10 --backend sim --sim-cpus 2 -m cpi -r "$T/killed.jsonl" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do
	n=$(grep -c '"tick"' "$T/killed.jsonl" 2>/dev/null)
	[ "${n:-0}" -ge 5 ] && break
	sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null
ticks=$(grep -c '"tick"' "$T/killed.jsonl")
[ "$ticks" -ge 5 ] || no "only $ticks ticks recorded before kill -9"
timeout 20 "$BIN" -b -R "$T/killed.jsonl" -f json >"$T/k.json" 2>"$T/k.err" || no "replay after kill -9: $(cat "$T/k.err")"
[ "$(wc -l <"$T/k.json")" -eq $((ticks - 1)) ] || no "replay after kill -9: $(wc -l <"$T/k.json") records for $ticks ticks"
# a torn last line (as a kill during a write would leave) is ignored with a warning
head -c -25 "$T/killed.jsonl" >"$T/torn.jsonl"
timeout 20 "$BIN" -b -R "$T/torn.jsonl" -f json >"$T/t.json" 2>"$T/t.err" || no "torn file: $(cat "$T/t.err")"
grep -q "incomplete" "$T/t.err" || no "torn last line: no warning"
[ "$(wc -l <"$T/t.json")" -eq $((ticks - 2)) ] || no "torn file: $(wc -l <"$T/t.json") records"

# 3. a disk that fills mid-run (a file size limit, SIGXFSZ ignored): reported with the path and
# errno, monitoring goes on, exit 1 at the end (the recording never recovered)
python3 - "$BIN" "$T/fsize.jsonl" >"$T/fsize.json" 2>"$T/fsize.err" <<'EOF'
import resource, signal, subprocess, sys
def lim():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (6000, 6000))
# stdout through a pipe: the limit is for the recording
p = subprocess.run([sys.argv[1], "-b", "-n", "40", "-i", "10", "--backend", "sim", "-f", "json",
                    "-r", sys.argv[2]], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                   timeout=60, preexec_fn=lim)
sys.stdout.buffer.write(p.stdout)
sys.exit(p.returncode)
EOF
rc=$?
[ $rc -eq 1 ] || no "disk full mid-run: exit $rc, expected 1"
grep -q "recording .*fsize.jsonl stopped: File too large" "$T/fsize.err" ||
	no "disk full mid-run not reported with the path: $(cat "$T/fsize.err")"
grep -q "exit 1: an output was not written" "$T/fsize.err" || no "disk full: no final word"
[ "$(wc -l <"$T/fsize.json")" -eq 40 ] || no "disk full stopped monitoring"
# /dev/full: a device, refused without --force; with it, the header fails: exit 2 before the run
if [ -w /dev/full ]; then
	timeout 20 "$BIN" -b -n 1 -i 10 --backend sim -r /dev/full >/dev/null 2>"$T/full.err"
	rc=$?
	[ $rc -eq 2 ] || no "-r /dev/full: exit $rc, expected 2"
	grep -q "/dev/full: it is a character device" "$T/full.err" || no "-r device: $(cat "$T/full.err")"
	timeout 20 "$BIN" -b -n 1 -i 10 --backend sim -r /dev/full --force >/dev/null 2>"$T/full.err"
	rc=$?
	[ $rc -eq 2 ] || no "-r /dev/full --force: exit $rc, expected 2"
	grep -q "recording /dev/full stopped: No space left" "$T/full.err" || no "full disk: $(cat "$T/full.err")"
fi
# an unwritable file: a clear message with the path and errno, exit 2 before the run (as -o)
timeout 20 "$BIN" -b -n 2 -i 10 --backend sim -f json -r "$T/no/such/dir/x.jsonl" >"$T/unw.json" 2>"$T/unw.err"
rc=$?
[ $rc -eq 2 ] || no "unwritable file: exit $rc, expected 2"
grep -q "cannot create recording .*/no/such/dir/x.jsonl: No such file or directory" "$T/unw.err" ||
	no "unwritable file message: $(cat "$T/unw.err")"
[ ! -s "$T/unw.json" ] || no "unwritable file: monitoring ran anyway"

# 4. size limit with rotation: FILE, FILE.1, FILE.2, each replayable
timeout 20 "$BIN" -b -n 120 -i 10 --backend sim --sim-cpus 4 -r "$T/rot.jsonl" --record-max 8k --record-keep 2 \
	>/dev/null 2>"$T/rot.err" || no "rotation run: $(cat "$T/rot.err")"
for f in "$T/rot.jsonl" "$T/rot.jsonl.1" "$T/rot.jsonl.2"; do
	[ -f "$f" ] || { no "missing $f"; continue; }
	[ "$(stat -c %s "$f")" -le 8192 ] || no "$f is larger than the limit"
	timeout 20 "$BIN" -b -R "$f" -f json >/dev/null 2>"$T/r.err" || no "replay of $f: $(cat "$T/r.err")"
done
[ ! -e "$T/rot.jsonl.3" ] || no "more rotated files than --record-keep"
timeout 5 "$BIN" -b --record-max 12 -r x --backend sim -n 1 >/dev/null 2>&1 && no "--record-max 12 accepted"

[ $fail -eq 0 ] && echo "e2e_record: ok"
exit $fail

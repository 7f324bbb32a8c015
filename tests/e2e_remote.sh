#!/bin/bash
# e2e_remote.sh: --remote through a local stand-in transport (the local binary on the sim
# backend): samples arrive, a killed agent is reported and reconnected, nothing is left
# running; the agent's control lines; the agent ends when its stdout closes; the screen.
set -u
BIN=${PMUTOP_BIN:?PMUTOP_BIN not set}
SRC=${PMUTOP_SRC:-..}
TR="$SRC/tests/fixtures/replay/fake-transport.sh"
T=$(mktemp -d)
export PMUTOP_BIN=$BIN FAKE_PIDS=$T/pids
trap 'rm -rf "$T"; [ -n "${TS:-}" ] && tmux -L "$TS" kill-server 2>/dev/null' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
# all_gone PIDFILE: waits (up to 10 s, however loaded the machine) until no pid in the file runs.
all_gone() {
	local p i
	for ((i = 0; i < 100; i++)); do
		while read -r p; do kill -0 "$p" 2>/dev/null && break; p=; done <"$1"
		[ -z "$p" ] && return 0
		sleep 0.1
	done
	return 1
}

# 1. batch client; the first agent is killed after a few samples
timeout 30 "$BIN" -b --remote board --transport "$TR" -i 50 -n 40 -f json >"$T/r.json" 2>"$T/r.err" &
client=$!
for _ in $(seq 100); do
	[ -s "$T/pids" ] && [ "$(wc -l <"$T/r.json")" -ge 5 ] && break
	sleep 0.1
done
kill -9 "$(head -1 "$T/pids")" 2>/dev/null || no "no agent to kill"
wait $client
rc=$?
[ $rc -eq 0 ] || no "client exit $rc: $(cat "$T/r.err")"
[ "$(wc -l <"$T/r.json")" -eq 40 ] || no "$(wc -l <"$T/r.json") samples, want 40"
grep -q "link to board lost" "$T/r.err" || no "dropped link not reported: $(cat "$T/r.err")"
grep -q "reconnected to board" "$T/r.err" || no "no reconnection: $(cat "$T/r.err")"
[ "$(wc -l <"$T/pids")" -ge 2 ] || no "no second agent"
grep -q '"backend":"remote","mode":"cpi","simulated":true' "$T/r.json" || no "samples: $(head -c 300 "$T/r.json")"
# time goes on across the reconnection (history kept)
awk -F'"time":' '{split($2, a, ","); if (a[1] + 0 <= last) bad = 1; last = a[1] + 0} END {exit bad}' "$T/r.json" ||
	no "time went backwards across the reconnection"
all_gone "$T/pids" || no "agent $(cat "$T/pids") still running 10 s after the client ended"

# 2. a transport that cannot reach the board: a clear error, exit 1
timeout 30 "$BIN" -b --remote board --transport "false" -n 1 >/dev/null 2>"$T/e.err"
rc=$?
[ $rc -eq 1 ] || no "failing transport: exit $rc"
grep -q "board: the agent ended before sending data" "$T/e.err" || no "failing transport: $(cat "$T/e.err")"

# 3. the agent's control lines (stdin is a pipe): mode, mark, an error, quit
{ echo "mode sw"; sleep 0.3; echo "mark half way"; echo "bogus"; sleep 0.3; echo quit; } |
	timeout 10 "$BIN" -b -r - --backend sim --sim-cpus 1 -i 50 -m cpi >"$T/agent.jsonl" 2>"$T/agent.err"
rc=$?
[ $rc -eq 0 ] || no "agent exit $rc"
grep -q '"type":"mode","t":[0-9.]*,"name":"sw"' "$T/agent.jsonl" || no "agent: no mode sw line"
grep -q '"type":"mark","t":[0-9.]*,"text":"half way"' "$T/agent.jsonl" || no "agent: no mark"
grep -q 'unknown command "bogus"' "$T/agent.err" || no "agent: bad command not reported"
timeout 10 "$BIN" -b -R "$T/agent.jsonl" -f json >/dev/null 2>&1 || no "agent stream does not replay"
# without a pipe on stdin, -b -r - ignores stdin
timeout 10 "$BIN" -b -r - --backend sim -i 10 -n 3 </dev/null >"$T/a2.jsonl" 2>/dev/null || no "agent with /dev/null stdin"
[ "$(grep -c '"tick"' "$T/a2.jsonl")" -eq 4 ] || no "agent -n 3: ticks"

# 4. the agent ends when its stdout closes, even with its stdin open
{ sleep 20; } | timeout 15 "$BIN" -b -r - --backend sim -i 10 2>/dev/null | head -c 3000 >/dev/null
rc=${PIPESTATUS[1]}
[ "$rc" -ne 124 ] || no "the agent kept running after its reader went away"

# 5. the screen (tmux): remote banner, a mode switch sent to the agent; replay keys
if command -v tmux >/dev/null; then
	TS=pmutop-e2e-$$
	tmux -L "$TS" new-session -d -x 150 -y 30 \
		"PMUTOP_BIN=$BIN FAKE_PIDS=$T/pids2 $BIN --no-rc --remote board --transport $TR -i 100; sleep 5"
	# keys once the screen is up
	for _ in $(seq 100); do
		tmux -L "$TS" capture-pane -p | grep -q "REMOTE board" && break
		sleep 0.1
	done
	tmux -L "$TS" send-keys ":mode sw" Enter
	ok=0
	for _ in $(seq 40); do
		tmux -L "$TS" capture-pane -p >"$T/screen.txt"
		grep -q "REMOTE board" "$T/screen.txt" && grep -q "^mode sw" "$T/screen.txt" && ok=1 && break
		sleep 0.2
	done
	[ $ok -eq 1 ] || no "remote screen: $(cat "$T/screen.txt")"
	tmux -L "$TS" send-keys q
	all_gone "$T/pids2" || no "agent $(cat "$T/pids2") of the screen still running 10 s after q"
	tmux -L "$TS" kill-server 2>/dev/null
	TS=pmutop-e2e-replay-$$
	tmux -L "$TS" new-session -d -x 150 -y 30 "$BIN --no-rc -R $SRC/tests/fixtures/replay/two-modes.jsonl; sleep 5"
	for _ in $(seq 100); do
		tmux -L "$TS" capture-pane -p 2>/dev/null | grep -q "REPLAY" && break
		sleep 0.1
	done
	tmux -L "$TS" send-keys " " "G"
	ok=0
	for _ in $(seq 30); do
		tmux -L "$TS" capture-pane -p >"$T/screen.txt" 2>/dev/null
		grep -q "REPLAY" "$T/screen.txt" && grep -q "tick 8/8" "$T/screen.txt" && ok=1 && break
		sleep 0.2
	done
	[ $ok -eq 1 ] || no "replay screen: $(cat "$T/screen.txt")"
	tmux -L "$TS" kill-server 2>/dev/null
fi

[ $fail -eq 0 ] && echo "e2e_remote: ok"
exit $fail

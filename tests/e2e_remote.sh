#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_remote.sh: --remote through a local stand-in transport (the local binary on the sim
# backend): samples arrive, a killed agent is reported and reconnected, nothing is left
# running; the agent's control lines; the agent ends when its stdout closes; the screen.
set -u
BIN=${PMUTOP_BIN:?PMUTOP_BIN not set}
SRC=${PMUTOP_SRC:-..}
TR="$SRC/tests/fixtures/replay/fake-transport.sh"
T=$(mktemp -d)
export PMUTOP_BIN=$BIN FAKE_PIDS=$T/pids
# tmux_close (tests/tmuxlib.sh): what runs in a server's panes is stopped (SIGTERM, then SIGKILL
# after 3 s) before the server goes: a sanitizer's build that gets SIGHUP from a killed server can
# spin in its leak check for good, a CPU lost to every test after it
source "$SRC/tests/tmuxlib.sh"
trap 'rm -rf "$T"; [ -n "${TS:-}" ] && tmux_close "$TS"' EXIT
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
# the outage shows as a gap in time (the board's clock: the reconnect waits 1 s), not hidden
# behind one interval; seq never repeats
python3 -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
t = [r["time"] for r in recs]
seq = [r["seq"] for r in recs]
sys.exit(0 if max(b - a for a, b in zip(t, t[1:])) >= 0.9 and len(set(seq)) == len(seq) else 1)' "$T/r.json" ||
	no "the reconnection is not a gap in time, or seq repeats: $(grep -o '"time":[0-9.]*' "$T/r.json" | tr '\n' ' ')"
grep -q 'mark at [0-9.]* s: gap: link to board lost at [0-9:]* (after t [0-9.]* s), reconnected' "$T/r.err" ||
	no "the reconnection is not a marked gap: $(cat "$T/r.err")"
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
# (stdin: a FIFO a writer holds open for 20 s, not waited for once the agent is done)
mkfifo "$T/stdin"
sleep 20 >"$T/stdin" &
HOLD=$!
T_CLEANUPS+=("kill $HOLD 2>/dev/null")
timeout 15 "$BIN" -b -r - --backend sim -i 10 <"$T/stdin" 2>/dev/null | head -c 3000 >/dev/null
rc=${PIPESTATUS[0]}
kill $HOLD 2>/dev/null
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
	tmux_close "$TS"
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
	tmux_close "$TS"
fi

# 6. what goes to the board is checked and quoted for its shell (the fake transport runs the
# line with sh -c, as ssh does); what comes back is checked before it is used
BIN=$(realpath "$BIN") TR=$(realpath "$TR")
export PMUTOP_BIN=$BIN FAKE_LOG=$T/log
cd "$T" || exit 1 # where a command that got through would touch "pwned"
for bad in "-m sw\$(touch pwned)" "-m sw;touch${IFS:0:1}pwned" "-C 0;touch${IFS:0:1}pwned" "-C 0-1\$(touch${IFS:0:1}pwned)"; do
	opt=${bad%% *} val=${bad#* }
	rm -f "$T/log".*
	timeout 30 "$BIN" --no-rc -b -n 1 --remote board --transport "$TR" "$opt" "$val" >/dev/null 2>"$T/q.err"
	rc=$?
	[ $rc -eq 2 ] || no "$opt '$val': exit $rc, want 2"
	grep -q "bad \(mode name\|CPU list\) \"" "$T/q.err" || no "$opt '$val': no message: $(cat "$T/q.err")"
	[ ! -e "$T/log.argv" ] || no "$opt '$val': the transport ran"
done
rm -f "$T/log".*
timeout 30 "$BIN" --no-rc -b -n 1 --remote '-oProxyCommand=touch pwned' --transport "$TR" >/dev/null 2>"$T/q.err"
rc=$?
[ $rc -eq 2 ] || no "--remote -oProxyCommand=...: exit $rc, want 2"
grep -q "must not start with '-'" "$T/q.err" || no "--remote -oProxyCommand=...: $(cat "$T/q.err")"
[ ! -e "$T/log.argv" ] || no "--remote -oProxyCommand=...: the transport ran"
timeout 30 "$BIN" --no-rc -b -n 1 --remote 'board;touch pwned' --transport "$TR" >/dev/null 2>&1
[ $? -eq 2 ] || no "--remote with a blank: not refused"
# control lines are checked before they are sent
timeout 30 "$BIN" --no-rc -b -n 2 -i 50 --remote board --transport "$TR" -c "mode 'sw\$(touch pwned)'" >/dev/null 2>"$T/q.err"
grep -q 'bad mode name "sw\$(touch pwned)" for the agent' "$T/q.err" || no ":mode sent unchecked: $(cat "$T/q.err")"
timeout 30 "$BIN" --no-rc -b -n 2 -i 50 --remote board --transport "$TR" -c "cpus '0;touch pwned'" >/dev/null 2>"$T/q.err"
grep -q 'bad CPU list "0;touch pwned" for the agent' "$T/q.err" || no ":cpus sent unchecked: $(cat "$T/q.err")"
# an argument with blanks, quotes and $(...) reaches the agent exactly; "--" comes before the host
odd="$T/a b'c\"d\$(touch pwned)"
rm -f "$T/log".*
timeout 30 "$BIN" --no-rc -b -n 2 -i 50 -m sw -C 0-1 --remote board --transport "$TR" \
	--agent "pmutop --flight-out '${odd//\'/\'\\\'\'}'" -f json >"$T/q.json" 2>"$T/q.err"
rc=$?
[ $rc -eq 0 ] || no "quoted agent argument: exit $rc: $(cat "$T/q.err")"
[ "$(wc -l <"$T/q.json")" -eq 2 ] || no "quoted agent argument: $(wc -l <"$T/q.json") records"
[ "$(sed -n 1,2p "$T/log.argv" | tr '\n' ' ')" = "-- board " ] || no "ssh argv does not start with -- HOST: $(head -3 "$T/log.argv")"
printf '%s\n' --flight-out "$odd" -b -r - --no-rc -i 50 -m sw -C 0-1 >"$T/want.agent"
cmp -s "$T/want.agent" "$T/log.agent" || no "the agent's argv differs: $(diff "$T/want.agent" "$T/log.agent")"
# the default agent: pmutop-agent where the board has it, else pmutop
export FAKE_DIR=$T
for agents in "pmutop pmutop-agent|pmutop-agent" "pmutop|pmutop"; do
	rm -f "$T/log".*
	FAKE_AGENTS=${agents%%|*} timeout 30 "$BIN" --no-rc -b -n 2 -i 50 -m sw --remote board \
		--transport "$TR" -f json >"$T/q.json" 2>"$T/q.err"
	rc=$?
	[ $rc -eq 0 ] || no "default agent (board has ${agents%%|*}): exit $rc: $(cat "$T/q.err")"
	[ "$(cat "$T/log.name" 2>/dev/null)" = "${agents#*|}" ] ||
		no "default agent (board has ${agents%%|*}): started $(cat "$T/log.name" 2>/dev/null), want ${agents#*|}"
done
# an installed pmutop or pmutop-agent here (on the client's PATH) is not the board's
mkdir -p "$T/installed"
printf '#!/bin/sh\necho installed >"$FAKE_LOG.name"\nexit 3\n' >"$T/installed/pmutop-agent"
cp "$T/installed/pmutop-agent" "$T/installed/pmutop"
chmod +x "$T/installed/pmutop-agent" "$T/installed/pmutop"
rm -f "$T/log".*
PATH=$T/installed:$PATH FAKE_AGENTS=pmutop timeout 30 "$BIN" --no-rc -b -n 2 -i 50 -m sw --remote board \
	--transport "$TR" -f json >"$T/q.json" 2>"$T/q.err"
rc=$?
[ $rc -eq 0 ] && [ "$(cat "$T/log.name" 2>/dev/null)" = pmutop ] ||
	no "an installed pmutop-agent was started instead of the board's pmutop: exit $rc, $(cat "$T/log.name" 2>/dev/null)"
FAKE_AGENTS="" timeout 30 "$BIN" --no-rc -b -n 2 -i 50 -m sw --remote board --transport "$TR" \
	-f json >/dev/null 2>"$T/q.err"
[ $? -ne 0 ] || no "a board with no agent: exit 0"
unset FAKE_LOG FAKE_DIR
# a stream with a bad mode name, CPU numbers out of range and escapes: refused or escaped
timeout 10 "$BIN" --no-rc -b -r - --backend sim --sim-cpus 2 -i 50 -n 4 -m sw </dev/null >"$T/good.jsonl" 2>/dev/null
python3 - "$T/good.jsonl" "$T/crafted.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
header = next(o for o in recs if o['type'] == 'header')
mode = next(o for o in recs if o['type'] == 'mode')
ticks = [o for o in recs if o['type'] == 'tick']
def tick_on(cpu):
    t = json.loads(json.dumps(ticks[1]))
    t['cpus'][0]['cpu'] = cpu
    return t
out = [header, dict(mode, name='sw$(touch pwned)'), mode, ticks[0], tick_on(-1), tick_on(99999999999),
       tick_on(7), {'type': 'mark', 't': ticks[1]['t'], 'text': 'm\x1b]0;PWNED\x07\u202e'}] + ticks[1:]
open(sys.argv[2], 'w').write(''.join(json.dumps(o) + '\n' for o in out))
PY
printf '#!/bin/sh\nprintf "agent says \\033]0;PWNED\\007\\342\\200\\256\\n" >&2\ncat "%s"; sleep 10\n' "$T/crafted.jsonl" >"$T/cat-transport.sh"
chmod +x "$T/cat-transport.sh"
timeout 30 "$BIN" --no-rc -b -n 2 -f json --remote board --transport "$T/cat-transport.sh" >"$T/c.json" 2>"$T/c.err"
rc=$?
[ $rc -eq 0 ] || no "crafted stream: exit $rc: $(cat "$T/c.err")"
grep -q 'mode line with a bad mode name "sw$(touch pwned)" skipped' "$T/c.err" || no "bad mode name used: $(cat "$T/c.err")"
grep -q '"mode":"sw"' "$T/c.json" || no "crafted stream: the good mode is not shown"
! grep -q 'touch pwned' "$T/c.json" || no "crafted stream: the bad mode name reached the output"
grep -q '"cpu" = -1 is out of range' "$T/c.err" || no "negative CPU not refused"
grep -q '"cpu" = 99999999999 is out of range' "$T/c.err" || no "huge CPU not refused"
grep -q "CPU 7 is not in the header's CPU list" "$T/c.err" || no "CPU outside the header not refused"
! grep -q '"cpu":\(-1\|7\|99999999999\),' "$T/c.json" || no "a refused CPU reached the output"
grep -qF 'mark at 0.1 s: m\x1b]0;PWNED\x07\u202e' "$T/c.err" || no "mark not escaped: $(grep mark "$T/c.err")"
grep -qF 'board: agent says \x1b]0;PWNED\x07\u202e' "$T/c.err" || no "agent stderr not escaped: $(grep says "$T/c.err")"
! grep -q $'\e' "$T/c.err" || no "a raw escape reached stderr"
[ ! -e "$T/pwned" ] || no "a command ran: $T/pwned exists"

[ $fail -eq 0 ] && echo "e2e_remote: ok"
exit $fail

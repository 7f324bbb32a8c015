# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_hangup.sh: the screen whose terminal goes away without a SIGHUP (the parent ignores it, the
# tmux pane is killed) stops, flushes its recording and flight ring, and exits with status 3.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }

export TERM=xterm-256color
SOCK=pmutop-hangup-$$
TM=(tmux -L "$SOCK" -f /dev/null)
T_CLEANUPS+=("tmux_close '$SOCK'")
# a pmutop still running after its pane was killed would spin: end it with the test
T_CLEANUPS+=("[ -s '$T_TMP/pid' ] && stop_pids \$(cat '$T_TMP/pid')")
mkdir -p "$T_TMP/home"
# pane 0 keeps the server alive once pmutop's pane is gone
"${TM[@]}" new-session -d -x 100 -y 30 -e HOME="$T_TMP/home" -e XDG_STATE_HOME="$T_TMP/home" \
	-e XDG_CONFIG_HOME="$T_TMP/home/.config" "sleep 600" ||
	{ echo "SKIP: tmux cannot start a server here"; exit 77; }

# alive: the pmutop started in the pane is still running
alive() { kill -0 "$(cat "$T_TMP/pid")" 2>/dev/null; }
# gone_within SECONDS: polls until the process is gone (a bound for a loaded machine, not a
# timing assertion: pmutop leaves as soon as poll reports the hangup)
gone_within() {
	local i
	for ((i = 0; i < $1 * 20; i++)); do
		alive || return 0
		sleep 0.05
	done
	return 1
}
# start_pane ARGS: runs pmutop in a new pane under a shell that ignores SIGHUP (as nohup does);
# the inner shell writes its pid and execs pmutop, the outer one writes pmutop's exit status.
# LIMIT=N: under ulimit -n N, without descriptors inherited above stderr.
cat >"$T_TMP/run.sh" <<'EOF'
trap "" HUP
bash -c 'echo $$ >"$T_TMP/pid"
if [ -n "${LIMIT:-}" ]; then
	for fd in {3..19}; do eval "exec $fd>&-"; done
	ulimit -n "$LIMIT"
fi
exec "$BIN" --no-rc "$@"' bash "$@"
echo $? >"$T_TMP/rc"
EOF
start_pane() {
	[ -s "$T_TMP/pid" ] && stop_pids "$(cat "$T_TMP/pid")" # one left spinning
	rm -f "$T_TMP/pid" "$T_TMP/rc"
	"${TM[@]}" split-window -t 0 -d \
		"T_TMP='$T_TMP' BIN='$BIN' LIMIT=${LIMIT:-} bash '$T_TMP/run.sh' $*"
	local i
	for ((i = 0; i < 200; i++)); do
		[ -s "$T_TMP/pid" ] && "${TM[@]}" capture-pane -p -t 1 | grep -qE '^ +all ' && return 0
		sleep 0.05
	done
	echo "--- pane never showed the table:"
	"${TM[@]}" capture-pane -p -t 1 | sed 's/^/| /'
	return 1
}
# recording_complete FILE: every line is a whole JSON object, the last one a tick, and the
# file replays
recording_complete() {
	python3 - "$1" <<'EOF' || return 1
import json, sys
data = open(sys.argv[1], "rb").read()
assert data.endswith(b"\n"), "the last line is cut short"
lines = [json.loads(l) for l in data.decode().splitlines()]
assert lines[0]["type"] == "header", lines[0]
assert lines[-1]["type"] in ("tick", "mark"), lines[-1]
assert sum(1 for l in lines if l["type"] == "tick") >= 2, "fewer than two ticks"
EOF
	"$BIN" -b -R "$1" -f json >"$T_TMP/replay.out" 2>"$T_TMP/replay.err" &&
		[ -s "$T_TMP/replay.out" ]
}

# --- recording: the pane is killed while pmutop records ----------------------------------------
check "recording: pmutop shows its table" start_pane -i 100 -r "$T_TMP/rec.jsonl"
check "recording: SIGHUP is ignored (inherited)" \
	grep -qE '^SigIgn:.*[13579bdf]$' "/proc/$(cat "$T_TMP/pid")/status"
"${TM[@]}" kill-pane -t 1
check "recording: pmutop is gone after its pane was killed" gone_within 5
check "recording: exit status 3 (the terminal went away)" \
	bash -c "for i in \$(seq 100); do [ -s '$T_TMP/rc' ] && break; sleep 0.05; done; \
		[ \"\$(cat '$T_TMP/rc')\" = 3 ]"
check "recording: the file is complete and replays" recording_complete "$T_TMP/rec.jsonl"

# --- flight ring: a freeze collects a flight recording; the pane dies before it is written ------
check "flight: pmutop shows its table" \
	start_pane -i 100 --flight 30 --flight-out "$T_TMP/fl" -r "$T_TMP/rec2.jsonl"
"${TM[@]}" send-keys -t 1 ":freeze" Enter
for ((i = 0; i < 100; i++)); do
	"${TM[@]}" capture-pane -p -t 1 | grep -q 'FROZEN\|frozen\|freeze' && break
	sleep 0.05
done
"${TM[@]}" kill-pane -t 1
check "flight: pmutop is gone after its pane was killed" gone_within 5
check "flight: the pending flight recording was written" recording_complete "$T_TMP/fl-1.jsonl"
check "flight: the recording is complete too" recording_complete "$T_TMP/rec2.jsonl"

# --- a low open-file limit: the screen and its recording still get their descriptors -----------
LIMIT=8 check "ulimit -n 8: the screen shows its table" start_pane -i 100 -r "$T_TMP/rec3.jsonl"
"${TM[@]}" send-keys -t 1 ":messages" Enter
check "ulimit -n 8: the messages name the limit" bash -c "for i in \$(seq 100); do
	${TM[*]} capture-pane -p -t 1 | grep -q 'open-file limit RLIMIT_NOFILE 8 reached' && exit 0
	sleep 0.05; done; exit 1"
"${TM[@]}" kill-pane -t 1
check "ulimit -n 8: pmutop is gone after its pane was killed" gone_within 5
check "ulimit -n 8: the recording is complete" recording_complete "$T_TMP/rec3.jsonl"

t_done

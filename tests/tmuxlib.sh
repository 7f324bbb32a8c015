# SPDX-License-Identifier: GPL-2.0-or-later
# tmuxlib.sh: the real screen for e2e scripts: a shell in a private tmux server and pane helpers.
# Usage (after lib.sh): source "$(dirname "$0")/tmuxlib.sh"; tmux_open W H; start ARGS; keys ...
# tmux_open exits 77 (skip) when tmux is missing or cannot start a server here.

# tmux_open W H: a W x H session on an own socket running bash with the prompt PROMPT$,
# HOME/XDG_* under $T_TMP; the terminal state before pmutop is in $T_TMP/stty.before.
tmux_open() {
	local w=$1 h=$2
	command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }
	export TERM=xterm-256color
	# a socket of its own per open: a server killed by tmux_close may still hold the last one
	T_TMUX_OPENS=$((${T_TMUX_OPENS:-0} + 1))
	SOCK=pmutop-test-$$-$T_TMUX_OPENS
	TM=(tmux -L "$SOCK" -f /dev/null)
	T_CLEANUPS+=("tmux_close '$SOCK'")
	mkdir -p "$T_TMP/home" "$T_TMP/state"
	if ! "${TM[@]}" new-session -d -x "$w" -y "$h" -e HOME="$T_TMP/home" \
		-e XDG_STATE_HOME="$T_TMP/state" -e XDG_CONFIG_HOME="$T_TMP/home/.config" \
		-e TERM=xterm-256color -e NO_COLOR= \
		"bash --norc --noprofile" 2>"$T_TMP/tmux.err"; then
		# only the first open tells whether tmux works here; a later one that fails is a fault
		[ "$T_TMUX_OPENS" = 1 ] || { fail "tmux open #$T_TMUX_OPENS: $(head -c 200 "$T_TMP/tmux.err")"; t_done; }
		echo "SKIP: tmux cannot start a server here: $(head -c 200 "$T_TMP/tmux.err")"
		exit 77
	fi
	"${TM[@]}" set-option -g status off >/dev/null
	"${TM[@]}" resize-window -x "$w" -y "$h" 2>/dev/null
	# the shell's prompt is PROMPT$; each shell command prints a marker when done
	keys "PS1='PROMPT\$ '; stty -g > '$T_TMP/stty.before'; clear" Enter
	wait_for '^PROMPT\$ ?$' || { fail "shell prompt never appeared"; t_done; }
}

# stop_pids PID...: SIGTERM, then SIGKILL for any still there after 3 s (a sanitizer build blocks
# signals while its leak check stops the world, and would spin on after the test).
stop_pids() {
	local p i left
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null
	for ((i = 0; i < 60; i++)); do
		left=0
		for p in "$@"; do kill -0 "$p" 2>/dev/null && left=1; done
		[ $left = 0 ] && return 0
		sleep 0.05
	done
	kill -KILL "$@" 2>/dev/null
	return 0
}
# tmux_close SOCKET: stops what runs in the server's panes (stop_pids), then the server.
tmux_close() {
	local pane_pids p kids=()
	pane_pids=$(tmux -L "$1" list-panes -a -F '#{pane_pid}' 2>/dev/null)
	for p in $pane_pids; do
		# shellcheck disable=SC2207
		kids+=($(pgrep -P "$p"))
	done
	stop_pids "${kids[@]}"
	tmux -L "$1" kill-server 2>/dev/null
	return 0
}
pane() { "${TM[@]}" capture-pane -p -t 0; }
keys() { "${TM[@]}" send-keys -t 0 "$@"; }
# wait_for REGEX [SECONDS]: polls the pane until REGEX matches (grep -E); 1 on timeout.
wait_for() {
	local re=$1 limit=${2:-10} i
	for ((i = 0; i < limit * 20; i++)); do
		pane | grep -qE -- "$re" && return 0
		sleep 0.05
	done
	echo "--- pane after waiting $limit s for /$re/:"
	pane | sed 's/^/| /'
	return 1
}
# wait_gone REGEX: polls until REGEX no longer matches.
wait_gone() {
	local re=$1 limit=${2:-8} i
	for ((i = 0; i < limit * 20; i++)); do
		pane | grep -qE -- "$re" || return 0
		sleep 0.05
	done
	return 1
}
line() { pane | sed -n "${1}p"; }
pane_has() { pane | grep -qE -- "$1"; }
pane_lacks() { ! pane | grep -qE -- "$1"; }
start() { # ARGS: runs pmutop in the pane (with $START_ENV, VAR=VALUE words, before it) and
	# waits for its table
	keys "clear; ${START_ENV:+$START_ENV }'$BIN' $*; echo \"EXIT=\$?\"" Enter
	wait_for '^ +all ' 10
}
quit_check() { # DESC: pmutop ended with status 0 and the shell is back
	wait_for '^EXIT=[0-9]+' 20 # returns as soon as it is there; a loaded machine may need longer
	check "$1: exit 0 ($(pane | grep -oE 'EXIT=[0-9]+'))" pane_has '^EXIT=0$'
	check "$1: the prompt returns" wait_for '^PROMPT\$ ?$' 5
}
# header_cut FULL W: polls until line 1 (a header without banner) is FULL when FULL fits in W
# columns, else a cut of FULL: "pmutop ...", W-2 to W columns, each "…" standing for text of FULL
# (or FULL without its last part). FULL is line 1 at a wider size.
header_cut() {
	local full=$1 w=$2 i l
	for ((i = 0; i < 160; i++)); do
		l=$(line 1)
		python3 -c 'import re, sys
l, full, w = sys.argv[1], sys.argv[2], int(sys.argv[3])
if len(full) <= w:
    sys.exit(l != full)
cut = "".join(".+" if ch == "\u2026" else re.escape(ch) for ch in l)
# a part cut with "…", or the last part (the PMU line) left out whole, never a bare clip
whole = full.startswith(l) and full[len(l):].startswith("  ")
sys.exit(not (l.startswith("pmutop ") and w - 2 <= len(l) <= w and
              (("\u2026" in l and re.match(cut, full)) or whole)))' \
			"$l" "$full" "$w" && return 0
		sleep 0.05
	done
	echo "--- header at $w columns: '$l' (wider: '$full')"
	return 1
}

# --- a replay stepped by hand, read against batch CSV of the same recording ---------------------
# replay_fixture: a sim recording (4 CPUs, cpi, 13 ticks of 100 ms) in $REC and the independent
# reading of it, its batch CSV (time_s,...,cpu,kind,name,value), in $T_TMP/rec.csv.
replay_fixture() {
	REC=$T_TMP/rec.jsonl
	"$BIN" --no-rc -b --backend sim --sim-cpus 4 -m cpi -i 100 -n 13 --sim-unpaced -r "$REC" \
		>/dev/null 2>"$T_TMP/rec.err" || { fail "recording: $(cat "$T_TMP/rec.err")"; t_done; }
	"$BIN" --no-rc -R "$REC" -b -f csv >"$T_TMP/rec.csv" 2>/dev/null
	check "batch CSV of the recording has cpi rows" grep -q ',metric,cpi,' "$T_TMP/rec.csv"
}
panee() { "${TM[@]}" capture-pane -p -e -t 0; } # the pane with its colours and attributes
# the replay's time on the screen ("t 0.6 of 1.2 s")
shown_t() { pane | sed -n 's/.* t \([0-9.]*\) of .*/\1/p' | head -1; }
# csv_match ROWS NAME...: every CPU row's values of the metrics NAME... (the table's columns from
# the second on) are the CSV's at the shown time, rounded to the screen's 3 decimals (either
# rounding of a value on the half), and ROWS rows were compared
csv_match() {
	local t rows=$1
	shift
	t=$(shown_t)
	[ -n "$t" ] || { echo "no replay time on the screen"; return 1; }
	pane | awk -v t="$t" -v rows="$rows" -v names="$*" -v csv="$T_TMP/rec.csv" -F, '
		BEGIN {
			k = split(names, name, " ")
			for (i = 1; i <= k; i++) want_name[name[i]] = 1
			while ((getline l < csv) > 0) {
				split(l, f, ",")
				if (f[4] == "metric" && (f[5] in want_name) && sprintf("%.1f", f[1]) == t)
					v[f[3], f[5]] = f[6]
			}
		}
		/^ +[0-9]+ / {
			split($0, g, " ")
			for (i = 1; i <= k; i++) {
				want = v[g[1], name[i]]
				if (want == "") { print "no CSV value for CPU " g[1] " " name[i] " at " t; bad = 1; continue }
				got = g[1 + i]
				if (got + 0 < want - 0.0005001 || got + 0 > want + 0.0005001) {
					print "CPU " g[1] " " name[i] " at t " t ": screen " got ", CSV " want; bad = 1
				}
				n++
			}
		}
		END { if (n != rows * k) { print "compared " n " values, not " rows * k; bad = 1 } exit bad }'
}

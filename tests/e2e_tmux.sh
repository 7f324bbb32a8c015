# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_tmux.sh: the real screen in tmux: modes, bad commands, history across runs, completion,
# resize, pause, SIMULATED banner, themes, key bindings and a clean terminal after quitting.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"
tmux_open 100 30

# --- live sw mode: switching modes, a bad command, pause ---------------------------------------
# a mode this machine cannot count (none where every mode's events open)
NA_MODE=$("$BIN" --list-modes 2>/dev/null | awk '$2 == "n/a" { print $1; exit }')
check "live: the table appears" start -m sw -i 200
check "live: header says mode sw" wait_for '^mode sw '
keys ":mode sw" Enter
check ":mode sw: still sw, no error" wait_for '^mode sw '
if [ -n "$NA_MODE" ]; then
	keys ":mode $NA_MODE" Enter
	check ":mode $NA_MODE: 'not available' message" wait_for "mode $NA_MODE is not available"
	check ":mode $NA_MODE: sw keeps running" pane_has '^mode sw '
else
	skip ":mode of a mode not available here: every mode is available on this machine"
fi
n1=$(pane | sed -n 's/.*| #\([0-9]*\).*/\1/p' | head -1)
check "after :mode $NA_MODE: ticks still advance (from #$n1)" wait_for "\| #($((n1 + 1))|$((n1 + 2))|$((n1 + 3))|[0-9]{$((${#n1} + 1))})" 5
keys ":nosuchcmd" Enter
check "bad command: message line says so" wait_for "unknown command 'nosuchcmd'"
check "bad command: mode unchanged" pane_has '^mode sw '
keys ":mo" Tab
keys "X"
check "Tab: :mo<Tab> completes to ':mode ' (then X typed)" wait_for '^:mode X$' 3
keys C-u Escape
keys " "
check "space pauses: header says PAUSED" wait_for '^mode .*PAUSED'
p1=$(line 2)
sleep 0.6
check "paused: the tick count stays" [ "$(line 2)" = "$p1" ]
keys " "
check "space again resumes" wait_gone 'PAUSED'

# --- theme, bind, quit -----------------------------------------------------------------------
keys ":theme mono" Enter
sleep 0.4
check ":theme mono: no error" pane_lacks '[Uu]nknown|[Ee]rror|not available|cannot'
keys ":bind x quit" Enter
sleep 0.3
keys x
quit_check "x bound to quit"
check "terminal state restored (stty -g)" bash -c "
	keys() { ${TM[*]} send-keys -t 0 \"\$@\"; }
	keys \"stty -g > '$T_TMP/stty.after'; echo STTY-DONE\" Enter
	for i in \$(seq 100); do [ -s '$T_TMP/stty.after' ] && break; sleep 0.05; done
	cmp -s '$T_TMP/stty.before' '$T_TMP/stty.after'"
keys "clear; echo hello-after" Enter
check "after exit, output shows normally" wait_for '^hello-after$'

# --- history survives a restart (XDG_STATE_HOME) --------------------------------------------
check "restart: table" start -i 200
keys ":"
keys Up
check "history: Up recalls the last command of the previous run (:bind x quit)" wait_for '^:bind x quit$' 3
keys Up
check "history: Up again goes further back" wait_for '^:theme mono$' 3
keys C-u Escape
check "history file under XDG_STATE_HOME" bash -c "ls '$T_TMP/state'/pmutop/history >/dev/null 2>&1"
keys q
quit_check "q quits"

# --- sim backend: SIMULATED -----------------------------------------------------------------
check "sim: table" start --backend sim --sim-cpus 4 -m cpi -i 200
check "sim: header says SIMULATED" wait_for 'SIMULATED'
keys q
quit_check "sim q quits"

# --- -n ends the screen by itself ------------------------------------------------------------
keys "clear; '$BIN' -n 2 -i 100; echo \"EXIT=\$?\"" Enter
quit_check "-n 2 ends the screen"

# --- resize: 40x10 works, smaller says too small, back to normal, q still quits ------------
keys "clear; (echo \$BASHPID >'$T_TMP/pid'; exec '$BIN' -i 200); echo \"EXIT=\$?\"" Enter
check "resize run: table" wait_for '^ +all ' 10
full=$(line 1)
"${TM[@]}" resize-window -x 40 -y 10
check "40x10: header cut at 40 columns" header_cut "$full" 40
check "40x10: table redrawn at 40 columns" wait_for '^ +all '
check "40x10: not too small" pane_lacks 'too small'
"${TM[@]}" resize-window -x 30 -y 8
check "30x8: says too small" wait_for 'terminal too small'
check "30x8: says the size needed" wait_for 'need 40x10, have 30x8'
"${TM[@]}" resize-window -x 100 -y 30
check "100x30 again: full width hints" wait_for 'o offcore  \? help'
n1=$(pane | sed -n 's/.*| #\([0-9]*\).*/\1/p' | head -1)
check "100x30 again: ticks advance (from #$n1)" wait_gone "\| #$n1( |$)" 5
keys q
check "q after a resize quits" wait_for '^EXIT=0$' 20
pid=$(cat "$T_TMP/pid" 2>/dev/null)
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
	kill -TERM "$pid" 2>/dev/null
	sleep 0.5
	kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
fi

t_done


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

# --- stacked shares and the drill-down key (tests/fixtures/stack: stackfx drills to stackfx2) --
# seed 4: CPU 1 is the busier of the two (utilisation 63..73 % against 34..43 %), so sorted by
# util descending it is the first row; stackfx2 has other metrics, so its table is in CPU order
# and the kept selection shows CPU 1 first (not CPU 0). The run records to $T_TMP/drill.jsonl.
STACK="--backend sim --seed 4 --sim-cpus 2 -i 200 --mode-file '$T_SRC/tests/fixtures/stack/stack.mode' --mode-file '$T_SRC/tests/fixtures/stack/stack2.mode'"
first_row() { pane | sed -n '/^CPU /{n;p;q}'; }
selected_row_is() { # CPU: polls until CPU's row is the selected one (drawn reversed: <R>)
	local i
	for ((i = 0; i < 80; i++)); do
		"${TM[@]}" capture-pane -e -p -t 0 | sed -E $'s/\e\\[7m/<R>/g; s/\e\\[[0-9;]*m//g' |
			grep -qE '^<R> +'"$1"' ' && return 0
		sleep 0.05
	done
	echo "--- selected row: $("${TM[@]}" capture-pane -e -p -t 0 | sed -E $'s/\e\\[7m/<R>/g; s/\e\\[[0-9;]*m//g' | grep -m1 '<R>')"
	return 1
}
first_row_is() { # CPU: polls until the table's first row is CPU's
	local i
	for ((i = 0; i < 80; i++)); do
		first_row | grep -qE "^ +$1 " && return 0
		sleep 0.05
	done
	echo "--- first row: '$(first_row)'"
	return 1
}
check "stack: table" start $STACK -m stackfx -r "'$T_TMP/drill.jsonl'"
check "stack: header says mode stackfx" wait_for '^mode stackfx '
check "stack: bar legend in the column header" wait_for '^CPU .*(█|#)fe (▓|=)be (▒|\+)ret'
check "stack: the largest share is marked" wait_for '^ +(0|1) .* > +[0-9]'
check "stack: the hint names the drill-down" wait_for '^enter drill to stackfx2 '
keys ":sort util-" Enter
check "stack: sorted by util, CPU 1 first" first_row_is 1
keys Enter
check "Enter: mode stackfx2" wait_for '^mode stackfx2 '
check "Enter: the message names the CPU kept" wait_for 'drill-down: mode stackfx2 for CPU 1'
check "Enter: stackfx2's table (fe, be only)" wait_for '^CPU +fe % +be % +(█|#)fe (▓|=)be$'
check "Enter: CPU 1 still selected" selected_row_is 1
check "Enter: the hint says how back" wait_for '^bksp back to stackfx '
keys Enter
check "Enter in a mode without drill =: says so" wait_for 'mode stackfx2 has no drill-down mode'
check "Enter without drill =: mode unchanged" pane_has '^mode stackfx2 '
keys BSpace
check "Backspace: back to mode stackfx" wait_for '^mode stackfx '
check "Backspace: the message" wait_for 'back to mode stackfx from stackfx2'
check "Backspace: a table of stackfx" wait_for '^CPU +fe % +be % +ret % +util %'
check "Backspace: CPU 1 still selected" selected_row_is 1
keys q
quit_check "stack q quits"
# the same switches typed as :mode, recorded too: both recordings have the same mode records
check "stack (:mode): table" start $STACK -m stackfx -r "'$T_TMP/typed.jsonl'"
keys ":mode stackfx2" Enter
check ":mode stackfx2" wait_for '^mode stackfx2 '
check ":mode stackfx2: a tick of it" wait_for '^CPU +fe % +be % +(█|#)fe (▓|=)be$'
keys ":mode stackfx" Enter
check ":mode stackfx" wait_for '^mode stackfx '
check ":mode stackfx: a tick of it" wait_for '^CPU +fe % +be % +ret %'
keys q
quit_check "stack (:mode) q quits"
keys clear Enter # the next run waits for its own EXIT= line, not this one
wait_gone '^EXIT='
modes_of() { grep '"type":"mode"' "$1" | sed 's/"t":[0-9.e+-]*,//'; }
check "drill recorded: modes stackfx, stackfx2, stackfx" \
	[ "$(modes_of "$T_TMP/drill.jsonl" | grep -o '"name":"stackfx2\?"' | head -3 | tr '\n' ' ')" = '"name":"stackfx" "name":"stackfx2" "name":"stackfx" ' ]
check "drill recorded like :mode (same mode records)" \
	[ "$(modes_of "$T_TMP/drill.jsonl")" = "$(modes_of "$T_TMP/typed.jsonl")" ]
eval "'$BIN' --no-rc -R '$T_TMP/drill.jsonl' --mode-file '$T_SRC/tests/fixtures/stack/stack.mode' --mode-file '$T_SRC/tests/fixtures/stack/stack2.mode' -b -f text" >"$T_TMP/drill.txt" 2>&1
check "drill replayed: its ticks in stackfx2, then stackfx again" \
	[ "$(grep -o 'mode stackfx2\? ' "$T_TMP/drill.txt" | uniq | tr '\n' '|')" = 'mode stackfx |mode stackfx2 |mode stackfx |' ]

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


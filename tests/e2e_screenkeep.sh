# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_screenkeep.sh: on a real terminal (tmux), the frames sent piecemeal (the rows the canvas
# kept, the changed cells only) give the pane a full repaint (Ctrl-L: every row drawn anew, every
# cell sent) gives, after each of: a
# tick, theme changes, view switches and back, a sort change, :set commands, a sparkline, a
# resize, a mode switch; and the values shown after each are batch CSV's of the same recording.
# (The kept canvas against a new one: test_views; the bytes with kept terminfo strings against
# those made each time: test_termout.)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"

replay_fixture
# every CPU row's cpi is the CSV's at the shown time; @1: how many rows
cpi_match() { csv_match "$1" cpi; }
# the pane as the frames left it equals the pane Ctrl-L repaints whole (text, colours,
# attributes)
same_as_repaint() { # DESC
	sleep 0.4
	panee >"$T_TMP/before"
	keys C-l
	sleep 0.4
	panee >"$T_TMP/after"
	check "$1: the pane sent piecemeal is the pane repainted whole" \
		cmp -s "$T_TMP/before" "$T_TMP/after"
	cmp -s "$T_TMP/before" "$T_TMP/after" ||
		diff "$T_TMP/before" "$T_TMP/after" | cat -v | head -10
}

tmux_open 200 60
keys "clear; '$BIN' --no-rc -R '$REC'; echo \"EXIT=\$?\"" Enter
check "replay: the table appears" wait_for '^ +all ' 10
keys ":jump start" Enter
keys ":tick 1" Enter
check ":tick 1: paused" wait_for 'PAUSED' 5
same_as_repaint "first tick"
check "first tick: cpi is the CSV's" cpi_match 4

t0=$(shown_t)
keys ":tick 3" Enter
check ":tick 3: the time moves on" wait_for " t $(awk -v t="$t0" 'BEGIN { printf "%.1f", t + 0.3 }') of" 5
same_as_repaint "three ticks later"
check "three ticks later: cpi is the CSV's" cpi_match 4

for theme in light high-contrast mono default; do
	keys ":theme $theme" Enter
	sleep 0.3
	same_as_repaint "theme $theme"
done
check "after the theme changes: cpi is the CSV's" cpi_match 4

keys ":view offcore" Enter
sleep 0.3
same_as_repaint "view offcore"
keys ":view help" Enter
check "view help: the help text is shown" wait_for 'help' 5
same_as_repaint "view help"
keys ":view table" Enter
check "back to the table" wait_for '^ +all ' 5
same_as_repaint "back to the table"
check "back to the table: cpi is the CSV's" cpi_match 4

keys ":sort cpi" Enter
sleep 0.3
same_as_repaint "sorted by cpi"
check "sorted by cpi: cpi is the CSV's" cpi_match 4
keys ":sort cpu" Enter

keys ":set running on" Enter
sleep 0.3
same_as_repaint ":set running on"
keys ":set running off" Enter
sleep 0.3
same_as_repaint ":set running off"

keys ":set ascii on" Enter
sleep 0.3
same_as_repaint ":set ascii on"
keys ":spark cpi" Enter
sleep 0.3
same_as_repaint ":spark cpi"
check ":spark cpi: cpi is the CSV's" cpi_match 4
keys ":spark off" Enter
keys ":set ascii off" Enter
sleep 0.3
same_as_repaint ":set ascii off, :spark off"

keys ":tick 2" Enter
sleep 0.3
same_as_repaint "two more ticks"
check "two more ticks: cpi is the CSV's" cpi_match 4

"${TM[@]}" resize-window -x 150 -y 40
sleep 0.5
same_as_repaint "resized to 150x40"
check "resized: cpi is the CSV's" cpi_match 4
"${TM[@]}" resize-window -x 200 -y 60
sleep 0.5
same_as_repaint "resized back"

keys q
quit_check "quit"

# a live run that switches modes (different columns and rows): each frame as a repaint gives it
tmux_open 200 60
keys "clear; '$BIN' --no-rc --backend sim --sim-cpus 3 -m cpi -i 200; echo \"EXIT=\$?\"" Enter
check "live: the table appears" wait_for '^ +all ' 10
keys " "
check "live: paused" wait_for 'PAUSED' 5
same_as_repaint "live cpi, paused"
keys ":mode sw" Enter
sleep 1
keys " "
sleep 0.5
keys " "
check "mode sw: paused" wait_for 'PAUSED' 5
same_as_repaint "mode sw"
keys q
quit_check "quit the live run"
t_done

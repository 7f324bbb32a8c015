# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_redraw.sh: the screen sends only what changed, and what changed arrives: a replay stepped
# by hand shows each tick's values as batch CSV of the same recording gives them, Ctrl-L paints
# over text written behind pmutop's back and gives the pane built frame by frame, and a resize
# repaints everything.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"

replay_fixture
# every CPU row's cpi and ipc are the CSV's at the shown time
values_match() { csv_match 4 cpi ipc; }

tmux_open 200 60
keys "clear; '$BIN' --no-rc -R '$REC'; echo \"EXIT=\$?\"" Enter
check "replay: the table appears" wait_for '^ +all ' 10
keys ":jump start" Enter
keys ":tick 1" Enter
check ":tick 1: paused" wait_for 'PAUSED' 5
t1=$(shown_t)
sleep 0.3
check "tick at t $t1: values are the CSV's" values_match
panee >"$T_TMP/p1"
pane >"$T_TMP/t1"
keys ":tick 4" Enter
check ":tick 4: the time moves on" wait_for " t $(awk -v t="$t1" 'BEGIN { printf "%.1f", t + 0.4 }') of" 5
sleep 0.3
check "tick at t $(shown_t): the changed values arrived (the CSV's)" values_match
panee >"$T_TMP/p2"
pane >"$T_TMP/t2"
# changed cells between the two frames: the check above saw them drawn
check "the two ticks differ in some value cell" bash -c "! diff -q <(grep -E '^ +[0-9]+ ' '$T_TMP/t1') <(grep -E '^ +[0-9]+ ' '$T_TMP/t2') >/dev/null"

# the pane built frame by frame equals the pane repainted whole (colours and attributes too):
# text written to the terminal behind pmutop's back, then Ctrl-L must paint over all of it
tty=$("${TM[@]}" display-message -p -t 0 '#{pane_tty}')
printf '\033[9;3HSTRAY-TEXT-STRAY' >"$tty"
printf '\033[2;3HSTRAY-TEXT-STRAY' >"$tty"
check "stray text on the terminal" wait_for 'STRAY-TEXT' 5
keys C-l
check "Ctrl-L: the stray text is painted over" wait_gone 'STRAY-TEXT' 5
sleep 0.3
panee >"$T_TMP/p3"
check "Ctrl-L repaint: the same pane as the frames sent piecemeal" cmp -s "$T_TMP/p2" "$T_TMP/p3"
cmp -s "$T_TMP/p2" "$T_TMP/p3" || diff "$T_TMP/p2" "$T_TMP/p3" | cat -v | head -10

# a resize repaints everything: smaller, then back
"${TM[@]}" resize-window -x 120 -y 30
# the banner sits at the right edge: at 120 columns only a repaint puts it there
check "resize to 120x30: the header is drawn at the new width" wait_for 'REPLAY .*rec\.jsonl$' 5
sleep 0.3
check "resize to 120x30: no line is wider than 120" bash -c "[ \$(\"\${@}\" capture-pane -p -t 0 | awk '{ if (length(\$0) > m) m = length(\$0) } END { print m + 0 }') -le 120 ]" _ "${TM[@]}"
check "resize to 120x30: values still the CSV's" values_match
"${TM[@]}" resize-window -x 200 -y 60
check "resize back to 200x60: the header is drawn at 200 columns" \
	wait_for "^pmutop .{150,}REPLAY .*rec\\.jsonl\$" 5
sleep 0.3
panee >"$T_TMP/p4"
check "resize back to 200x60: the same pane as before" cmp -s "$T_TMP/p2" "$T_TMP/p4"
cmp -s "$T_TMP/p2" "$T_TMP/p4" || diff "$T_TMP/p2" "$T_TMP/p4" | cat -v | head -10

keys q
quit_check "quit"

# a terminal that cannot move its cursor (TERM=dumb) is refused before anything is sent: its
# frames' cells would show run together (script(1) gives the run a terminal)
TERM=dumb timeout 10 script -qec "$BIN --no-rc --backend sim -i 100" "$T_TMP/dumb.typescript" \
	>/dev/null 2>&1 </dev/null
check "TERM=dumb: exit 2, says why and how, sends no escape sequence" bash -c \
	"grep -q 'COMMAND_EXIT_CODE=\"2\"' '$T_TMP/dumb.typescript' && grep -q 'cannot move its cursor; use -b' '$T_TMP/dumb.typescript' && ! grep -q \$'\\e' '$T_TMP/dumb.typescript'"

# the bars are UTF-8 glyphs: in a C locale the screen sends their ASCII forms, in a UTF-8 one the
# glyphs (the same run: the zen4 sim's top-down stacked bars)
for loc in C C.UTF-8; do
	sleep 3 | LC_ALL=$loc TERM=xterm timeout 10 script -qec "stty cols 200 rows 50; $BIN --no-rc --backend sim --sim-family zen4 --sim-cpus 2 -m topdown -i 100 -n 8" \
		"$T_TMP/loc-$loc.typescript" >/dev/null 2>&1
done
check "LC_ALL=C: no byte over 0x7f reaches the terminal, C.UTF-8: the bars' glyphs do" bash -c \
	"grep -q 'COMMAND_EXIT_CODE=\"0\"' '$T_TMP/loc-C.typescript' && ! LC_ALL=C grep -q -P '[\x80-\xff]' '$T_TMP/loc-C.typescript' && LC_ALL=C grep -q -P '[\x80-\xff]' '$T_TMP/loc-C.UTF-8.typescript'"
t_done

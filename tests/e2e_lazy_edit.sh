#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_lazy_edit.sh: libedit (the ':' prompt's history, with libbsd and libmd) is mapped only
# once the prompt is used: pmutop is not linked against it (ldd); a screen that never opens the
# prompt has none of them in the kernel's /proc/PID/maps and leaves no history file; the
# first Enter at the prompt loads it, the history is saved at exit and Up recalls it in the
# next run. The screen sets the locale's character set only: where a locale's files are mapped
# (LC_CTYPE), no other category's file is.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"

check "pmutop is not linked against libedit (ldd)" bash -c "! ldd '$BIN' | grep -q 'libedit'"
tmux_open 120 30
screen_pid() { pgrep -n -P "$("${TM[@]}" display-message -p '#{pane_pid}')"; }
hist="$T_TMP/state/pmutop/history"

start --no-rc --backend sim --sim-cpus 2 -m sw -i 200
pid=$(screen_pid)
sleep 1
check "before the prompt is used: no libedit, libbsd or libmd mapped" \
	bash -c "! grep -qE '/lib(edit|bsd|md)\\.so' /proc/$pid/maps"
check "libc is (the maps were read)" grep -q '/libc.so' /proc/"$pid"/maps
if grep -q '/LC_CTYPE' /proc/"$pid"/maps; then
	check "of the locale only LC_CTYPE is mapped" \
		bash -c "! grep -E '/LC_[A-Z]+' /proc/$pid/maps | grep -qv '/LC_CTYPE'"
else
	skip "no locale file is mapped (LANG=${LANG:-} names no compiled locale here)"
fi
keys ":quit" Enter
quit_check "the first run (:quit)"
# the run above typed ":quit" at the prompt: that used (and saved) the history
start --no-rc --backend sim --sim-cpus 2 -m sw -i 200
pid=$(screen_pid)
check "a new run: libedit not mapped yet" bash -c "! grep -q '/libedit' /proc/$pid/maps"
keys ":theme mono" Enter
sleep 0.5
check "after Enter at the prompt: libedit is mapped" grep -q '/libedit' /proc/"$pid"/maps
keys ":"
keys Up
check "Up recalls the command just entered" wait_for '^:theme mono$' 3
keys Up
check "Up again: the previous run's command (its history was saved)" wait_for '^:quit$' 3
keys C-u Escape
keys q
quit_check "q quits"
check "the history file holds both commands" \
	bash -c "grep -q 'theme' '$hist' && grep -q 'quit' '$hist'"

# a run that only uses keys (never the prompt) leaves the history file as it was
before=$(md5sum <"$hist")
touch -d '2000-01-01' "$hist"
start --no-rc --backend sim --sim-cpus 2 -m sw -i 200
keys q
quit_check "q without the prompt"
check "the history file is not rewritten by a run that never used the prompt" \
	bash -c "[ \"\$(md5sum <'$hist')\" = '$before' ] && [ \$(stat -c %Y '$hist') -lt 1000000000 ]"
t_done

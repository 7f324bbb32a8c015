#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_freeze.sh: the screen (tmux, 80x24) with a rule that fires every 0.5 s: it freezes the view;
# :freeze off stays off while the rule goes on writing flight recordings; :freeze freezes again.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"
tmux_open 80 24
keys "cd '$T_TMP'" Enter
start --no-rc --backend sim --sim-cpus 4 -m cpi --sample 10 --refresh 100 --sim-spike 1:50:6 \
	--alert "'cpi > 3 on 1'" --flight 1.5 --flight-out fl
check "a firing rule freezes the view" wait_for 'FROZEN' 10
keys ":freeze off" Enter
check ":freeze off unfreezes" wait_gone 'FROZEN' 5
# the rule fires every 0.5 s: 3 s later the view still follows, and recordings go on
held=1
for _ in $(seq 30); do
	pane_has 'FROZEN' && held=0
	sleep 0.1
done
check ":freeze off stays off while the rule fires" [ $held = 1 ]
check "the rule goes on writing recordings" bash -c "ls '$T_TMP' | grep -q 'fl-[2-9].jsonl'"
keys ":freeze" Enter
check ":freeze freezes again" wait_for 'FROZEN' 5
keys q
quit_check "freeze"
t_done

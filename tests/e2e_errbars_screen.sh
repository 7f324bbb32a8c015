#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_errbars_screen.sh: error bars and a baseline on the real screen (tmux): :set error on
# shows value±half-width, :baseline last shows each cell's change, :baseline off and
# :set error off bring the values back.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"
tmux_open 120 24
check "the table appears" start --backend sim --sim-cpus 2 -m cpi -i 100 --sim-mux 0.5
check "values without error bars" wait_for '^ +0 +[0-9.]+~? +[0-9.]+~? '
keys ":set error on" Enter
check ":set error on: value±half-width" wait_for '^ +0 +[0-9.]+±[0-9.]+~? ' 5
keys ":baseline last 1s" Enter
check ":baseline last 1s: changes in %" wait_for '^ +0 +[+-][0-9.]+%~? ' 5
keys ":baseline off" Enter
check ":baseline off: values again" wait_for '^ +0 +[0-9.]+±[0-9.]+~? ' 5
keys ":set error off" Enter
check ":set error off: no ±" wait_for '^ +0 +[0-9.]+~? +[0-9.]+~? ' 5
keys q
quit_check "quit"
t_done

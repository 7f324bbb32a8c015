#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_probe_screen.sh: :probe cache on the screen (tmux, 80x24): progress, then the report; once
# it has finished, the probe's working sets are freed (resident memory back near where it was,
# read from /proc/PID/status), the report stays on the screen, and :probe stop closes it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"
tmux_open 80 24
start --no-rc --backend sim --sim-cpus 2 -i 200
pid=$(pgrep -n -f "^$BIN --no-rc --backend sim --sim-cpus 2 -i 200")
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$pid/status"; } # KiB
check "pmutop's pid" test -n "$pid"
sleep 1
before=$(rss)
keys ":probe cache" Enter
check "the probe reports" wait_for 'cache probe results' 60
sleep 0.5 # a tick after the last step
after=$(rss)
if ldd "$BIN" 2>/dev/null | grep -q libasan; then
	# ASan keeps freed blocks in its quarantine (256 MiB), so the resident memory of this build
	# says nothing of what was freed; the plain build's run of this test checks it
	skip "resident memory after the probe: an ASan build keeps freed memory in its quarantine ($after KiB, before $before KiB)"
else
	check "resident memory after the probe: $after KiB, before $before KiB (at most 4 MiB more)" \
		[ "$((after - before))" -le 4096 ]
fi
check "the report stays" pane_has 'cache probe results'
keys ":probe stop" Enter
check ":probe stop closes the report" wait_for '^ +all ' 5
keys q
quit_check "probe"
t_done

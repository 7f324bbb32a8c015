#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_probe_screen.sh: :probe cache on the screen (tmux, 80x24): progress, then the report; once
# it has finished, the probe's working sets are freed (resident memory back near where it was,
# read from /proc/PID/status), the report stays on the screen, and :probe stop closes it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"
tmux_open 80 24
# an ASan build frees memory into a quarantine (256 MiB) it keeps resident: none here, so that
# resident memory says what was freed in that build too (a plain build ignores the variable)
START_ENV="ASAN_OPTIONS=quarantine_size_mb=0:allocator_release_to_os_interval_ms=0" start --no-rc --backend sim --sim-cpus 2 -i 200
pid=$(pgrep -n -f "^$BIN --no-rc --backend sim --sim-cpus 2 -i 200")
asan_build || true # (once here: rss_kib asks it in each command substitution)
rss() { rss_kib "$pid"; } # (lib.sh: without an ASan build's shadow)
check "pmutop's pid" test -n "$pid"
sleep 1
before=$(rss)
keys ":probe cache" Enter
check "the probe reports" wait_for 'cache probe results' 60
sleep 0.5 # a tick after the last step
after=$(rss)
check "resident memory after the probe: $after KiB, before $before KiB (at most 4 MiB more)" \
	[ "$((after - before))" -le 4096 ]
check "the report stays" pane_has 'cache probe results'
keys ":probe stop" Enter
check ":probe stop closes the report" wait_for '^ +all ' 5
keys q
quit_check "probe"
t_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_habits.sh: what users bring from top, htop and perf: durations with units, -d, -o FILE,
# h and F10, --list-events globs, theme prefixes, a bad --sim-family listing the good ones.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"

SIM=(--backend sim --no-rc)
# -i with units, and -d in seconds like top: the header says the interval in ms
for spec in "-i 500|500.0 ms" "-i 500ms|500.0 ms" "-i 2.5s|2500.0 ms" "-i 1m|60000.0 ms" \
	"-d 0.5|500.0 ms" "-d 2|2000.0 ms" "--refresh 250ms|250.0 ms"; do
	args=${spec%%|*} want=${spec#*|}
	# shellcheck disable=SC2086 # the option and its value are two words
	run_cmd --list-modes "${SIM[@]}" $args
	check "$args is accepted (rc $RC: $(head -c 160 "$T_TMP/err"))" [ "$RC" -eq 0 ]
done
run_cmd -b -n 1 "${SIM[@]}" -i 2.5s -f json
check "-i 2.5s runs at 2500 ms ($(head -c 80 "$T_TMP/out"))" grep -q '"interval_ms":2500.0' "$T_TMP/out"
run_cmd -b -n 1 "${SIM[@]}" -d 0.25 -f json
check "-d 0.25 runs at 250 ms" grep -q '"interval_ms":250.0' "$T_TMP/out"
for bad in "-i 2.5ms" "-i 5ms" "-i 2h" "-i 1x" "-i -1s" "-d 0" "-d 0.001"; do
	# shellcheck disable=SC2086
	run_cmd -b -n 1 "${SIM[@]}" $bad
	check "$bad is a usage error with a reason (rc $RC: $(head -c 160 "$T_TMP/err"))" \
		bash -c "[ $RC -eq 2 ] && grep -q 'is not a duration' '$T_TMP/err'"
done
run_cmd -b -n 1 "${SIM[@]}" -c 'interval 1.5s' -f json
check ":interval 1.5s sets 1500 ms" grep -q '"interval_ms":1500.0' "$T_TMP/out"
run_cmd -b -n 1 "${SIM[@]}" -c 'interval 1.5'
check ":interval 1.5 (not whole ms) is refused with a reason (rc $RC)" \
	bash -c "[ $RC -eq 2 ] && grep -q 'not a duration' '$T_TMP/err'"

# -o FILE: the records go to the file, byte for byte what stdout gets
run_cmd -b -n 3 -i 100 "${SIM[@]}" -f csv
cp "$T_TMP/out" "$T_TMP/stdout.csv"
run_cmd -b -n 3 -i 100 "${SIM[@]}" -f csv -o "$T_TMP/o.csv"
check "-o FILE: nothing on stdout" [ ! -s "$T_TMP/out" ]
# the same records, but for the wall-clock time of each (the last CSV column)
check "-o FILE holds what stdout holds" \
	cmp -s <(sed 's/,[^,]*$//' "$T_TMP/o.csv") <(sed 's/,[^,]*$//' "$T_TMP/stdout.csv")
echo "precious" >"$T_TMP/target"
ln -s "$T_TMP/target" "$T_TMP/link"
run_cmd -b -n 1 "${SIM[@]}" -o "$T_TMP/link"
check "-o through a symbolic link is refused (rc $RC: $(head -c 120 "$T_TMP/err"))" \
	bash -c "[ $RC -eq 2 ] && grep -q 'symbolic link' '$T_TMP/err' && [ \"\$(cat '$T_TMP/target')\" = precious ]"
run_cmd "${SIM[@]}" -o "$T_TMP/x.txt"
check "-o without -b says so (rc $RC)" bash -c "[ $RC -eq 2 ] && grep -q 'add -b' '$T_TMP/err'"

# --list-events takes globs; a plain word is still a substring
run_cmd --list-events 'skl::INST_R*'
check "--list-events 'skl::INST_R*' lists skl::INST_RETIRED" grep -q '^  skl::INST_RETIRED ' "$T_TMP/out"
check "--list-events 'skl::INST_R*' lists nothing else of skl" \
	bash -c "! grep -E '^  skl::' '$T_TMP/out' | grep -qv 'skl::INST_R'"
run_cmd --list-events '*CONTEXT-SW*'
check "--list-events '*CONTEXT-SW*' finds perf::CONTEXT-SWITCHES" grep -q 'perf::CONTEXT-SWITCHES' "$T_TMP/out"
run_cmd --list-events 'context-sw'
check "--list-events with a plain word still matches a substring, case ignored" \
	grep -q 'perf::CONTEXT-SWITCHES' "$T_TMP/out"

# a bad --sim-family lists the valid ones
run_cmd -b -n 1 --backend sim --sim-family nosuch
check "--sim-family nosuch lists the families (rc $RC: $(head -c 200 "$T_TMP/err"))" \
	bash -c "[ $RC -eq 2 ] && grep -q 'families:.* skl .*xscale' '$T_TMP/err'"

# the screen: h is help, F10 quits, theme names take unique prefixes
if ! command -v tmux >/dev/null; then
	skip "tmux is not installed: h, F10 and :theme prefixes were not tried on the screen"
	t_done
fi
export TERM=xterm-256color
mkdir -p "$T_TMP/config/pmutop/themes"
printf '[roles]\ncell = fg=red\n' >"$T_TMP/config/pmutop/themes/mine.theme" # m: mine or mono
SOCK=pmutop-habits-$$
TM=(tmux -L "$SOCK" -f /dev/null)
T_CLEANUPS+=("tmux_close '$SOCK'")
"${TM[@]}" new-session -d -x 100 -y 30 -e XDG_CONFIG_HOME="$T_TMP/config" \
	-e XDG_STATE_HOME="$T_TMP/state" "bash --norc --noprofile"
"${TM[@]}" send-keys -t 0 "$BIN ${SIM[*]} -i 200; echo EXITED=\$?" Enter
check "the screen starts" wait_for 'SIMULATED'
"${TM[@]}" send-keys -t 0 h
check "h opens the help" wait_for 'Commands \(type'
"${TM[@]}" send-keys -t 0 q
"${TM[@]}" send-keys -t 0 ':theme hi' Enter
check ":theme hi selects high-contrast" wait_for 'high-contrast'
"${TM[@]}" send-keys -t 0 ':theme m' Enter
check ":theme m is ambiguous and says so" wait_for "ambiguous"
"${TM[@]}" send-keys -t 0 F10
check "F10 quits (exit status 0)" wait_for 'EXITED=0'
t_done

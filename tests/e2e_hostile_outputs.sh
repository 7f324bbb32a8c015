# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_hostile_outputs.sh: hostile input, second round: "define x note m=1" everywhere a command
# runs (-c, rc file, the agent, the screen); outputs onto a FIFO or device never block and are
# refused unless --force; rc files someone else could have written are skipped with the reason;
# every refused output follows one rule (exit 2 before the run).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"
T=$T_TMP
AGENT=${PMUTOP_AGENT_BIN:-$(dirname "$BIN")/pmutop-agent}
SIM=(-b --backend sim --sim-cpus 2 -n 2 -i 50)
cd "$T" || exit 1

# 1. define with an event named like a mode file's keys: a message and exit 2, no crash
for ev in note group=cycles; do
	run_cmd "${SIM[@]}" -c "define x $ev m=1"
	check "-c define x $ev: exit 2 (got $RC)" [ "$RC" = 2 ]
	check "-c define x $ev: message ($(cat "$T/err"))" grep -q 'is reserved (a mode file' "$T/err"
done
mkdir -p "$T/config/pmutop"
echo 'define x note m=1' >"$T/config/pmutop/pmutoprc"
run_cmd "${SIM[@]}"
check "rc file define x note: exit 2 (got $RC)" [ "$RC" = 2 ]
check "rc file define x note: message names the file" grep -q 'pmutoprc:1: define: event 1: "note" is reserved' "$T/err"
rm -f "$T/config/pmutop/pmutoprc"
if [ -x "$AGENT" ]; then
	timeout 30 "$AGENT" -b -r - -n 2 -i 50 --backend sim -c 'define x note m=1' </dev/null >/dev/null 2>"$T/err"
	RC=$?
	check "agent -c define x note: exit 2 (got $RC)" [ "$RC" = 2 ]
	check "agent -c define x note: message" grep -q '"note" is reserved' "$T/err"
else
	skip "no agent binary at $AGENT"
fi

# 2. outputs onto a FIFO without a reader: refused at once, never a hang
mkfifo "$T/fifo"
for how in "-r|$T/fifo" "-o|$T/fifo" "-c|record $T/fifo" "-c|export spikes $T/fifo"; do
	run_cmd "${SIM[@]}" "${how%%|*}" "${how#*|}"
	check "$how: exit 2, no hang (got $RC)" [ "$RC" = 2 ]
	check "$how: says it is a FIFO ($(head -c 300 "$T/err"))" \
		grep -q 'fifo: it is a FIFO, not a regular file: not written (--force writes to it)' "$T/err"
done
# --force: with no reader it still does not wait
run_cmd "${SIM[@]}" -r "$T/fifo" --force
check "-r FIFO --force, no reader: exit 2, no hang (got $RC)" [ "$RC" = 2 ]
check "-r FIFO --force, no reader: the reason" grep -q 'a FIFO with no reader (not waited for)' "$T/err"
# --force with a reader: the recording goes through the FIFO
timeout 30 cat "$T/fifo" >"$T/through.jsonl" &
READER=$!
sleep 0.5
run_cmd "${SIM[@]}" -r "$T/fifo" --force
wait $READER
check "-r FIFO --force with a reader: exit 0 ($(cat "$T/err"))" [ "$RC" = 0 ]
check "-r FIFO --force with a reader: the recording arrives" grep -q '"type":"header"' "$T/through.jsonl"
# a device other than /dev/null
if [ -w /dev/full ]; then
	run_cmd "${SIM[@]}" -o /dev/full
	check "-o /dev/full: refused, exit 2 (got $RC)" [ "$RC" = 2 ]
	check "-o /dev/full: says it is a device" grep -q '/dev/full: it is a character device' "$T/err"
fi
run_cmd "${SIM[@]}" -o /dev/null -r /dev/null
check "-o /dev/null -r /dev/null: still fine (exit $RC: $(cat "$T/err"))" [ "$RC" = 0 ]

# 3. one rule for every refused output: exit 2 before the run, the path and the reason
ln -s "$T/target" "$T/link"
for opt in -r -o; do
	run_cmd "${SIM[@]}" "$opt" "$T/link"
	check "$opt link: exit 2 (got $RC)" [ "$RC" = 2 ]
	check "$opt link: the reason" grep -q 'link: it is a symbolic link' "$T/err"
	check "$opt link: nothing ran" [ ! -s "$T/out" ]
	run_cmd "${SIM[@]}" "$opt" "$T/no/such/dir/file"
	check "$opt unwritable: exit 2 (got $RC)" [ "$RC" = 2 ]
	check "$opt unwritable: the path and errno" grep -q 'no/such/dir/file: No such file or directory' "$T/err"
done
check "refused outputs: nothing created where the link points" [ ! -e "$T/target" ]

# 4. rc files: read only when owned by the user or root and not writable by others
echo "record $T/from-rc.jsonl" >"$T/config/pmutop/pmutoprc"
chmod 666 "$T/config/pmutop/pmutoprc"
run_cmd "${SIM[@]}"
check "rc file writable by others: the run goes on (exit $RC)" [ "$RC" = 0 ]
check "rc file writable by others: skipped with the reason ($(cat "$T/err"))" \
	grep -q 'pmutoprc skipped: writable by others (mode 0666; chmod go-w' "$T/err"
check "rc file writable by others: its record did not run" [ ! -e "$T/from-rc.jsonl" ]
chmod 644 "$T/config/pmutop/pmutoprc"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	chown nobody "$T/config/pmutop/pmutoprc"
	run_cmd "${SIM[@]}"
	check "rc file owned by another user: skipped with the reason ($(cat "$T/err"))" \
		grep -q "pmutoprc skipped: owned by uid $(id -u nobody), not by you (uid 0) or root" "$T/err"
	check "rc file owned by another user: its record did not run" [ ! -e "$T/from-rc.jsonl" ]
	chown 0 "$T/config/pmutop/pmutoprc"
else
	skip "not root (or no user nobody): the other-owner case needs chown"
fi
run_cmd "${SIM[@]}"
check "rc file of the user, mode 0644: read (exit $RC: $(cat "$T/err"))" [ -s "$T/from-rc.jsonl" ]
rm -f "$T/config/pmutop/pmutoprc"

# 5. the screen: define x note is a message, the screen lives on; :record onto a FIFO does not
# block and q still quits
if ! command -v tmux >/dev/null; then
	skip "tmux is not installed: screen checks"
	t_done
fi
export TERM=xterm-256color
SOCK=pmutop-hostile-out-$$
TM=(tmux -L "$SOCK" -f /dev/null)
T_CLEANUPS+=("tmux_close '$SOCK'")
if ! "${TM[@]}" new-session -d -x 120 -y 30 -e XDG_CONFIG_HOME="$T/config" -e TERM=xterm-256color \
	"bash --norc --noprofile"; then
	skip "tmux cannot start a server here"
	t_done
fi
"${TM[@]}" set-option -g status off >/dev/null
keys "PS1='PROMPT\$ '; clear" Enter
wait_for '^PROMPT\$ ?$' || { fail "shell prompt never appeared"; t_done; }
keys "clear; '$BIN' --backend sim --sim-cpus 2 -i 200; echo \"EXIT=\$?\"" Enter
check "screen: the table appears" wait_for '^ +all '
keys ":define x note m=1" Enter
check "screen, define x note: the message" wait_for '"note" is reserved'
keys ":record $T/fifo" Enter
check "screen, :record FIFO: refused at once" wait_for 'it is a FIFO, not a regular file'
keys ":mode cpi" Enter
check "screen: still answers keys" wait_for 'mode cpi'
keys q
check "screen: q quits (exit 0)" wait_for '^EXIT=0$'
t_done

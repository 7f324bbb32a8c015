# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_hostile_outputs.sh: hostile input, second round: "define x note m=1" everywhere a command
# runs (-c, rc file, the agent, the screen); outputs onto a FIFO or device never block and are
# refused unless --force; rc files someone else could have written are skipped with the reason;
# every refused output follows one rule (exit 2 before the run); JSON that would take far more
# memory than its size is refused with the reason.
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
# --flight-out: a FIFO planted at the next name is skipped (names pmutop picks are created new)
mkfifo "$T/fl-1.jsonl"
run_cmd -b -n 12 --sample 10 --refresh 100 --backend sim --sim-cpus 4 -m cpi \
	--sim-spike 1:50:6 --alert "cpi > 3 on 1" --flight 1.5 --flight-out "$T/fl"
check "--flight-out past a FIFO: exit 0, no hang (got $RC)" [ "$RC" = 0 ]
check "--flight-out past a FIFO: written to the next name" grep -q 'flight recording .*fl-2.jsonl' "$T/err"
check "--flight-out past a FIFO: the FIFO stays" [ -p "$T/fl-1.jsonl" ]
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

# 5. JSON inside the size limits but not the memory: refused with the reason, memory bounded
# (a 15 MB metrics.json of {} took 1.1 GB to parse; a tick line of zeros 20 times its size)
ASAN=0
ldd "$BIN" 2>/dev/null | grep -q libasan && ASAN=1
# peak NAME ARGS...: runs pmutop; status in $RC, peak RSS (KiB) in $RSS, stderr in $T/err
peak() {
	python3 - "$BIN" "$@" >"$T/rss" 2>"$T/err" <<'EOF'
import resource, subprocess, sys
try:
    rc = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                        timeout=120).returncode
except subprocess.TimeoutExpired:
    rc = 124
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
EOF
	read -r RC RSS <"$T/rss"
}
cp -r "$T_SRC/tests/fixtures/pmu-events" "$T/lib"
python3 -c 'import sys; sys.stdout.write("[" + ",".join(["{}"] * 5000000) + "]")' \
	>"$T/lib/arch/x86/testlake/metrics.json"
peak --sysfs-root "$T_SRC/tests/sysfs/x86-skylake" --perf-events "$T/lib" -b -n 1 --backend sim
check "metrics.json of 5 million {}: exit 2 (got $RC)" [ "$RC" = 2 ]
check "metrics.json of 5 million {}: the reason ($(head -c 300 "$T/err"))" \
	grep -q 'testlake/metrics.json: needs more than 116 MiB of memory to parse (8 times its 15000001 bytes): refused' "$T/err"
if [ "$ASAN" = 0 ]; then
	check "metrics.json of 5 million {}: peak RSS $RSS KiB under 200 MB" [ "$RSS" -lt 204800 ]
fi
# a recording whose header allows long lines (4096 CPUs), then a 1.8 MB tick of zeros
python3 - "$T_SRC/tests/fixtures/replay/clean-ticks.jsonl" >"$T/zeros.jsonl" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
h = json.loads(lines[0]); h["cpus"] = list(range(4096))
print(json.dumps(h, separators=(",", ":")))
print(lines[1])
print('{"type":"tick","t":0.1,"interval_ms":100,"cpus":[{"cpu":0,"c":[' + ",".join(["0"] * 900000) + ']}]}')
EOF
peak -b -R "$T/zeros.jsonl"
check "recording, a tick line of 900000 zeros: exit 2 (got $RC)" [ "$RC" = 2 ]
check "recording, a tick line of 900000 zeros: the line and the reason ($(head -c 300 "$T/err"))" \
	grep -qE 'zeros.jsonl:3: line of 1800[0-9]+ bytes needs more than [0-9]+ MiB of memory to parse \(16 times' "$T/err"
# under an address-space limit, running out of memory is named as such, not "metrics.json:-1: "
if [ "$ASAN" = 0 ]; then
	python3 -c 'import sys; sys.stdout.write("[" + ",".join(["{\"a\":1}"] * 1500000) + "]")' \
		>"$T/lib/arch/x86/testlake/metrics.json"
	(ulimit -v 120000; "$BIN" --sysfs-root "$T_SRC/tests/sysfs/x86-skylake" --perf-events "$T/lib" \
		-b -n 1 --backend sim >/dev/null 2>"$T/err" </dev/null)
	RC=$?
	check "metrics.json under ulimit -v: exit 2 (got $RC)" [ "$RC" = 2 ]
	check "metrics.json under ulimit -v: names the reason ($(head -c 300 "$T/err"))" \
		grep -qE 'metrics.json: (out of memory while parsing it|needs more than)' "$T/err"
	check "metrics.json under ulimit -v: no empty reason" bash -c "! grep -q 'json:-1: *$' '$T/err'"
fi
rm -rf "$T/lib" "$T/zeros.jsonl"

# 6. the screen: define x note is a message, the screen lives on; :record onto a FIFO does not
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

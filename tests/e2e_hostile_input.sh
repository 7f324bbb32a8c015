# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_hostile_input.sh: every reader that takes a path (recording, perf stat import, --mode-file,
# rc file, theme) given /dev/zero, random bytes and a 100 MB line, under a memory limit; FIFOs
# without a writer; recordings through a pipe and a FIFO; corrupt ticks skipped.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"
FX=$T_SRC/tests/fixtures
T=$T_TMP
export XDG_CONFIG_HOME=$T/config
mkdir -p "$T/config/pmutop"

# Address-space limit (KiB) a normal run fits in many times over; an unbounded reader does not.
# AddressSanitizer reserves terabytes of address space, so there the limit cannot be set and the
# peak resident size is checked instead.
LIMIT_KB=204800
if ldd "$BIN" 2>/dev/null | grep -q libasan; then
	ASAN=1
	echo "note: AddressSanitizer build: no address-space limit (ASan needs a huge one); checking peak RSS < 500 MB instead"
else
	ASAN=0
fi
# bounded RUN ARGS...: runs pmutop with the limit and a time bound; status in $RC, peak RSS (KiB)
# in $RSS, stderr in $T/err.
bounded() {
	python3 - "$ASAN" "$LIMIT_KB" "$BIN" "$@" >"$T/rss" 2>"$T/err" <<'EOF'
import resource, subprocess, sys
asan, limit, argv = sys.argv[1] == "1", int(sys.argv[2]) * 1024, sys.argv[3:]
def lim():
    if not asan:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
try:
    rc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, timeout=60,
                        preexec_fn=lim).returncode
except subprocess.TimeoutExpired:
    rc = 124
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
EOF
	read -r RC RSS <"$T/rss"
}
# hostile DESC WANT_REGEX ARGS...: exit 2, the message, bounded memory, no escape on stderr
hostile() {
	local desc=$1 want=$2
	shift 2
	bounded "$@"
	check "$desc: exit 2 (got $RC: $(head -c 300 "$T/err"))" [ "$RC" = 2 ]
	check "$desc: message /$want/ ($(head -c 300 "$T/err"))" grep -qE -- "$want" "$T/err"
	check "$desc: peak RSS ${RSS} KiB under 500 MB" [ "$RSS" -lt 512000 ]
	if LC_ALL=C grep -q $'\x1b' "$T/err"; then fail "$desc: an escape character on stderr"; else pass; fi
}

# the inputs: /dev/zero (no newline ever), one 100 MB line, and 3 MB of random bytes saved to a
# file (over every file and line limit; a file, so that an input that fails can be replayed: it is
# kept, and its path printed, when a check on it fails)
head -c 100000000 /dev/zero | tr '\0' x >"$T/line100m"
RND=$T/urandom
head -c 3000000 /dev/urandom >"$RND"
keep_random() { # called after the checks on it: keeps the random input if a check failed
	local k
	[ "$RND_FAILS" = "$T_FAIL" ] && return
	k=$(mktemp "${TMPDIR:-/tmp}/pmutop-hostile-urandom.XXXXXX")
	cp "$RND" "$k" && echo "the random input is kept in $k (replay: copy it to a file named urandom)"
}
RND_FAILS=$T_FAIL
# The first line a recording's reader judges: blank lines are skipped, and perf stat's '#' comment
# lines when the format is guessed (a random first byte is '\n' or '#' once in 128 inputs)
rnd_line=$(python3 -c '
import sys
for i, l in enumerate(open(sys.argv[1], "rb").read().split(b"\n"), 1):
    s = l.lstrip(b" \t\r")
    if s and not s.startswith(b"#"):
        print(i)
        break' "$RND")
printf '1.000,CPU0,1000,,cycles,1000000000,100.00,,\n' >"$T/stat.csv"
cat "$T/line100m" >>"$T/stat.csv"

# 1. recordings and perf stat imports (-R)
hostile "-R /dev/zero" '/dev/zero:1: line longer than 1048576 bytes' -b -R /dev/zero
hostile "-R random bytes (line $rnd_line judged)" "urandom:$rnd_line: " -b -R "$RND"
# random bytes whose first line began with a NUL byte: that line was taken for a blank one and
# skipped, and the message named line 2 (a saved input, the first two lines of one)
hostile "-R a first line that begins with NUL" 'nul-first-line.bin:1: not a pmutop recording' \
	-b -R "$FX/hostile/nul-first-line.bin"
timeout 60 "$BIN" -b -R - <"$FX/hostile/nul-first-line.bin" >/dev/null 2>"$T/err"
check "-R - with a first line that begins with NUL: line 1 ($(head -c 300 "$T/err"))" \
	grep -q '^pmutop: -:1: not a pmutop recording' "$T/err"
check "-R - with a first line that begins with NUL: the message says so ($(head -c 300 "$T/err"))" \
	grep -q 'NUL byte' "$T/err"
# a NUL byte in a line past the header: that line is skipped, saying why, and the others replay as
# the file without it does
{
	head -3 "$FX/replay/clean-ticks.jsonl"
	printf '{"type":"ti\0ck"}\n'
	tail -n +4 "$FX/replay/clean-ticks.jsonl"
} >"$T/nulmid.jsonl"
timeout 60 "$BIN" -b -R "$T/nulmid.jsonl" -f csv >"$T/nulmid.csv" 2>"$T/err" </dev/null
check "-R a NUL byte past the header: exit 0 (got $?)" [ $? = 0 ]
check "-R a NUL byte past the header: line 4 skipped as NUL ($(head -c 300 "$T/err"))" \
	grep -q 'nulmid.jsonl:4: corrupt line (NUL byte) skipped' "$T/err"
timeout 60 "$BIN" -b -R "$FX/replay/clean-ticks.jsonl" -f csv >"$T/clean.csv" 2>/dev/null </dev/null
check "-R a NUL byte past the header: the other records replay as without it" \
	cmp -s "$T/nulmid.csv" "$T/clean.csv"
hostile "-R 100 MB line" 'line100m:1: line longer than 1048576 bytes' -b -R "$T/line100m"
hostile "-R perf stat with a 100 MB line" 'stat.csv:2: line longer than 65536 bytes' -b -R "$T/stat.csv"
# a 100 MB line after a valid header and mode: the limit follows the header's CPUs and events
head -2 "$FX/replay/clean-ticks.jsonl" >"$T/rec-long.jsonl"
cat "$T/line100m" >>"$T/rec-long.jsonl"
hostile "-R recording with a 100 MB tick line" 'rec-long.jsonl:3: line longer than [0-9]+ bytes' \
	-b -R "$T/rec-long.jsonl"
rm -f "$T/rec-long.jsonl" "$T/stat.csv"

# 2. --mode-file, the rc file: small text files, bounded in line and size
hostile "--mode-file /dev/zero" '^pmutop: --mode-file: /dev/zero:1: line longer than 65536 bytes' \
	-b --backend sim -n 1 -i 50 --mode-file /dev/zero
hostile "--mode-file random bytes" 'urandom(:[0-9]+: (NUL byte|line longer)|: larger than)' \
	-b --backend sim -n 1 -i 50 --mode-file "$RND"
hostile "--mode-file 100 MB line" 'line100m:1: line longer than 65536 bytes' \
	-b --backend sim -n 1 -i 50 --mode-file "$T/line100m"
for src in /dev/zero "$RND" "$T/line100m"; do
	ln -sf "$src" "$T/config/pmutop/pmutoprc"
	hostile "rc file -> $src" 'pmutoprc(:[0-9]+: (NUL byte|line longer than 65536 bytes)|: larger than)' \
		-b --backend sim -n 1 -i 50
done
rm -f "$T/config/pmutop/pmutoprc"
# a mode file over the size limit, in short lines
yes '# a comment line of a mode file that is far too large' | head -c 2000000 >"$T/big.mode"
hostile "--mode-file of 2 MB" 'big.mode: larger than 1048576 bytes' \
	-b --backend sim -n 1 -i 50 --mode-file "$T/big.mode"

# 3. FIFOs without a writer: nothing hangs; a bounded wait and a clear message
# (the two waits of 10 s each run at the same time, on FIFOs of their own)
mkfifo "$T/fifo" "$T/mfifo"
timeout 60 "$BIN" -b -R "$T/fifo" >/dev/null 2>"$T/err" </dev/null &
RPID=$!
timeout 60 "$BIN" -b --backend sim -n 1 -i 50 --mode-file "$T/mfifo" >/dev/null 2>"$T/merr" </dev/null
MRC=$?
wait $RPID
RC=$?
check "-R FIFO without a writer: exit 2 (got $RC)" [ $RC = 2 ]
check "-R FIFO without a writer: message ($(cat "$T/err"))" \
	grep -q "fifo: no data within 10 s (a FIFO without a writer?)" "$T/err"
check "--mode-file FIFO without a writer: exit 2 (got $MRC)" [ $MRC = 2 ]
check "--mode-file FIFO without a writer: message ($(cat "$T/merr"))" \
	grep -q "mfifo: no data within 10 s" "$T/merr"

# 4. a recording through a pipe and through a FIFO gives the same numbers as the file
timeout 60 "$BIN" -b --backend sim --sim-cpus 2 -n 3 -i 100 -r - 2>/dev/null </dev/null |
	tee "$T/piped.jsonl" | timeout 60 "$BIN" -b -f csv -R - >"$T/pipe.csv" 2>"$T/pipe.err"
check "-R - from a pipe: exit 0 ($(cat "$T/pipe.err"))" [ "${PIPESTATUS[2]}" = 0 ]
timeout 60 "$BIN" -b -f csv -R "$T/piped.jsonl" >"$T/file.csv" 2>/dev/null
check "-R -: 3 intervals" [ "$(cut -d, -f1 "$T/pipe.csv" | grep -v time_s | sort -u | wc -l)" = 3 ]
check "-R - and -R FILE: the same numbers" cmp -s "$T/pipe.csv" "$T/file.csv"
check "-R -: says where the stream ended" grep -q "end of the stream - (4 ticks)" "$T/pipe.err"
(sleep 1; cat "$T/piped.jsonl" >"$T/fifo") &
timeout 60 "$BIN" -b -f csv -R "$T/fifo" >"$T/fifo.csv" 2>"$T/fifo.err" </dev/null
check "-R FIFO with a late writer: exit 0 ($(cat "$T/fifo.err"))" [ $? = 0 ]
wait
check "-R FIFO and -R FILE: the same numbers" cmp -s "$T/fifo.csv" "$T/file.csv"
# a stream that turns bad half way: the good ticks are shown, then exit 2 with the line
{ head -4 "$T/piped.jsonl"; head -c 2000000 /dev/zero; } |
	timeout 60 "$BIN" -b -f csv -R - >"$T/bad.csv" 2>"$T/bad.err"
check "-R - that turns bad: exit 2" [ "${PIPESTATUS[1]}" = 2 ]
check "-R - that turns bad: message ($(cat "$T/bad.err"))" grep -qE -- '-:5: line longer than [0-9]+ bytes' "$T/bad.err"
check "-R - that turns bad: the interval before it is shown" grep -q '^0.100000,' "$T/bad.csv"

# 4b. terminal controls in a recorded host name reach no output raw (CSV and JSON are written
# without a second escaping pass when their texts are safe: this one is not)
sed 's/"host":"board"/"host":"bo\\u001b[31mard\\u009b"/' "$FX/replay/clean-ticks.jsonl" >"$T/esc.jsonl"
for f in csv json openmetrics; do
	timeout 60 "$BIN" -b -f "$f" -R "$T/esc.jsonl" >"$T/esc.$f" 2>/dev/null
	check "a control in the host: no raw ESC in $f" sh -c "! LC_ALL=C grep -q \"\$(printf '\\033')\" '$T/esc.$f'"
	check "a control in the host: $f shows it escaped" grep -q 'bo.*x1b.*ard' "$T/esc.$f"
done

# 5. corrupt ticks are skipped with their line numbers; the next delta starts from the last good
timeout 60 "$BIN" -b -f csv -R "$FX/replay/clean-ticks.jsonl" >"$T/clean.csv" 2>/dev/null
timeout 60 "$BIN" -b -f csv -R "$FX/replay/corrupt-ticks.jsonl" >"$T/corrupt.csv" 2>"$T/corrupt.err"
check "corrupt ticks: exit 0 ($(cat "$T/corrupt.err"))" [ $? = 0 ]
check "corrupt ticks: the same numbers as without them" cmp -s "$T/clean.csv" "$T/corrupt.csv"
for w in ':6: tick: CPU 0 counter 1: count goes back; tick skipped' \
	':7: tick: CPU 0 counter 2: running time exceeds enabled time; tick skipped' \
	':8: tick: CPU 0 counter 1: "12x" is not an unsigned integer; tick skipped' \
	":9: tick has 1 counters but mode 'cpi' has 2 events; tick skipped" \
	':10: corrupt line .* skipped'; do
	check "corrupt ticks: warning $w" grep -qE -- "corrupt-ticks.jsonl$w" "$T/corrupt.err"
done
check "corrupt ticks: no running share above 100 %" \
	awk -F, 'NR > 1 && $7 != "" && $7 + 0 > 1.0001 { bad = 1 } END { exit bad }' "$T/corrupt.csv"

# 6. the screen (tmux): a theme file that is not one; waiting for a FIFO's writer; q quits
if ! command -v tmux >/dev/null; then
	skip "tmux is not installed: screen checks"
	rm -f "$T/line100m"
	keep_random
	t_done
fi
export TERM=xterm-256color
SOCK=pmutop-hostile-$$
TM=(tmux -L "$SOCK" -f /dev/null)
T_CLEANUPS+=("tmux_close '$SOCK'")
if ! "${TM[@]}" new-session -d -x 100 -y 30 -e XDG_CONFIG_HOME="$T/config" -e TERM=xterm-256color \
	"bash --norc --noprofile"; then
	skip "tmux cannot start a server here"
	rm -f "$T/line100m"
	keep_random
	t_done
fi
"${TM[@]}" set-option -g status off >/dev/null
keys "PS1='PROMPT\$ '; clear" Enter
wait_for '^PROMPT\$ ?$' || { fail "shell prompt never appeared"; t_done; }
run_pane() { keys "clear; $*; echo \"EXIT=\$?\"" Enter; }

for src in /dev/zero "$RND" "$T/line100m"; do
	run_pane "'$BIN' --backend sim --theme '$src'"
	check "--theme $src: exit 2" wait_for '^EXIT=2$'
	check "--theme $src: message" wait_for "$(basename "$src")(:[0-9]+: (NUL byte|line longer than 65536 bytes)|: larger than)"
done
rm -f "$T/line100m"
keep_random

# a FIFO that nobody writes: the wait says so and q ends it at once
run_pane "'$BIN' -R '$T/fifo'"
check "screen, FIFO without a writer: says it waits" wait_for 'waiting for a recording on .*fifo \(q quits\)'
keys q
check "screen, FIFO without a writer: q quits (exit 0)" wait_for '^EXIT=0$'
# a writer that sends the header and mode, then nothing: the screen runs and q quits
(head -2 "$T/piped.jsonl"; sleep 30) >"$T/fifo" &
WRITER=$!
T_CLEANUPS+=("kill $WRITER 2>/dev/null")
run_pane "'$BIN' -R '$T/fifo'"
check "screen, silent writer: the screen starts" wait_for 'waiting for the first tick'
keys ":mode cpi" Enter
check "screen, silent writer: keys work" wait_for 'mode cpi'
keys q
check "screen, silent writer: q quits (exit 0)" wait_for '^EXIT=0$'
kill $WRITER 2>/dev/null
wait $WRITER 2>/dev/null
# -R - on the screen: the recording on stdin, the keys from the terminal
run_pane "cat '$T/piped.jsonl' | '$BIN' -R -"
check "screen, -R -: the table appears" wait_for '^ +all '
keys q
check "screen, -R -: q quits (exit 0)" wait_for '^EXIT=0$'
t_done

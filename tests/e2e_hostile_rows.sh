#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_hostile_rows.sh: hostile summed rows and baselines: task names with line breaks and
# escapes in text, JSON and CSV output; a recording of other rows (tasks, cgroups) or of fewer
# CPUs as a baseline; a FIFO or a terminal as :baseline; row_key_cpus that disagree; a baseline
# path too long to keep; the screen's key column as wide as the escaped name.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 needed to edit recordings"; exit 77; }
T=$T_TMP
SIM=(--backend sim --no-rc -m cpi -i 10 -b)

# a task recording whose task name holds a line break, a tab, a CR, ESC, DEL and a C1 CSI
sleep 120 &
P=$!
T_CLEANUPS+=("kill $P 2>/dev/null")
timeout 60 "$BIN" "${SIM[@]}" -f json -p $P --seed 3 -n 30 -r "$T/task.jsonl" >/dev/null 2>"$T/err"
python3 - "$T/task.jsonl" "$T/hostile.jsonl" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
h = json.loads(lines[0])
h["row_keys"] = ["x\nall 9.99\t\r\x1b]0;t\x07\x7f\x9b[2J[1]"]
open(sys.argv[2], "w").write("\n".join([json.dumps(h)] + lines[1:]) + "\n")
EOF
for fmt in text json csv; do
	timeout 30 "$BIN" -R "$T/hostile.jsonl" -b -f $fmt --no-rc -n 3 >"$T/out.$fmt" 2>"$T/err"
	check "$fmt: no control byte but line ends" python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
sys.exit(1 if any(c < 0x20 and c not in (9, 10) or c == 0x7f for c in b) or b"\xc2\x9b" in b else 0)
' "$T/out.$fmt"
done
# text: one line per row, the name escaped (a name cannot forge a row)
check "text: the task's row is one line, its name escaped" \
	grep -q '^x\\x0aall 9\.99\\x09\\x0d\\x1b\]0;t\\x07\\x7f\\xc2\\x9b\[2J\[1\] ' "$T/out.text"
check "text: a block per tick of 4 lines (time, header, the task, all)" python3 -c '
import sys
blocks = [b for b in open(sys.argv[1]).read().split("\n\n") if b.strip()]
sys.exit(0 if len(blocks) == 3 and all(len(b.strip("\n").split("\n")) == 4 for b in blocks) else 1)
' "$T/out.text"
check "json: valid, the name intact" python3 -c '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    assert o["cpus"][0]["task"].startswith("x\nall 9.99\t\r\x1b]0;t\x07\x7f\x9b"), o["cpus"][0]
' "$T/out.json"
check "csv: valid, a field per column, the name quoted, its controls escaped" python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert len({len(r) for r in rows}) == 1, "ragged"
assert any(r[2].startswith("x\nall 9.99\t\\x0d\\x1b]0;t\\x07\\x7f\\xc2\\x9b") for r in rows[1:])
' "$T/out.csv"

# baselines whose rows are not this run's: refused, never compared row by row
JSIM=("${SIM[@]}" -f json --sim-cpus 4 --seed 5)
run_cmd "${JSIM[@]}" -n 5 --baseline "$T/task.jsonl"
check "a task recording as a CPU run's baseline: refused" \
	grep -q 'baseline .*task.jsonl: a recording of task rows, not of this run.s cpu rows' "$T/err"
check "... and no cell compared" python3 -c '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    assert all("baseline" not in c for c in o["cpus"]) and "baseline" not in o["total"], l
' "$T/out"
sed '1s/"rows": *"task"/"rows":"cgroup"/' "$T/task.jsonl" >"$T/cgroup.jsonl"
run_cmd "${SIM[@]}" -f json -p $P --seed 4 -n 5 --baseline "$T/cgroup.jsonl"
check "a cgroup recording as a task run's baseline: refused" \
	grep -q 'a recording of cgroup rows, not of this run.s task rows' "$T/err"

# a recording of 2 CPUs as the baseline of 4: CPUs 0 and 1 compared, 2 and 3 and the all row not
timeout 60 "$BIN" "${SIM[@]}" -f json --sim-cpus 2 --seed 5 -n 40 -r "$T/two.jsonl" >/dev/null 2>&1
run_cmd "${JSIM[@]}" -n 40 --baseline "$T/two.jsonl"
check "fewer CPUs: the all row is not compared, saying why" \
	grep -q 'the recording lacks CPU 2 and more of this run: the all row is not compared' "$T/err"
check "fewer CPUs: CPU 0 compared, CPU 3 and the all row n/a" python3 -c '
import json, sys
o = [json.loads(l) for l in open(sys.argv[1])][-1]
assert o["cpus"][0]["baseline"]["ipc"]["p"] is not None
assert o["cpus"][3]["baseline"]["ipc"]["p"] is None
assert all(v["p"] is None and not v["significant"] for v in o["total"]["baseline"].values())
' "$T/out"
run_cmd "${JSIM[@]}" -n 5 --per-core --baseline "$T/two.jsonl"
check "fewer CPUs on core rows: refused" \
	grep -q 'the recording lacks CPU 2 and more of this run: its core rows would sum other CPUs' \
	"$T/err"

# :baseline of a terminal (a pty nobody writes to) or a FIFO: refused at once, no hang
mkfifo "$T/fifo"
run_cmd "${JSIM[@]}" -n 20 -c "baseline $T/fifo"
check ":baseline FIFO: refused (rc $RC)" \
	bash -c "[ $RC -ne 124 ] && grep -q 'fifo: not a regular file' '$T/err'"
check ":baseline of a pty: refused, no hang" python3 -c '
import os, pty, subprocess, sys
m, s = pty.openpty()
p = subprocess.run(sys.argv[1:] + ["-c", "baseline " + os.ttyname(s)], capture_output=True,
                   timeout=20, stdin=subprocess.DEVNULL)
sys.exit(0 if b"not a regular file" in p.stderr else 1)
' "$BIN" "${JSIM[@]}" -n 20

# a recording of perf stat core rows whose row_key_cpus disagree for one key: refused
for i in 1 2 3; do
	for u in 0 1; do
		echo "$i.0,S0-D0-C$u,2,$((1000000 * i)),,cycles,2000000000,100.00,,"
	done
done >"$T/cores.csv"
timeout 30 "$BIN" -R "$T/cores.csv" -b -f json --no-rc -r "$T/cores.jsonl" >/dev/null 2>"$T/err"
check "a per-core capture recorded with its row keys and CPUs" \
	grep -q '"row_keys":\["S0-D0-C0","S0-D0-C1"\],"row_key_cpus":\[2,2\]' "$T/cores.jsonl"
sed '1s/"row_keys":\["S0-D0-C0","S0-D0-C1"\],"row_key_cpus":\[2,2\]/"row_keys":["S0-D0-C0","S0-D0-C0"],"row_key_cpus":[2,1000]/' \
	"$T/cores.jsonl" >"$T/cores_bad.jsonl"
run_cmd -R "$T/cores_bad.jsonl" -b -f json --no-rc
check "row_key_cpus that differ for one key: refused with file:line (rc $RC)" bash -c \
	"[ $RC -ne 0 ] && grep -q 'cores_bad.jsonl:1: header: \"row_key_cpus\" gives row key .S0-D0-C0. 2 and 1000 CPUs' '$T/err'"

# a baseline path longer than pmutop keeps (1023 bytes): refused, never cut to another file
LONG=$T/$(printf 'd%.0s' {1..200})
LONG=$LONG/$(basename "$LONG")/$(basename "$LONG")/$(basename "$LONG")/$(basename "$LONG")
mkdir -p "$LONG" && cp "$T/two.jsonl" "$LONG/two.jsonl"
run_cmd "${JSIM[@]}" -n 5 --baseline "$LONG/two.jsonl"
check "--baseline with a path over 1023 bytes: refused, exit 2 (rc $RC)" \
	bash -c "[ $RC -eq 2 ] && grep -q -- '--baseline: path longer than 1023 bytes' '$T/err'"
run_cmd "${JSIM[@]}" -n 5 -c "baseline $LONG/two.jsonl"
check ":baseline with a path over 1023 bytes: refused" \
	grep -q 'baseline: path longer than 1023 bytes' "$T/err"

# the screen: the task's escaped name whole in the key column, its values after it (last: a
# tmux that cannot start skips the script, so the checks above run first)
if command -v tmux >/dev/null; then
	source "$(dirname "$0")/tmuxlib.sh"
	tmux_open 160 20
	check "screen: the hostile recording's table" start --no-rc -R "$T/hostile.jsonl" -i 500
	check "screen: the name escaped and whole, then the values" wait_for \
		'^x\\x0aall 9\.99\\x09\\x0d\\x1b\]0;t\\x07\\x7f\\xc2\\x9b\[2J\[1\] +[0-9]+\.[0-9]+ ' 5
	keys q
	quit_check "screen: q"
else
	skip "tmux is not installed: the screen is not checked"
fi

t_done

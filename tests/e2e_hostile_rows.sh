#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_hostile_rows.sh: hostile summed rows and baselines: task names with line breaks and
# escapes in text, JSON and CSV output; a recording of other rows (tasks, perf stat units) or of
# fewer CPUs as the baseline of a run of CPUs; baselines that are devices.
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

t_done

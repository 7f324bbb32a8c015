#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_baseline.sh: a live diff against a baseline (--baseline, :baseline): a recording against
# itself flags no more cells than the 5 % false-positive rate; a 5 % IPC shift injected on one
# simulated CPU (--sim-shift) is flagged on that CPU within 30 windows and on no other; the last
# seconds of a run as the reference; text and JSON carry the changes; bad input is refused.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 needed to check JSON"; exit 77; }
T=$T_TMP
CHECK=$T_SRC/tests/baseline_check.py
SIM=(--backend sim --sim-cpus 4 -m cpi -i 10 -b -f json)

# the reference: 300 ticks; the new run: another seed, CPU 2 retires 5 % more instructions in
# the same cycles from tick 30 on (the sim's noise is per tick: 30 ticks stand for 30 s of 1 s
# windows)
timeout 60 "$BIN" "${SIM[@]}" --seed 5 -n 300 -r "$T/base.jsonl" >/dev/null 2>"$T/err"
timeout 60 "$BIN" "${SIM[@]}" --seed 6 -n 90 --sim-shift 2:1.05@30 -r "$T/new.jsonl" \
	>/dev/null 2>"$T/err"

timeout 60 "$BIN" -R "$T/base.jsonl" --baseline "$T/base.jsonl" -b -f json >"$T/self.json" 2>"$T/err"
if python3 "$CHECK" --self <"$T/self.json" >"$T/self.out"; then pass; else
	fail "a recording against itself: more than 5 % significant: $(cat "$T/self.out")"
fi
cat "$T/self.out"

timeout 60 "$BIN" -R "$T/new.jsonl" --baseline "$T/base.jsonl" -b -f json >"$T/shift.json" 2>"$T/err"
if python3 "$CHECK" --shift 2:30:30 <"$T/shift.json" >"$T/shift.out"; then pass; else
	fail "5 % IPC shift on CPU 2: $(cat "$T/shift.out")"
fi
cat "$T/shift.out"
# the change it reports is the shift: about +5 % on CPU 2 once the recent windows are all
# after it (the 95 % interval of the change holds 5)
check "the change is about +5 %" python3 -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
b = [c for c in recs[-1]["cpus"] if c["cpu"] == 2][0]["baseline"]["ipc"]
sys.exit(0 if abs(b["change"] - 5) <= b["err"] + 1 else 1)' "$T/shift.json"
# the same run without a baseline: no baseline members
timeout 60 "$BIN" -R "$T/new.jsonl" -b -f json >"$T/plain.json" 2>"$T/err"
check "no baseline, no baseline members" bash -c "! grep -q '\"baseline\"' '$T/plain.json'"

# text: the significant changes under the table
timeout 60 "$BIN" -R "$T/new.jsonl" --baseline "$T/base.jsonl" -b -f text >"$T/shift.text" 2>"$T/err"
check "text: the significant change on CPU 2" grep -q '^baseline: cpu 2 ipc +[0-9.]* % (±' "$T/shift.text"

# CSV: a baseline_change line per metric, significant on CPU 2
timeout 60 "$BIN" -R "$T/new.jsonl" --baseline "$T/base.jsonl" -b -f csv >"$T/shift.csv" 2>"$T/err"
check "CSV: baseline_change lines" grep -q '^[0-9.]*,10.000,2,baseline_change,ipc,[0-9.]*,,significant' "$T/shift.csv"
check "CSV: baseline_err lines" grep -q ',0,baseline_err,ipc,[0-9.]*,,ok' "$T/shift.csv"

# the last seconds of this run: the first 30 windows of a live run become the reference
# (:baseline last 0.3s at 10 ms, asked before they are there); CPU 1 shifts from tick 40
timeout 60 "$BIN" "${SIM[@]}" --seed 8 -n 100 --sim-shift 1:1.05@40 -c "baseline last 0.3s" \
	>"$T/last.json" 2>"$T/err"
if python3 "$CHECK" --shift 1:40:30 <"$T/last.json" >"$T/last.out"; then pass; else
	fail "baseline last: $(cat "$T/last.out")"
fi
cat "$T/last.out"
check "no cell compared before the reference is there" python3 -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(0 if "baseline" not in recs[28]["cpus"][0] and "baseline" in recs[31]["cpus"][0] else 1)' \
	"$T/last.json"

# bad input: a missing file, a bad duration, nothing kept yet
run_cmd -R "$T/base.jsonl" --baseline "$T/missing.jsonl" -b -f json
check "missing baseline: an error, exit 2 (rc $RC)" bash -c "[ $RC -eq 2 ] && grep -q 'missing.jsonl' '$T/err'"
mkfifo "$T/fifo.jsonl"
run_cmd -R "$T/base.jsonl" --baseline "$T/fifo.jsonl" -b -f json
check "a FIFO as baseline: refused at once, exit 2 (rc $RC)" bash -c "[ $RC -eq 2 ] && grep -q 'not a regular file' '$T/err'"
run_cmd "${SIM[@]}" -n 3 -c "baseline last soon"
check "bad duration refused" grep -q 'not a duration' "$T/err"
run_cmd "${SIM[@]}" -n 3 -c "baseline last 10m"
check "more than kept refused" grep -q 'windows asked, from 2 to' "$T/err"
run_cmd "${SIM[@]}" -n 3 -c "baseline"
check "no argument refused" test "$RC" -ne 0
t_done

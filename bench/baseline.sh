#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# baseline.sh: how a baseline comparison (--baseline) behaves on the sim over many seeds.
# Usage: bench/baseline.sh [SEEDS]   (default 20; env PMUTOP_BIN)
# A reference of 300 ticks (seed 5, 4 CPUs, cpi); per seed a run of 90 ticks with CPU 2 retiring
# 5 % more instructions from tick 30 (--sim-shift 2:1.05@30) and one without. Prints: the
# recording against itself (share of significant cells), per seed whether the shift is flagged
# on CPU 2 30 ticks after it and on how many other CPUs, and the share of ipc cells flagged on
# unshifted CPUs and in the runs without a shift (the false-positive rate; 5 % expected).
set -u
SEEDS=${1:-20}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${PMUTOP_BIN:-$ROOT/build/pmutop}
CHECK=$ROOT/tests/baseline_check.py
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SIM=(--backend sim --sim-cpus 4 -m cpi -i 10 -b -f json)
"$BIN" "${SIM[@]}" --seed 5 -n 300 -r "$TMP/base.jsonl" >/dev/null 2>&1
echo "self: $("$BIN" -R "$TMP/base.jsonl" --baseline "$TMP/base.jsonl" -b -f json 2>/dev/null |
	python3 "$CHECK" --self)"
for s in $(seq 6 $((SEEDS + 5))); do
	"$BIN" "${SIM[@]}" --seed "$s" -n 90 --sim-shift 2:1.05@30 -r "$TMP/shift.jsonl" >/dev/null 2>&1
	"$BIN" "${SIM[@]}" --seed "$s" -n 90 -r "$TMP/plain.jsonl" >/dev/null 2>&1
	shift=$("$BIN" -R "$TMP/shift.jsonl" --baseline "$TMP/base.jsonl" -b -f json 2>/dev/null |
		python3 "$CHECK" --shift 2:30:30 | tail -1)
	plain=$("$BIN" -R "$TMP/plain.jsonl" --baseline "$TMP/base.jsonl" -b -f json 2>/dev/null |
		python3 "$CHECK" | head -1)
	echo "seed $s shift-at-60 $shift no-shift $plain"
done | python3 -c '
import json, sys
found = others = n = 0
other_share = []
plain_share = []
for line in sys.stdin:
    if line.startswith("self"):
        print(line.strip()); continue
    parts = line.split(" ", 3)
    rest = parts[3]
    at_s, plain_s = rest.split(" no-shift ")
    at = json.loads(at_s.replace("shift-at-60 ", ""))
    plain = json.loads(plain_s)
    n += 1
    found += at.get("2") is True
    others += sum(1 for k, v in at.items() if k != "2" and v)
    plain_share += [v["share"] for v in plain["cpus"].values()]
    print(parts[0], parts[1], "flagged on cpu 2:", at.get("2"), "others:",
          [k for k, v in at.items() if k != "2" and v])
print("seeds %d: shift flagged on its CPU within 30 ticks in %d; other CPUs flagged at that tick: %d of %d (%.1f %%)"
      % (n, found, others, 3 * n, 100.0 * others / max(1, 3 * n)))
print("no shift: ipc cells flagged per frame: mean %.1f %% (5 %% expected)"
      % (100.0 * sum(plain_share) / max(1, len(plain_share))))
'

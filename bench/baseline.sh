#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# baseline.sh: how a baseline comparison (--baseline) behaves on the sim over many seeds.
# Usage: bench/baseline.sh [SEEDS]   (default 20; env PMUTOP_BIN)
# Per seed s (6 .. SEEDS+5): a reference of 300 ticks of seed s+100 (4 CPUs, cpi), a run of 90
# ticks of seed s, and the same run with CPU 2 retiring 5 % more instructions from tick 30
# (--sim-shift 2:1.05@30). Each run has its own reference: one reference shared by all runs
# carries its own chance offset from the true mean into every comparison. tests/fp_check.py
# counts, from pmutop's p-values adjusted by Holm's step-down over a refresh's CPUs (p_adj,
# family-wise 5 %): the share of unshifted IPC cells flagged (all refreshes and only
# refreshes 30 windows apart, which share no window) and of refreshes with any CPU flagged (the
# family-wise false-positive rate), and whether the shift is flagged on CPU 2 30 ticks after it
# and on which other CPUs; then the same from each cell's raw p alone (5 % per cell). 1 s
# windows, run flat out (--sim-unpaced).
set -u
SEEDS=${1:-20}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/lib.sh"
BIN=$(bench_bin)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SIM=(--backend sim --sim-cpus 4 -m cpi -i 1s --sim-unpaced -b -f json)
for s in $(seq 6 $((SEEDS + 5))); do
	"$BIN" "${SIM[@]}" --seed $((s + 100)) -n 300 -r "$TMP/ref$s.jsonl" >/dev/null 2>&1
	"$BIN" "${SIM[@]}" --seed "$s" -n 90 -r "$TMP/plain.jsonl" >/dev/null 2>&1
	"$BIN" "${SIM[@]}" --seed "$s" -n 90 --sim-shift 2:1.05@30 -r "$TMP/shift.jsonl" \
		>/dev/null 2>&1
	"$BIN" -R "$TMP/plain.jsonl" --baseline "$TMP/ref$s.jsonl" -b -f json \
		>"$TMP/plain$s.json" 2>/dev/null
	"$BIN" -R "$TMP/shift.jsonl" --baseline "$TMP/ref$s.jsonl" -b -f json \
		>"$TMP/shift$s.json" 2>/dev/null
done
echo "self: $("$BIN" -R "$TMP/ref6.jsonl" --baseline "$TMP/ref6.jsonl" -b -f json 2>/dev/null |
	python3 "$ROOT/tests/baseline_check.py" --self | head -1)"
python3 "$ROOT/tests/fp_check.py" --plain "$TMP"/plain*.json --shift 2:30:30 "$TMP"/shift*.json
python3 "$ROOT/tests/fp_check.py" --raw --plain "$TMP"/plain*.json --shift 2:30:30 "$TMP"/shift*.json

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_baseline_rows.sh: a baseline on summed rows (--per-core, --per-socket, tasks, cgroups):
# each row's change and p-value against a recording, recomputed by tests/baseline_rows_check.py
# from the recordings' raw counts (summed by the header's topology or row keys, Welch's test
# with its own t integral); a task of another run matched by its name; :baseline last on core
# rows; a recording of CPUs refused as the baseline of a task run.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 needed to check JSON"; exit 77; }
T=$T_TMP
CHECK=$T_SRC/tests/baseline_rows_check.py
SMT=$T_SRC/tests/sysfs/x86-2s-smt
SIM=(--backend sim --no-rc -m cpi -i 10 -b -f json)

# cores and sockets of a two-socket SMT tree; CPU 2 (core S1-D0-C0) retires 10 % more from 30
timeout 60 "$BIN" "${SIM[@]}" --sim-cpus 8 --sysfs-root "$SMT" --seed 5 -n 300 \
	-r "$T/base.jsonl" >/dev/null 2>"$T/err"
timeout 60 "$BIN" "${SIM[@]}" --sim-cpus 8 --sysfs-root "$SMT" --seed 6 -n 90 \
	--sim-shift 2:1.10@30 -r "$T/new.jsonl" >/dev/null 2>"$T/err"
for u in core socket; do
	timeout 60 "$BIN" -R "$T/new.jsonl" --baseline "$T/base.jsonl" --per-$u -b -f json \
		--no-rc >"$T/$u.json" 2>"$T/err"
	if python3 "$CHECK" "$T/new.jsonl" "$T/base.jsonl" "$T/$u.json" $u 60 >"$T/$u.out"; then
		pass
	else
		fail "--per-$u: $(cat "$T/$u.out" "$T/err")"
	fi
	cat "$T/$u.out"
done
check "--per-core: the shifted core's IPC is significant at 60, the change above 2 %" python3 -c '
import json, sys
rec = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][59]
b = [c for c in rec["cpus"] if c["core"] == "S1-D0-C0"][0]["baseline"]["ipc"]
sys.exit(0 if b["significant"] and b["change"] > 2 else 1)' "$T/core.json"

# :baseline last on core rows of a live run
timeout 60 "$BIN" "${SIM[@]}" --sim-cpus 8 --sysfs-root "$SMT" --seed 7 -n 60 --per-core \
	-c "baseline last 0.3s" >"$T/last.json" 2>"$T/err"
check ":baseline last on core rows: every core compared" python3 -c '
import json, sys
rec = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
sys.exit(0 if len(rec["cpus"]) == 4 and all(c["baseline"]["ipc"]["p"] is not None
                                            for c in rec["cpus"]) else 1)' "$T/last.json"

# tasks: two processes of the same name, recorded in two runs; the row matched by the name
sleep 120 &
P1=$!
sleep 120 &
P2=$!
timeout 60 "$BIN" "${SIM[@]}" -p $P1 --seed 3 -n 60 -r "$T/task_a.jsonl" >/dev/null 2>"$T/err"
timeout 60 "$BIN" "${SIM[@]}" -p $P2 --seed 4 -n 60 -r "$T/task_b.jsonl" >/dev/null 2>"$T/err"
timeout 60 "$BIN" -R "$T/task_b.jsonl" --baseline "$T/task_a.jsonl" -b -f json --no-rc \
	>"$T/task.json" 2>"$T/err"
if python3 "$CHECK" "$T/task_b.jsonl" "$T/task_a.jsonl" "$T/task.json" task 40 >"$T/task.out"; then
	pass
else
	fail "tasks: $(cat "$T/task.out" "$T/err")"
fi
cat "$T/task.out"
# the same live: a task run against the recording of the other process
timeout 60 "$BIN" "${SIM[@]}" -p $P2 --seed 4 -n 40 --baseline "$T/task_a.jsonl" \
	>"$T/tasklive.json" 2>"$T/err"
check "a live task run against a task recording: the task's row compared" \
	grep -q '"task":"sleep\[[0-9]*\]".*"baseline":{"cpi":{"change":[-0-9.e]*,"err":[0-9.e]*,"p":[0-9.e]' \
	"$T/tasklive.json"
# two tasks of that name in the recording: which one is meant is not known, none is compared
sleep 120 &
P3=$!
timeout 60 "$BIN" "${SIM[@]}" -p $P1,$P3 --seed 3 -n 40 -r "$T/task_two.jsonl" >/dev/null 2>"$T/err"
timeout 60 "$BIN" "${SIM[@]}" -p $P2 --seed 4 -n 20 --baseline "$T/task_two.jsonl" \
	>"$T/tasktwo.json" 2>"$T/err"
check "two tasks of the name in the recording: the row is not compared" python3 -c '
import json, sys
rec = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
b = rec["cpus"][0].get("baseline")
sys.exit(0 if len(rec["cpus"]) == 1 and (b is None or b["ipc"]["p"] is None) else 1)' \
	"$T/tasktwo.json"
# a recording of CPUs cannot be the baseline of task rows
run_cmd "${SIM[@]}" -p $P2 -n 3 --baseline "$T/base.jsonl"
check "a CPU recording as a task run's baseline: refused, naming why" \
	grep -q 'not a recording of tasks or cgroups' "$T/err"
kill $P1 $P2 $P3 2>/dev/null

# cgroups: the root cgroup's row (a cgroup run on the sim counts its CPUs)
if timeout 20 "$BIN" "${SIM[@]}" -G / --seed 4 -n 40 -r "$T/cg_a.jsonl" >/dev/null 2>"$T/err"; then
	timeout 60 "$BIN" "${SIM[@]}" -G / --seed 5 -n 60 -r "$T/cg_b.jsonl" >/dev/null 2>"$T/err"
	timeout 60 "$BIN" -R "$T/cg_b.jsonl" --baseline "$T/cg_a.jsonl" -b -f json --no-rc \
		>"$T/cg.json" 2>"$T/err"
	if python3 "$CHECK" "$T/cg_b.jsonl" "$T/cg_a.jsonl" "$T/cg.json" cgroup 40 >"$T/cg.out"; then
		pass
	else
		fail "cgroups: $(cat "$T/cg.out" "$T/err")"
	fi
	cat "$T/cg.out"
else
	skip "no cgroup row here: $(head -c 160 "$T/err")"
fi
t_done

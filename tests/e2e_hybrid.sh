#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_hybrid.sh: perf's metric JSON on a hybrid Intel part (Alder Lake: cpu_core P-cores and
# cpu_atom E-cores) against the vendor data itself, linux 6.1's
# tools/perf/pmu-events/arch/x86/alderlake (adl-metrics.json and the event lists, keyed by Unit):
# each core type's TopdownL1 evaluated by hybrid_check.py exactly as perf's JSON writes it, on
# the sim's counts; each mode's events open on its core type's CPUs only (the PMU's cpus file in
# the tree); no repeated JSON keys; --list-modes per core type; Alder Lake-N (one core PMU) gets
# the cpu_atom metrics.
source "$(dirname "$0")/lib.sh"
S=$T_SRC/tests/sysfs
HY=$S/x86-hybrid
DEV=$HY/sys/bus/event_source/devices

kernel_pmu_events "perf's Alder Lake metrics"
ADL=$ARCH/x86/alderlake
SIM=(-b --backend sim --seed 3 -n 3 -i 100 --sim-cpus 8 --no-rc --sysfs-root "$HY" --perf-events "$ARCH")

check "the tree is an Alder Lake (family 6 model 0x9a, perf's mapfile: alderlake)" \
	grep -q "^model[[:space:]]*: 154$" "$HY/proc/cpuinfo"

# --- 1. each core type's TopdownL1 against perf's formulas of its Unit -------------------------
for u in cpu_atom cpu_core; do
	run_cmd --sysfs-root "$HY" --perf-events "$ARCH" --explain "perf:$u.TopdownL1"
	check "--explain perf:$u.TopdownL1 runs" [ "$RC" -eq 0 ]
	cp "$T_TMP/out" "$T_TMP/explain-$u"
	run_cmd "${SIM[@]}" -m "perf:$u.TopdownL1" -f json
	check "perf:$u.TopdownL1 runs on the sim" [ "$RC" -eq 0 ]
	cp "$T_TMP/out" "$T_TMP/batch-$u"
	python3 "$T_SRC/tests/hybrid_check.py" "$ADL" "$u" TopdownL1 "$DEV/$u/cpus" \
		"$T_TMP/explain-$u" "$T_TMP/batch-$u" >"$T_TMP/check-$u" 2>&1
	RC=$?
	cat "$T_TMP/check-$u"
	check "perf:$u.TopdownL1: perf's $u formulas, its events, its CPUs ($(cat "$DEV/$u/cpus")), unique keys" [ "$RC" -eq 0 ]
done
check "the E-core frontend share is over 5 x CPU_CLK_UNHALTED.CORE (SLOTS of Unit cpu_atom), not TOPDOWN.SLOTS" \
	bash -c "grep -q 'tma_frontend_bound .*= 100 \* (TOPDOWN_FE_BOUND.ALL / (5 \* (CPU_CLK_UNHALTED.CORE)))' '$T_TMP/explain-cpu_atom' && ! grep -q 'TOPDOWN.SLOTS' '$T_TMP/explain-cpu_atom'"
check "the P-core events are the cpu_core PMU's topdown-* events" \
	grep -q "cpu_core/topdown-fe-bound/ .*type=4 config=0x8200" "$T_TMP/explain-cpu_core"

# --- 2. a group with metrics per core type needs the core type in its name -------------------
run_cmd "${SIM[@]}" -M TopdownL1 -f json
check "-M TopdownL1 on a hybrid part: refused (exit $RC), both modes named" \
	bash -c "[ $RC -ne 0 ] && grep -q 'perf:cpu_core.TopdownL1 or perf:cpu_atom.TopdownL1' '$T_TMP/err'"

# --- 3. --list-modes: per core type, as perf's JSON has them ------------------------------------
run_cmd --sysfs-root "$HY" --perf-events "$ARCH" --list-modes
check "--list-modes runs" [ "$RC" -eq 0 ]
cp "$T_TMP/out" "$T_TMP/modes"
want=$(python3 -c '
import json, sys
pairs = set()
for m in json.load(open(sys.argv[1])):
    for g in (m.get("MetricGroup") or "").split(";"):
        if g.startswith("TopdownL") and m.get("Unit"):
            pairs.add("perf:%s.%s" % (m["Unit"], g))
print(" ".join(sorted(pairs)))' "$ADL/adl-metrics.json")
have=$(awk '$1 ~ /^perf:cpu_(core|atom)\.TopdownL/ && $2 == "available" { print $1 }' "$T_TMP/modes" | sort | tr '\n' ' ' | sed 's/ $//')
check "the TopdownL* modes are perf's (Unit, MetricGroup) pairs ($want)" [ "$have" = "$want" ]
check "no perf: mode mixes the core types" bash -c "! grep -qE '^perf:Topdown' '$T_TMP/modes'"
run_cmd --sysfs-root "$HY" --perf-events "$ARCH" --list-modes --cpus 0-3
check "--cpus 0-3: the cpu_core mode is available" grep -qE '^perf:cpu_core.TopdownL1 +available' "$T_TMP/out"
check "--cpus 0-3: the cpu_atom mode is not, and says why" \
	grep -qE '^perf:cpu_atom.TopdownL1 +n/a .*cpu_atom CPUs \(4-7\) only, and none of them is monitored \(CPUs 0-3\)' "$T_TMP/out"

# --- 4. the rows follow the mode: a :cpus choice keeps, a mode of every CPU gets them back --------
rows() { python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(r["mode"], ",".join(str(c["cpu"]) for c in r["cpus"] if isinstance(c.get("cpu"), int)))' "$1" | sort -u | tr '\n' ';'; }
run_cmd "${SIM[@]}" -m perf:cpu_core.TopdownL1 -c "cpus 1-5" -f json
check "perf:cpu_core.TopdownL1 with :cpus 1-5 counts CPUs 1-3 ($(rows "$T_TMP/out"))" \
	[ "$(rows "$T_TMP/out")" = "perf:cpu_core.TopdownL1 1,2,3;" ]
run_cmd "${SIM[@]}" -m perf:cpu_atom.TopdownL1 -c "cpus 1-5" -c "mode sw" -f json
check "then :mode sw counts CPUs 1-5 again ($(rows "$T_TMP/out"))" [ "$(rows "$T_TMP/out")" = "sw 1,2,3,4,5;" ]
run_cmd "${SIM[@]}" --cpus 0-3 -m perf:cpu_atom.TopdownL1 -f json
check "-m perf:cpu_atom.TopdownL1 --cpus 0-3: refused, says why" \
	bash -c "[ $RC -ne 0 ] && grep -q 'none of them is monitored' '$T_TMP/err'"

# --- 5. Alder Lake-N (Gracemont alone, one core PMU "cpu"): the model's cpu_atom metrics -------
run_cmd --sysfs-root "$S/x86-gracemont" --perf-events "$ARCH" --explain perf:TopdownL1
check "Alder Lake-N: perf:TopdownL1 is Unit cpu_atom's, over 5 x CPU_CLK_UNHALTED.CORE" \
	bash -c "grep -q 'Unit cpu_atom' '$T_TMP/out' && grep -q 'tma_frontend_bound .*= 100 \* (TOPDOWN_FE_BOUND.ALL / (5 \* (CPU_CLK_UNHALTED.CORE)))' '$T_TMP/out' && ! grep -q 'topdown-fe-bound' '$T_TMP/out'"

t_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_likwid.sh: likwid performance groups as modes (tests/fixtures/likwid): metric values checked
# by hand against the counted events on the sim and on a replay, the arch directory per
# --sysfs-root tree, event set rotation, hostile group files, :likwid-groups in batch and on the
# screen (tmux).
source "$(dirname "$0")/lib.sh"
LK=$T_SRC/tests/fixtures/likwid
SKL=(--backend sim --sim-family skl --sysfs-root "$T_SRC/tests/sysfs/x86-skylake")

# ==== 1. FLOPS on the sim: every metric recomputed from the events of the same record ========
run_cmd "${SKL[@]}" --sim-cpus 2 --likwid-groups "$LK" -m likwid:FLOPS -b -n 3 -i 100ms -f json
check "FLOPS batch exit 0 (got $RC: $(head -c 300 "$T_TMP/err"))" [ "$RC" -eq 0 ]
check "the load is reported" grep -q "likwid groups: 3 of 3 loaded from $LK/skylake for Intel Skylake, 2 with every event mapped" "$T_TMP/err"
# inverseClock = 1 / 3.2 GHz: "Intel(R) Core(TM) i5-6500 CPU @ 3.20GHz" in the tree's cpuinfo
check "FLOPS: metrics as likwid's formulas give them" python3 - "$T_TMP/out" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert len(recs) == 3, len(recs)
inv = 1 / 3.2e9
for r in recs:
    t = r["interval_ms"] / 1000
    for row in r["cpus"] + [r["total"]]:
        e = {k: v["value"] for k, v in row["events"].items()}
        m = row["metrics"]
        want = {
            "Runtime_RDTSC": t,
            "Runtime_unhalted": e["FIXC1"] * inv,
            "Clock": 1e-6 * (e["FIXC1"] / e["FIXC2"]) / inv,
            "CPI": e["FIXC1"] / e["FIXC0"],
            "DP": 1e-6 * (e["PMC0"] * 2 + e["PMC1"] + e["PMC2"] * 4) / t,
            "Vectorization_ratio": 100 * (e["PMC0"] + e["PMC2"]) / (e["PMC0"] + e["PMC1"] + e["PMC2"]),
        }
        assert set(m) == set(want), sorted(m)
        for k, w in want.items():
            assert abs(m[k] - w) <= 1e-5 * abs(w), (k, m[k], w)
print("ok")
PY

# the same group on a replay of that run: the same numbers; the recording names no CPU model (a
# sim run), so inverseClock is n/a and so are the metrics using it
run_cmd "${SKL[@]}" --sim-cpus 2 --likwid-groups "$LK" -m likwid:FLOPS -b -n 3 -i 100ms -f json -r "$T_TMP/flops.jsonl"
cp "$T_TMP/out" "$T_TMP/live.json"
run_cmd --likwid-groups "$LK" -R "$T_TMP/flops.jsonl" -m likwid:FLOPS -b -f json
check "replay: exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "replay: inverseClock unknown is said" grep -q "inverseClock: n/a (nominal clock unknown)" "$T_TMP/err"
check "replay: the live run's metrics, inverseClock ones n/a" python3 - "$T_TMP/live.json" "$T_TMP/out" <<'PY'
import json, sys
live = [json.loads(l) for l in open(sys.argv[1])]
rep = [json.loads(l) for l in open(sys.argv[2])]
assert len(live) == len(rep) == 3
for a, b in zip(live, rep):
    for ra, rb in zip(a["cpus"] + [a["total"]], b["cpus"] + [b["total"]]):
        for k in ("Runtime_RDTSC", "CPI", "DP", "Vectorization_ratio"):
            assert abs(ra["metrics"][k] - rb["metrics"][k]) <= 1e-6 * abs(ra["metrics"][k]), k
        assert rb["metrics"]["Clock"] is None and rb["metrics"]["Runtime_unhalted"] is None
print("ok")
PY

# ==== 2. MIXED: options, unmapped counters named, the metrics without them still run ===========
run_cmd "${SKL[@]}" --sim-cpus 1 --likwid-groups "$LK" -m likwid:MIXED -b -n 2 -i 100ms -f json
check "MIXED batch exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "MIXED: what runs, by hand" python3 - "$T_TMP/out" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    row = r["cpus"][0]
    e = {k: v["value"] for k, v in row["events"].items()}
    m = row["metrics"]
    assert sorted(e) == ["FIXC0", "FIXC1", "PMC0", "PMC1_EDGEDETECT", "PMC2_THRESHOLD_0x2"], sorted(e)
    assert sorted(m) == ["Avg_stall_duration", "CPI", "Cycles_with_2_uops", "Ratio", "Stall_cycles"], sorted(m)
    assert abs(m["Avg_stall_duration"] - e["PMC0"] / e["PMC1_EDGEDETECT"]) < 1e-5 * m["Avg_stall_duration"]
    assert abs(m["Cycles_with_2_uops"] - 100 * e["PMC2_THRESHOLD_0x2"] / e["FIXC1"]) < 1e-5 * m["Cycles_with_2_uops"]
    assert abs(m["Ratio"] - 100 * e["PMC0"] / e["FIXC1"]) < 1e-5 * m["Ratio"]
print("ok")
PY
run_cmd "${SKL[@]}" --likwid-groups "$LK" --explain likwid:MIXED
check "MIXED: EDGEDETECT is libpfm4's e=1" grep -q "PMC1_EDGEDETECT .*skl::UOPS_EXECUTED:STALL_CYCLES:e=1 .*config=0x18401b1" "$T_TMP/out"
check "MIXED: THRESHOLD=0x2 is c=2" grep -q "PMC2_THRESHOLD_0x2 .*skl::UOPS_EXECUTED:THREAD:c=2 .*config=0x20001b1" "$T_TMP/out"

# ==== 3. the arch directory for each tree; a family likwid has none for =====================
for c in "x86-skylake|FLOPS" "silvermont|BRANCH" "arm-a53|CPI"; do
	tree=${c%%|*} group=${c#*|}
	run_cmd --sysfs-root "$T_SRC/tests/sysfs/$tree" --likwid-groups "$LK" --list-modes
	check "$tree: exit 0 ($RC)" [ "$RC" -eq 0 ]
	check "$tree: likwid:$group listed" grep -qE "^likwid:$group +available" "$T_TMP/out"
	check "$tree: only its own arch" [ "$(grep -c '^likwid:' "$T_TMP/out")" -eq "$(ls "$LK/$(case $tree in x86-skylake) echo skylake;; silvermont) echo silvermont;; *) echo arm8;; esac)" | wc -l)" ]
done
run_cmd --sysfs-root "$T_SRC/tests/sysfs/arm-a53" --likwid-groups "$LK" --explain likwid:CPI
check "arm8: architected names become event numbers" grep -qE "PMC2 +r3 " "$T_TMP/out"
run_cmd --sysfs-root "$T_SRC/tests/sysfs/cortex-a9" --likwid-groups "$LK" --list-modes
check "cortex-a9: usage error" [ "$RC" -eq 2 ]
check "cortex-a9: names the family and what is there" grep -q "no likwid group directory for ARM Cortex-A9 (cortex_a9); it has:.*skylake" "$T_TMP/err"
run_cmd --likwid-groups "$LK/skylake" "${SKL[@]}" --list-modes
check "one arch directory given directly" grep -qE "^likwid:FLOPS +available" "$T_TMP/out"
run_cmd --likwid-groups "$T_TMP/none" --list-modes
check "a missing directory: usage error naming it" bash -c "[ $RC -eq 2 ] && grep -q 'none: No such file or directory' '$T_TMP/err'"

# server parts get their own directory, as likwid tells them apart (cpuinfo family 6 model 63:
# Haswell-EP)
HSW=$T_TMP/hsw-tree G=$T_TMP/groups
cp -r "$T_SRC/tests/sysfs/x86-skylake" "$HSW"
echo haswell >"$HSW/sys/bus/event_source/devices/cpu/caps/pmu_name"
mkdir -p "$G/haswell" "$G/haswellEP"
printf 'SHORT %s\nEVENTSET\nFIXC0 INSTR_RETIRED_ANY\nMETRICS\nInstr FIXC0\n' client >"$G/haswell/CLIENT.txt"
printf 'SHORT %s\nEVENTSET\nFIXC0 INSTR_RETIRED_ANY\nMETRICS\nInstr FIXC0\n' server >"$G/haswellEP/SERVER.txt"
for c in "60|CLIENT" "63|SERVER"; do
	sed -i -E "s/^model([[:space:]]+): [0-9]+$/model\1: ${c%%|*}/" "$HSW/proc/cpuinfo"
	run_cmd --sysfs-root "$HSW" --likwid-groups "$G" --list-modes
	check "Haswell model ${c%%|*}: likwid:${c#*|} (from $(grep -o 'loaded from [^ ]*' "$T_TMP/err"))" \
		bash -c "grep -q '^# family: hsw' '$T_TMP/out' && grep -qE '^likwid:${c#*|} +available' '$T_TMP/out'"
done

# ==== 4. more events than counters rotate as built-in modes do ==============================
run_cmd "${SKL[@]}" --likwid-groups "$LK" --list-modes
check "ROTATE needs 6 counters and rotates" grep -qE "^likwid:ROTATE +available +6/4 +2 +0 rotate sets" "$T_TMP/out"
run_cmd "${SKL[@]}" --sim-cpus 1 --likwid-groups "$LK" -m likwid:ROTATE -b -n 4 -i 100ms -f json
check "ROTATE: every metric has a value after two sets" python3 - "$T_TMP/out" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])][-1]
m = r["cpus"][0]["metrics"]
assert len(m) == 6 and all(v is not None for v in m.values()), m
print("ok")
PY

# ==== 5. hostile group files: a message each, no mode from them, no escape on the terminal ===
B=$T_TMP/bad/skylake
mkdir -p "$B"
yes '# a comment line of a group file far too large' | head -c 2200000 >"$B/HUGE.txt"
printf 'SHORT x\nEVENTSET\nFIXC0 INSTR_RETIRED_ANY\0\nMETRICS\nA FIXC0\n' >"$B/BINARY.txt"
{ printf 'SHORT '; head -c 70000 /dev/zero | tr '\0' 'x'; printf '\n'; } >"$B/LONGLINE.txt"
printf 'SHORT \033]0;title\007\nEVENTSET\nFIXC0\033[2J INSTR_RETIRED_ANY\nMETRICS\nA FIXC0\n' >"$B/ESCAPE.txt"
printf 'SHORT x\nEVENTSET\nMBOX0C1 DRAM_READS\nMETRICS\nBW MBOX0C1*64\n' >"$B/UNCORE.txt"
printf 'SHORT x\nEVENTSET\nFIXC0 INSTR_RETIRED_ANY\nMETRICS\nA FIXC0>1\n' >"$B/OPERATOR.txt"
printf 'SHORT x\n' >"$B/bad name.txt"
run_cmd "${SKL[@]}" --likwid-groups "$T_TMP/bad" --list-modes
check "hostile: exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "hostile: no likwid mode registered" [ "$(grep -c '^likwid:' "$T_TMP/out")" -eq 0 ]
for w in "HUGE.txt: .*larger than" "BINARY.txt:3: NUL byte" "LONGLINE.txt:1: .*longer" \
	"ESCAPE.txt:1: control character" "UNCORE.txt: nothing of group UNCORE runs on Intel Skylake: MBOX0C1 DRAM_READS" \
	"OPERATOR.txt: nothing of group OPERATOR runs on Intel Skylake: A: operator \">\" is not supported" "bad name.txt: group name"; do
	check "hostile: $w" grep -qE "$w" "$T_TMP/err"
done
check "hostile: no control character reaches the terminal" bash -c "! grep -qP '[\x00-\x08\x0b-\x1f\x7f]' '$T_TMP/err' '$T_TMP/out'"
check "hostile: 0 of 7 loaded" grep -q "likwid groups: 0 of 7 loaded" "$T_TMP/err"

# ==== 6. :likwid-groups in batch (-c), then the mode; a bad directory changes nothing ========
run_cmd "${SKL[@]}" --sim-cpus 1 -c "likwid-groups $LK" -c "mode likwid:FLOPS" -b -n 1 -i 100ms -f json
check ":likwid-groups then :mode likwid:FLOPS (exit $RC)" grep -q '"mode":"likwid:FLOPS"' "$T_TMP/out"
run_cmd "${SKL[@]}" --sim-cpus 1 -c "likwid-groups $T_TMP/bad/skylake/HUGE.txt" -m cpi -b -n 1 -i 100ms -f json
check ":likwid-groups FILE: refused (exit $RC)" [ "$RC" -ne 0 ]
check ":likwid-groups FILE: a message" grep -q "HUGE.txt: not a directory" "$T_TMP/err"

# ==== 7. on the screen: :likwid-groups DIR, then :mode likwid:F<Tab> ========================
source "$(dirname "$0")/tmuxlib.sh"
tmux_open 120 30
start "${SKL[@]}" --sim-cpus 2 -i 200ms
keys ":likwid-groups $LK" Enter
check "screen: the load is confirmed" wait_for "likwid groups: 3 loaded"
keys ":mode likwid:FL" Tab Enter
check "screen: likwid:FLOPS runs" wait_for "likwid:FLOPS"
check "screen: its metrics are columns" wait_for "Vectorization_ratio|Runtime_RDTSC|CPI"
keys ":likwid-groups $T_TMP/none" Enter
check "screen: a bad directory is named" wait_for "none: No such file or directory"
check "screen: the mode still runs" pane_has "likwid:FLOPS"
keys q
quit_check "screen"
t_done

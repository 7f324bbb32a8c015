#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_topdown.sh: the top-down modes (topdown, topdown2, stallcycles): event encodings per
# family against the vendors' numbers, availability per sysfs tree, shares computed by hand
# from replayed recordings (the all row weighted by slots), the sim's shares adding up to 100 %,
# batch JSON/CSV, record and replay, --remote, and the multiplexing and rotation marks.
source "$(dirname "$0")/lib.sh"
export PMUTOP_BIN=$BIN # the remote stand-in agent runs it
S=$T_SRC/tests/sysfs
R=$T_SRC/tests/fixtures/replay

# explain TREE-ARGS... : --explain with opens not tried, into $T_TMP/out
explain() { LIBPFM_ENCODE_INACTIVE=1 run_cmd --explain "$@"; }
# has_enc ALIAS CONFIG: the explain output encodes ALIAS as CONFIG (perf_event_attr.config)
has_enc() { grep -Eq "^  $1 +(\[sets? [0-9 ]+\] +)?[^ ]+ +type=[0-9]+ config=$2 " "$T_TMP/out"; }
enc() { # enc DESC ALIAS CONFIG
	if has_enc "$2" "$3"; then pass; else fail "$1: $2 is not config=$3: $(grep "^  $2 " "$T_TMP/out")"; fi
}

# --- 1. encodings: event | umask << 8 | cmask << 24 (Intel SDM, AMD PPR, Arm ARM) -------------
explain topdown --sysfs-root "$S/x86-skylake"
check "skl explain runs" [ "$RC" -eq 0 ]
enc "skl IDQ_UOPS_NOT_DELIVERED.CORE = 0x9C/0x01" not_delivered 0x19c
enc "skl UOPS_ISSUED.ANY = 0x0E/0x01" uops_issued 0x10e
enc "skl UOPS_RETIRED.RETIRE_SLOTS = 0xC2/0x02" retire_slots 0x2c2
enc "skl INT_MISC.RECOVERY_CYCLES = 0x0D/0x01" recovery 0x10d
check "skl cycles on the fixed counter (perf generic)" grep -Eq "^  cycles +perf::CYCLES +type=0 config=0 " "$T_TMP/out"
explain topdown2 --sysfs-root "$S/x86-skylake"
enc "skl CYCLES_0_UOPS_DELIV.CORE = 0x9C/0x01 cmask 4" fe_stall_cycles 0x400019c
enc "skl BR_MISP_RETIRED.ALL_BRANCHES = 0xC5/0x00" br_misp 0xc5
enc "skl MACHINE_CLEARS.COUNT = 0xC3/0x01 cmask 1 edge" machine_clears_n 0x10401c3
enc "skl UOPS_RETIRED.MACRO_FUSED = 0xC2/0x04 (TMA Heavy_Operations)" macro_fused 0x4c2
enc "skl CYCLE_ACTIVITY.STALLS_MEM_ANY = 0xA3/0x14 cmask 20" stalls_mem 0x140014a3
enc "skl CYCLE_ACTIVITY.STALLS_TOTAL = 0xA3/0x04 cmask 4" stalls_total 0x40004a3
enc "skl EXE_ACTIVITY.BOUND_ON_STORES = 0xA6/0x40" bound_on_stores 0x40a6
enc "skl EXE_ACTIVITY.1_PORTS_UTIL = 0xA6/0x02" ports_1 0x2a6
enc "skl EXE_ACTIVITY.2_PORTS_UTIL = 0xA6/0x04" ports_2 0x4a6
# SMT on (sysfs smt/active = 1): per-core clocks, as perf's skl-metrics.json CORE_CLKS
for tree in x86-skylake-smt x86-skylake-sp; do
	explain topdown --sysfs-root "$S/$tree"
	enc "$tree CPU_CLK_UNHALTED.THREAD_ANY = 0x3C AnyThread" cycles_any 0x20003c
	enc "$tree INT_MISC.RECOVERY_CYCLES_ANY = 0x0D/0x01 AnyThread" recovery_any 0x20010d
	check "$tree: says SMT on and the per-core formula" grep -q "note: SMT on: slots = 4 x CPU_CLK_UNHALTED.THREAD_ANY / 2" "$T_TMP/out"
done
for fam in snb ivb hsw bdw; do
	explain topdown --backend sim --sim-family $fam
	enc "$fam IDQ_UOPS_NOT_DELIVERED.CORE" not_delivered 0x19c
	enc "$fam UOPS_RETIRED.RETIRE_SLOTS" retire_slots 0x2c2
	enc "$fam INT_MISC.RECOVERY_CYCLES = 0x0D/0x03 cmask 1" recovery 0x100030d
done
explain topdown --sysfs-root "$S/silvermont"
enc "slm NO_ALLOC_CYCLES.NOT_DELIVERED = 0xCA/0x50" no_alloc_fe 0x50ca
enc "slm NO_ALLOC_CYCLES.MISPREDICTS = 0xCA/0x04" no_alloc_mispredict 0x4ca
enc "slm UOPS_RETIRED.ALL = 0xC2/0x10" uops_retired2 0x10c2
explain topdown --backend sim --sim-family glm
enc "glm UOPS_NOT_DELIVERED.ANY = 0x9C/0x00" uops_not_delivered3 0x9c
enc "glm UOPS_ISSUED.ANY = 0x0E/0x00" uops_issued 0xe
enc "glm UOPS_RETIRED.ANY = 0xC2/0x00" uops_retired3 0xc2
enc "glm ISSUE_SLOTS_NOT_CONSUMED.RECOVERY = 0xCA/0x02" recovery_slots3 0x2ca
explain topdown --backend sim --sim-family tmt
enc "tmt TOPDOWN_FE_BOUND.ALL = 0x71" td_fe 0x71
enc "tmt TOPDOWN_BAD_SPECULATION.ALL = 0x73/0x06" td_bad_spec 0x673
enc "tmt TOPDOWN_BE_BOUND.ALL = 0x74" td_be 0x74
enc "tmt TOPDOWN_RETIRING.ALL = 0xC2" td_retiring 0xc2
check "tmt labelled as raw codes" grep -q "note: Tremont TOPDOWN_\* events by raw code" "$T_TMP/out"
# Ice Lake: the kernel's slots (event 0x00 umask 0x04) and topdown-* (umask 0x80..0x83)
explain topdown --sysfs-root "$S/x86-icelake"
enc "icl slots" tslots 0x400
enc "icl topdown-retiring" td_retiring 0x8000
enc "icl topdown-bad-spec" td_bad_spec 0x8100
enc "icl topdown-fe-bound" td_fe 0x8200
enc "icl topdown-be-bound" td_be 0x8300
check "icl: slots leads (first event of the group)" [ "$(grep -Eo '^  [a-z_0-9]+ +cpu/' "$T_TMP/out" | head -1 | awk '{print $1}')" = tslots ]
explain topdown2 --sysfs-root "$S/x86-sapphire"
enc "spr topdown-heavy-ops" td_heavy 0x8400
enc "spr topdown-br-mispredict" td_br_mispredict 0x8500
enc "spr topdown-fetch-lat" td_fetch_lat 0x8600
enc "spr topdown-mem-bound" td_mem_bound 0x8700
# Zen 4: event bits 11:8 go to config bits 35:32 (DE_NO_DISPATCH_PER_SLOT is event 0x1A0)
explain topdown2 --sysfs-root "$S/x86-zen4"
check "zen4 tree is family zen4" grep -q "^# family: zen4" "$T_TMP/out"
enc "zen4 DE_NO_DISPATCH_PER_SLOT.NO_OPS_FROM_FRONTEND = 0x1A0/0x01" fe_no_ops 0x1000001a0
enc "zen4 DE_NO_DISPATCH_PER_SLOT.BACKEND_STALLS = 0x1A0/0x1E" be_stalls 0x100001ea0
enc "zen4 DE_SRC_OP_DISP.ALL = 0xAA/0x07" ops_dispatched 0x7aa
enc "zen4 EX_RET_OPS = 0xC1" ret_ops 0xc1
enc "zen4 NO_OPS_FROM_FRONTEND cmask 6" fe_no_ops_cycles 0x1060001a0
enc "zen4 EX_RET_BRN_MISP = 0xC3" ret_brn_misp 0xc3
enc "zen4 RESYNCS_OR_NC_REDIRECTS = 0x96" resyncs 0x96
enc "zen4 EX_NO_RETIRE.LOAD_NOT_COMPLETE = 0xD6/0xA2" no_retire_load 0xa2d6
enc "zen4 EX_NO_RETIRE.NOT_COMPLETE = 0xD6/0x02" no_retire_any 0x2d6
enc "zen4 EX_RET_UCODE_OPS = 0x1C2" ucode_ops 0x1000000c2
explain topdown --sysfs-root "$S/x86-zen4"
enc "zen4 LS_NOT_HALTED_CYC = 0x76" cycles 0x76
# Arm: OP_RETIRED 0x3A, OP_SPEC 0x3B, STALL_SLOT_BACKEND 0x3D, _FRONTEND 0x3E, STALL_SLOT 0x3F
# arm-neoverse is a Neoverse V1 (MIDR part 0xd40): its own formulas add BR_MIS_PRED 0x10
explain topdown --sysfs-root "$S/arm-neoverse"
check "arm-neoverse tree is family neoverse_v1 (MIDR)" grep -q "^# family: neoverse_v1" "$T_TMP/out"
enc "arm CPU_CYCLES" cycles 0x11
enc "arm STALL_SLOT" stall_slot_v1 0x3f
enc "arm STALL_SLOT_FRONTEND" stall_slot_fe_v1 0x3e
enc "arm STALL_SLOT_BACKEND" stall_slot_be_v1 0x3d
enc "arm OP_RETIRED" op_retired 0x3a
enc "arm OP_SPEC" op_spec 0x3b
enc "arm BR_MIS_PRED" br_mis_pred_v1 0x10
explain stallcycles --sysfs-root "$S/arm-neoverse"
enc "arm STALL_FRONTEND" stall_frontend 0x23
enc "arm STALL_BACKEND" stall_backend 0x24
explain stallcycles --sysfs-root "$S/arm-a53"
for e in "iq_empty_other 0xe0" "iq_empty_icache 0xe1" "iq_empty_utlb 0xe2" "iq_empty_predecode 0xe3" \
	"interlock_int 0xe4" "interlock_agu 0xe5" "interlock_fp 0xe6" "wr_stall_load 0xe7" "wr_stall_store 0xe8"; do
	set -- $e
	enc "a53 implementation-defined" "$1" "$2"
done
check "a53 labelled implementation-defined" grep -q "note: implementation-defined (Cortex-A53 TRM)" "$T_TMP/out"

# --- 2. where each mode is available, and why not ---------------------------------------------
# status MODE: "available"/"n/a" and the rest of the --list-modes line, from $T_TMP/out
status() { awk -v m="$1" '$1 == m {print}' "$T_TMP/out"; }
# st DESC MODE ERE: the --list-modes line of MODE matches ERE
st() {
	if status "$2" | grep -Eq -- "$3"; then pass; else fail "$1: $(status "$2")"; fi
}
lm() { run_cmd --list-modes --sysfs-root "$S/$1"; }
lm x86-icelake
st "icl topdown: no programmable counter, no multiplexing" topdown "available +0/8 +1 +4 +no "
st "icl topdown2: level 1 only" topdown2 "n/a .*level 1 only"
lm x86-sapphire
st "spr topdown2 available" topdown2 "available +0/8 +1 +8 +no "
lm x86-skylake
st "skl topdown fits 4 counters" topdown "available +4/4 +1 +0 +no "
st "skl topdown2 rotates" topdown2 "available +13/4 .*rotate sets"
lm arm-neoverse
st "neoverse (V1) topdown available: 6 events with BR_MIS_PRED" topdown "available +6/6 +1 "
st "neoverse stallcycles available" stallcycles "available +2/6 +1 "
lm arm-a53
st "a53 topdown: no STALL_SLOT" topdown "n/a .*no STALL_SLOT events"
st "a53 stallcycles: implementation-defined" stallcycles "available .*\\[implementation-defined"
lm arm-biglittle
st "big.LITTLE: the A72 has no stall events" stallcycles "n/a .*armv8_cortex_a72: "
lm x86-hybrid
st "hybrid: says why" topdown "n/a .*hybrid part.*different top-down events"
for t in cortex-a9 armv6 xscale; do
	lm $t
	st "$t topdown unavailable with a reason" topdown "n/a .*(ARMv7|ARM11|XScale) PMUs have no"
done
# a machine without a PMU: the same clear refusal as other hardware modes
run_cmd --sysfs-root "$S/x86-vm-nopmu" -m topdown -b -n 1
check "no PMU: refused" [ "$RC" -eq 1 ]
check "no PMU: says why" grep -q "mode topdown is not available.*needs a hardware PMU" "$T_TMP/err"

# --- 3. formulas on replayed data, shares computed by hand ------------------------------------
# metrics FILE ARGS...: replays FILE as JSON; prints "cpu metric value" lines (cpu "all")
metrics() {
	local f=$1
	shift
	timeout 30 "$BIN" -R "$f" -b -f json "$@" 2>"$T_TMP/err" | python3 -c '
import json, sys
for line in sys.stdin:
    o = json.loads(line)
    rows = [(str(c["cpu"]), c["metrics"]) for c in o["cpus"]] + [("all", o["total"]["metrics"])]
    for cpu, m in rows:
        for k, v in m.items():
            print(cpu, k, "n/a" if v is None else "%.4f" % v)'
}
# near GOT WANT: equal within 0.001 (the JSON has 6 significant digits)
near() { python3 -c 'import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > 1e-3)' "$1" "$2" 2>/dev/null; }
want() { # want DESC FILE CPU METRIC VALUE
	local got
	got=$(awk -v c="$3" -v m="$4" '$1 == c && $2 == m {print $3}' "$2" | tail -1)
	if near "$got" "$5"; then pass; else fail "$1: cpu $3 $4 = ${got:-missing}, want $5"; fi
}
# Skylake, 4-wide. CPU 0: 1M cycles = 4M slots; not delivered 0.8M, issued 1.6M, retire slots
# 1.4M, recovery 25k cycles: frontend 0.8/4 = 20 %, bad spec (1.6 - 1.4 + 0.1)/4 = 7.5 %,
# retiring 1.4/4 = 35 %, backend 37.5 %. CPU 1: 3M cycles = 12M slots; 1.2M, 6.6M, 6.0M, 150k:
# 10 %, (6.6 - 6.0 + 0.6)/12 = 10 %, 50 %, 30 %. The all row sums the counts (16M slots):
# frontend 2.0/16 = 12.5 % (not the mean 15 %), bad spec (8.2 - 7.4 + 0.7)/16 = 9.375 %,
# retiring 7.4/16 = 46.25 %, backend 31.875 %.
metrics "$R/topdown-skl.jsonl" >"$T_TMP/skl.m"
for x in "0 frontend 20" "0 bad_spec 7.5" "0 backend 37.5" "0 retiring 35" \
	"1 frontend 10" "1 bad_spec 10" "1 backend 30" "1 retiring 50" \
	"all frontend 12.5" "all bad_spec 9.375" "all backend 31.875" "all retiring 46.25"; do
	set -- $x
	want "skl replay" "$T_TMP/skl.m" "$1" "$2" "$3"
done
check "skl: no smt_contention outside Zen 4" grep -q "^all smt_contention n/a" "$T_TMP/skl.m"
# Arm, caps/slots = 8 (header "slots"). CPU 0: 1M cycles = 8M slots; STALL_SLOT_FRONTEND 1.6M
# (20 %), _BACKEND 2.4M (30 %), STALL_SLOT 4.0M, OP_RETIRED/OP_SPEC = 2.8/3.2 = 0.875:
# retiring 0.875 x (1 - 4/8) = 43.75 %, bad spec 0.125 x 0.5 = 6.25 %. CPU 1: 2M cycles = 16M
# slots; 0.8M (5 %), 8.0M (50 %), 8.8M, 5.4/6.0 = 0.9: retiring 0.9 x 0.45 = 40.5 %, bad spec
# 4.5 %. All: 24M slots; frontend 2.4/24 = 10 %, backend 10.4/24 = 43.3333 %, 1 - 12.8/24 =
# 0.466667 of the slots issued, 8.2/9.2 of them retired: retiring 41.5942 %, bad spec 5.0725 %.
metrics "$R/topdown-arm.jsonl" >"$T_TMP/arm.m"
for x in "0 frontend 20" "0 backend 30" "0 retiring 43.75" "0 bad_spec 6.25" \
	"1 frontend 5" "1 backend 50" "1 retiring 40.5" "1 bad_spec 4.5" \
	"all frontend 10" "all backend 43.3333" "all retiring 41.5942" "all bad_spec 5.0725"; do
	set -- $x
	want "arm replay" "$T_TMP/arm.m" "$1" "$2" "$3"
done
# without caps/slots in the recording the Arm shares are n/a, never a guess
sed 's/"slots":8,//' "$R/topdown-arm.jsonl" >"$T_TMP/noslots.jsonl"
metrics "$T_TMP/noslots.jsonl" >"$T_TMP/noslots.m"
check "no slots: frontend n/a" grep -q "^all frontend n/a" "$T_TMP/noslots.m"
check "no slots: retiring n/a" grep -q "^0 retiring n/a" "$T_TMP/noslots.m"
sed 's/"slots":8,/"slots":1000,/' "$R/topdown-arm.jsonl" >"$T_TMP/badslots.jsonl"
run_cmd -R "$T_TMP/badslots.jsonl" -b -n 1
check "bad header slots: refused" [ "$RC" -ne 0 ]
check "bad header slots: says which" grep -q '"slots" must be an integer from 1 to 64' "$T_TMP/err"

# --- 4. the sim: consistent sub-counts, shares add up to 100 % on every row -------------------
# sums FILE METRICS...: per JSON line and row, the sum of METRICS (rows with any n/a skipped);
# prints the largest distance from 100 and the number of rows summed
sums() {
	python3 -c '
import json, sys
names = sys.argv[2:]
worst, n = 0.0, 0
for line in open(sys.argv[1]):
    o = json.loads(line)
    for m in [c["metrics"] for c in o["cpus"]] + [o["total"]["metrics"]]:
        v = [m.get(k) for k in names]
        if any(x is None for x in v):
            continue
        n += 1
        worst = max(worst, abs(sum(v) - 100))
print("%.6f %d" % (worst, n))' "$@"
}
L1="frontend bad_spec backend retiring"
L2="fe_latency fe_bandwidth br_mispredict machine_clears memory_bound core_bound light_ops heavy_ops"
for fam in snb skl skx skl_smt skx_smt icl icx spr slm glm tmt grt zen4 armv8; do
	run_cmd -i 10 --backend sim --sim-family $fam --sim-cpus 3 -m topdown -b -n 6 -f json
	read -r worst rows < <(sums "$T_TMP/out" $L1)
	check "sim $fam: level 1 adds up to 100 % (off by $worst over $rows rows)" \
		python3 -c "import sys; sys.exit(not ($rows >= 12 and $worst < 0.01))"
done
for fam in skl skx_smt spr zen4; do
	run_cmd -i 10 --backend sim --sim-family $fam --sim-cpus 3 -m topdown2 -b -n 8 -f json
	read -r worst rows < <(sums "$T_TMP/out" $L2)
	check "sim $fam: level 2 adds up to 100 % (off by $worst over $rows rows)" \
		python3 -c "import sys; sys.exit(not ($rows >= 8 and $worst < 0.01))"
done
run_cmd -i 10 --backend sim --sim-family zen4 --sim-cpus 2 -m topdown -b -n 2 -f json
check "zen4 sim: SMT contention between 0 and 10 %" python3 -c '
import json, sys
v = [json.loads(l)["total"]["metrics"]["smt_contention"] for l in open(sys.argv[1])]
sys.exit(not all(x is not None and 0 < x < 10 for x in v))' "$T_TMP/out"
run_cmd -i 10 --backend sim --sim-family cortex_a53 -m stallcycles -b -n 4 -f json
check "a53 sim stall cycles within 0..100 %" python3 -c '
import json, sys
v = [m for l in open(sys.argv[1]) for m in (json.loads(l)["total"]["metrics"],)]
sys.exit(not all(m["fe_stall"] is not None and 0 < m["fe_stall"] + m["be_stall"] < 100 for m in v[1:]))' "$T_TMP/out"

# --- 5. batch CSV, record and replay, remote --------------------------------------------------
run_cmd -i 10 --backend sim --sim-family skl --sim-cpus 2 -m topdown -b -n 2 -f csv
# 2 ticks x (2 CPUs + the all row) x 4 shares
check "csv: metric rows" [ "$(grep -Ec ',metric,(frontend|bad_spec|backend|retiring),[0-9]' "$T_TMP/out")" -eq 24 ]
for fam in skl armv8 zen4; do
	run_cmd -i 10 --backend sim --sim-family $fam --sim-cpus 2 -m topdown -b -n 4 -f json -r "$T_TMP/$fam.jsonl"
	cp "$T_TMP/out" "$T_TMP/live.json"
	metrics "$T_TMP/$fam.jsonl" >"$T_TMP/replayed.m"
	python3 -c '
import json, sys
live = []
for line in open(sys.argv[1]):
    o = json.loads(line)
    for c in o["cpus"]:
        live += [(str(c["cpu"]), k, v) for k, v in c["metrics"].items()]
    live += [("all", k, v) for k, v in o["total"]["metrics"].items()]
got = [l.split() for l in open(sys.argv[2])]
want = [(c, k, "n/a" if v is None else "%.4f" % v) for c, k, v in live]
sys.exit(got != [list(w) for w in want])' "$T_TMP/live.json" "$T_TMP/replayed.m"
	check "$fam: the replay gives the live values" [ $? -eq 0 ]
done
check "armv8 sim recording carries caps/slots" grep -q '"slots":4' "$T_TMP/armv8.jsonl"
check "skl recording has no slots key" bash -c "! grep -q '\"slots\":' '$T_TMP/skl.jsonl'"
TR=$T_SRC/tests/fixtures/replay/fake-transport.sh
for fam in skl armv8; do
	FAKE_PIDS=$T_TMP/pids timeout 30 "$BIN" -b --remote board --transport "$TR" \
		--agent "pmutop --sim-family $fam" -m topdown -i 100 -n 4 -f json >"$T_TMP/remote.json" 2>"$T_TMP/remote.err"
	check "remote $fam: runs ($(head -c 300 "$T_TMP/remote.err"))" [ $? -eq 0 ]
	read -r worst rows < <(sums "$T_TMP/remote.json" $L1)
	check "remote $fam: shares add up to 100 % (off by $worst over $rows rows)" \
		python3 -c "import sys; sys.exit(not ($rows >= 9 and $worst < 0.01))"
	check "remote $fam: the remote source" grep -q '"backend":"remote","mode":"topdown"' "$T_TMP/remote.json"
done

# --- 6. marks: multiplexed (scaled) counts and rotated sets ------------------------------------
run_cmd -i 10 --backend sim --sim-family skl --sim-cpus 2 -m topdown -b -n 2 -f json --sim-mux 0.5
check "multiplexed: the events are scaled at 50 %" python3 -c '
import json, sys
o = json.loads(open(sys.argv[1]).read().splitlines()[-1])
ev = o["cpus"][0]["events"]
sys.exit(not all(e["state"] == "scaled" and e["running"] == 0.5 for e in ev.values()))' "$T_TMP/out"
read -r worst rows < <(sums "$T_TMP/out" $L1)
check "multiplexed: still 100 % (scaled together)" python3 -c "import sys; sys.exit(not ($rows >= 6 and $worst < 0.01))"
run_cmd -i 10 --backend sim --sim-family skl --sim-cpus 2 -m topdown -b -n 3 -f json
check "one group on 4 counters: no split mark" bash -c "! grep -q split_metrics '$T_TMP/out'"
run_cmd -i 10 --backend sim --sim-family skl --sim-cpus 2 -m topdown2 -b -n 6 -f json
check "skl topdown2 rotates: memory_bound carries the split mark" python3 -c '
import json, sys
o = json.loads(open(sys.argv[1]).read().splitlines()[-1])
sys.exit("memory_bound" not in o.get("split_metrics", []))' "$T_TMP/out"
run_cmd -i 10 --backend sim --sim-family skl --sim-cpus 2 -m topdown2 -b -n 6
check "text: the split footnote" grep -q "^\* combines events measured in different ticks" "$T_TMP/out"
run_cmd -i 10 --backend sim --sim-family spr --sim-cpus 2 -m topdown2 -b -n 3 -f json
check "spr topdown2 (one slots group): no split mark" bash -c "! grep -q split_metrics '$T_TMP/out'"
run_cmd -i 10 --backend sim --sim-family slm --sim-cpus 2 -m topdown -b -n 4 -f json
check "slm (2 counters): backend combines rotated sets, marked every tick" python3 -c '
import json, sys
s = [json.loads(l).get("split_metrics", []) for l in open(sys.argv[1])][1:]
sys.exit(not (s and all("backend" in x for x in s) and any("frontend" not in x for x in s)))' "$T_TMP/out"
t_done

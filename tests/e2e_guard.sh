#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_guard.sh: the validity guard in batch output: each failure-shape recording (zeros on a busy
# CPU, impossible rates, frozen counters, identical deltas) replayed is flagged in JSON, text and
# the log; valid data (live software counters, a recording of them, the sim) is never flagged.
source "$(dirname "$0")/lib.sh"
G=$T_SRC/tests/fixtures/guard

# reason_of FILE CPU EVENT: the guard's reason for that count in the last JSON record
reason_of() {
	python3 -c 'import json,sys
last=[json.loads(l) for l in open(sys.argv[1])][-1]
cpu=sys.argv[2] if sys.argv[2]=="total" else int(sys.argv[2])
r=[x["reason"] for x in last.get("invalid",[]) if x["cpu"]==cpu and x["event"]==sys.argv[3]]
print(r[0] if r else "none")' "$@"
}
# state_of FILE CPU EVENT: the count's state in the last JSON record
state_of() {
	python3 -c 'import json,sys
last=[json.loads(l) for l in open(sys.argv[1])][-1]
row=[c for c in last["cpus"] if c["cpu"]==int(sys.argv[2])][0]
print(row["events"][sys.argv[3]]["state"])' "$@"
}
for shape in "zeros 0 cycles zero_busy" "zeros 1 instructions zero_busy" \
	"rates 1 cycles cycle_rate" "rates 1 instructions inst_rate" \
	"rates total instructions inst_rate" "frozen 0 cycles frozen" "frozen 0 branches frozen" \
	"identical 1 branch_misses identical"; do
	set -- $shape
	run_cmd -b --no-rc -R "$G/$1.jsonl" -f json
	check "$1: exit 0" [ "$RC" = 0 ]
	check "$1: CPU $2 $3 flagged $4" [ "$(reason_of "$T_TMP/out" "$2" "$3")" = "$4" ]
	if [ "$2" != total ]; then
		check "$1: CPU $2 $3 state invalid" [ "$(state_of "$T_TMP/out" "$2" "$3")" = invalid ]
	fi
	check "$1: the log names it" grep -q "^pmutop: invalid $3: " "$T_TMP/err"
done
# a clean CPU of a shape stays valid
run_cmd -b --no-rc -R "$G/rates.jsonl" -f json
check "rates: CPU 0 not flagged" [ "$(reason_of "$T_TMP/out" 0 cycles)" = none ]
# text: the cells say invalid, the line says why
run_cmd -b --no-rc -R "$G/zeros.jsonl"
check "text: invalid cells" grep -Eq '^ +0 +invalid ' "$T_TMP/out"
check "text: the reason line" grep -qF \
	'invalid: the cpu PMU returns 0 for cycles on CPU 0 while /proc/stat shows it 95 % busy' \
	"$T_TMP/out"
# CSV carries the state too
run_cmd -b --no-rc -R "$G/frozen.jsonl" -f csv
check "csv: runs" [ "$RC" = 0 ]

# valid data: live software counters (this machine's /proc/stat busy figures), their
# recording replayed, and the sim: no flag
run_cmd -b --no-rc -m sw -i 100 -n 30 -f json -r "$T_TMP/live.jsonl"
if [ "$RC" = 0 ]; then
	check "live sw: no invalid member in 30 records" bash -c '! grep -q "\"invalid\"" "$1"' _ \
		"$T_TMP/out"
	check "live sw: no invalid message" bash -c '! grep -q "invalid" "$1"' _ "$T_TMP/err"
	run_cmd -b --no-rc -R "$T_TMP/live.jsonl" -f json
	check "live sw replayed: no invalid member" bash -c '! grep -q "\"invalid\"" "$1"' _ \
		"$T_TMP/out"
else
	skip "live sw: software counters do not open here: $(head -1 "$T_TMP/err")"
fi
run_cmd -b --no-rc --backend sim --sim-family skl -m cpi -i 10 -n 300 -f json
check "sim: no invalid member in 300 records" bash -c '! grep -q "\"invalid\"" "$1"' _ "$T_TMP/out"

# the run-time holders line: a dump of a busy host, pmutop multiplexed at 50 %
run_cmd -b --no-rc --backend sim --sim-mux 0.5 -m cpi -i 100 -n 1 \
	--owners-from "$T_SRC/tests/fixtures/owners/zen4-busy.json"
check "holders: perf blamed for the multiplexing" grep -qxF \
	'owner: pid 4242 perf holds cycles,instructions on CPUs 0-1, ran 50 % of its time: your cpi mode multiplexes at 50 %' \
	"$T_TMP/out"
check "holders: the watchdog's fix" grep -qxF \
	'owner: counter 0 on CPU 0 held by the NMI watchdog (sysctl kernel.nmi_watchdog=0 frees it)' \
	"$T_TMP/out"
run_cmd -b --no-rc --backend sim --sim-mux 0.5 -m cpi -i 100 -n 1 -f json \
	--owners-from "$T_SRC/tests/fixtures/owners/zen4-busy.json"
check "holders: JSON owners member" python3 -c 'import json,sys
o=json.loads(open(sys.argv[1]).readline())["owners"]
assert o["source"]=="fixture" and o["events"]==9, o
assert any(h.startswith("pid 4242 perf holds cycles") for h in o["holders"]), o' "$T_TMP/out"
# recordings and the agent's stream carry the holders (as marks), and their counts are checked
# again where they are read
AGENT=${PMUTOP_AGENT_BIN:-$T_SRC/build/pmutop-agent}
timeout 30 "$AGENT" -b --no-rc --backend sim --sim-mux 0.5 -m cpi -i 100 -n 3 -r - \
	--owners-from "$T_SRC/tests/fixtures/owners/zen4-busy.json" 2>/dev/null >"$T_TMP/agent.jsonl"
run_cmd -b --no-rc -R "$T_TMP/agent.jsonl"
check "agent stream: the holders arrive as marks" grep -qF \
	'mark at 0.0 s: owner: pid 4242 perf holds cycles,instructions on CPUs 0-1, ran 50 % of its time' \
	"$T_TMP/err"
timeout 30 "$AGENT" -b --no-rc -R "$G/zeros.jsonl" -r - 2>/dev/null >"$T_TMP/zeros-agent.jsonl"
run_cmd -b --no-rc -R "$T_TMP/zeros-agent.jsonl" -f json
check "agent stream: zero cycles flagged where it is read" \
	[ "$(reason_of "$T_TMP/out" 0 cycles)" = zero_busy ]
# --explain names them with the fix
run_cmd --explain cpi --owners-from "$T_SRC/tests/fixtures/owners/zen4-busy.json" \
	--sysfs-root "$T_SRC/tests/sysfs/x86-zen4"
check "explain: the watchdog's holder line" grep -qxF \
	'# holder: counter 0 on CPU 0 held by the NMI watchdog (sysctl kernel.nmi_watchdog=0 frees it)' \
	"$T_TMP/out"
t_done

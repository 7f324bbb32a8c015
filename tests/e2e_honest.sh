#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_honest.sh: no displayed number is impossible. A share never shows past 100 % (counted with
# a cpu-clock read a little past the tick, as read skew gives on real machines); pmutop, one
# thread, never uses more than 100 % of a CPU (a batch replay runs flat out); the sim counts no
# more retired branches than instructions on any family (branch_pct <= 100).
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }

# a recording whose cpu-clock delta is 10 us past the 100 ms tick
run_cmd -b -n 3 -i 100 --no-rc --backend sim --sim-cpus 1 -m sw -r "$T_TMP/rec.jsonl"
python3 - "$T_TMP/rec.jsonl" "$T_TMP/skew.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
events = next(o for o in recs if o["type"] == "mode")["events"]
clock = next(i for i, e in enumerate(events) if e["name"] == "clock")
for o in recs:
    if o["type"] == "tick" and o["t"] > 0:
        o["cpus"][0]["c"][clock][0] += 10000  # cumulative: the first delta grows by 10 us
open(sys.argv[2], "w").write("".join(json.dumps(o) + "\n" for o in recs))
PY
run_cmd -b --no-rc -R "$T_TMP/skew.jsonl" -f json
check "the skewed recording replays ($RC: $(head -c 200 "$T_TMP/err"))" [ "$RC" -eq 0 ]
check "the first tick's cpu-clock is past the tick ($(head -1 "$T_TMP/out" | jq -c '.cpus[0].events.clock.value'))" \
	bash -c "head -1 '$T_TMP/out' | jq -e '.cpus[0].events.clock.value > 100000000' >/dev/null"
check "counted % never past 100 ($(jq -c '.total.metrics.counted' "$T_TMP/out" | tr '\n' ' '))" \
	bash -c "jq -s -e 'all(.[]; [.cpus[].metrics.counted, .total.metrics.counted] | all(. <= 100))' '$T_TMP/out' >/dev/null"

# a batch replay runs flat out: pmutop's own CPU use stays within one CPU
run_cmd -b -n 200 -i 10 --no-rc --backend sim --sim-cpus 4 -m cpi -r "$T_TMP/long.jsonl"
run_cmd -b --no-rc -R "$T_TMP/long.jsonl" -f json
max=$(jq -s '[.[].self.cpu_pct // 0] | max' "$T_TMP/out")
check "batch replay: self at most 100 % of a CPU (max $max)" \
	bash -c "jq -s -e '[.[].self.cpu_pct // 0] | max <= 100' '$T_TMP/out' >/dev/null"

# retired branches are instructions: never more of them, on any family the sim stands for
for fam in generic skl icl spr zen zen4 armv8; do
	run_cmd -b -n 3 -i 100 --no-rc --backend sim --sim-cpus 2 --sim-family "$fam" -m branch -f json
	if [ "$RC" -ne 0 ]; then
		fail "$fam: -m branch failed ($RC: $(head -c 200 "$T_TMP/err"))"
		continue
	fi
	check "$fam: branches <= instructions and branch_pct <= 100 ($(tail -1 "$T_TMP/out" | jq -c '.total.metrics.branch_pct'))" \
		bash -c "jq -s -e 'all(.[]; all(.cpus[]; .events.branches.value <= .events.instructions.value and .metrics.branch_pct <= 100))' '$T_TMP/out' >/dev/null"
done
t_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_counter_reset.sh: a counter reset inside a recording (a board rebooted, a counter re-opened:
# count, enabled and running time start again) is a gap: the tick of the reset has no value
# (invalid, with a warning naming the line), the ticks after it count from the reset again. Never
# a wrong rate from a delta across the reset.
source "$(dirname "$0")/lib.sh"
T=$T_TMP
# 2e9 cycles/s and 1e9 instructions/s on CPU 0, ticks of 100 ms; the counters restart half way
# through tick 6 (t = 0.6 s): cumulative values from 0 again
python3 - >"$T/reset.jsonl" <<'EOF'
import json
print(json.dumps({"type": "header", "format": "pmutop-recording", "version": 1, "pmutop": "0.1.0",
                  "host": "board", "kernel": "6.1.0", "pmu": "", "family": "generic", "model": "",
                  "cpus": [0], "interval_ms": 100, "backend": "sim", "simulated": True,
                  "start_time": 1700000000}, separators=(",", ":")))
print('{"type":"mode","t":0.0,"name":"cpi","events":[{"name":"cycles","spec":"perf::CYCLES","encoding":null},{"name":"instructions","spec":"perf::INSTRUCTIONS","encoding":null}]}')
for k in range(0, 13):
    ns = 100000000 * k if k < 6 else 100000000 * (k - 6) + 50000000  # enabled, ns since (re)start
    c = [[2 * ns, ns, ns], [ns, ns, ns]]
    print(json.dumps({"type": "tick", "t": k / 10, "interval_ms": 100.0,
                      "cpus": [{"cpu": 0, "c": c}]}, separators=(",", ":")))
EOF
timeout 30 "$BIN" -b -R "$T/reset.jsonl" -f csv >"$T/out.csv" 2>"$T/err" </dev/null
RC=$?
check "exit 0 ($(cat "$T/err"))" [ "$RC" = 0 ]
check "the reset is a warning with its line ($(cat "$T/err"))" \
	grep -q 'reset.jsonl:9: tick: CPU 0 counter 1 and 1 more: counters reset (counts and times start again); a gap' "$T/err"
check "no tick skipped" bash -c "! grep -q 'tick skipped' '$T/err'"
# every tick from 0.1 to 1.2 s: 12 ticks, the one of the reset (0.6 s) invalid, the others 2e8
check "12 ticks" [ "$(grep -c '^[0-9.]*,[0-9.]*,0,event,cycles,' "$T/out.csv")" = 12 ]
check "the tick of the reset has no value" grep -q '^0.600000,100.000,0,event,cycles,,[^,]*,invalid' "$T/out.csv"
check "before and after the reset: 2e8 cycles per tick, never another value" \
	bash -c "[ \"\$(grep ',0,event,cycles,' '$T/out.csv' | grep -v '^0.600000' | cut -d, -f6 | sort -u)\" = 200000000 ]"
check "the metrics of the reset tick are n/a" grep -q '^0.600000,100.000,0,metric,ghz,,,n/a' "$T/out.csv"
check "the rate right after the reset: 2e9 cycles/s (ghz 2)" grep -q '^0.700000,100.000,0,metric,ghz,2,' "$T/out.csv"
check "no interval spans the reset" bash -c "! grep -q '^[0-9.]*,[^1][0-9.]*,0,event' '$T/out.csv'"
t_done

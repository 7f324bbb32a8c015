#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# live_accuracy.sh: how close the live software counts come to the wall clock on this machine.
# Usage: bench/live_accuracy.sh [TICKS [INTERVAL_MS]]   (default 10 ticks of 300 ms; env PMUTOP_BIN)
# Per CPU over the ticks: cpu-clock / interval, (proc busy + idle) / interval, msr/tsc in GHz.
# Exit status 1 when a tick is outside cpu-clock 0.8..1.2, busy + idle within 3 clock ticks + 5 %,
# or TSC 0.1..10 GHz (a loaded machine can do that: these figures are not tests).
set -u
TICKS=${1:-10}
MS=${2:-300}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/lib.sh"
BIN=$(bench_bin)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$BIN" -b -n "$TICKS" -i "$MS" -f json -e cpu-clock,msr/tsc/,proc/busy/,proc/idle/ \
	>"$TMP/out.json" 2>"$TMP/err" || { echo "pmutop failed: $(cat "$TMP/err")"; exit 1; }
python3 - "$TMP/out.json" "$(getconf CLK_TCK)" "$MS" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
jiffy = 1e9 / int(sys.argv[2])
rows, bad = {}, 0
for r in recs[1:]:  # the first tick starts the deltas
    dt = r["interval_ms"] * 1e6
    for c in r["cpus"]:
        e = c["events"]
        v = lambda k: e.get(k, {}).get("value")
        clock, tsc, busy, idle = v("cpu_clock"), v("msr_tsc"), v("proc_busy"), v("proc_idle")
        d = rows.setdefault(c["cpu"], {"clock": [], "proc": [], "ghz": []})
        if clock is not None:
            d["clock"].append(clock / dt)
            bad += not (0.8 < clock / dt < 1.2)
        if busy is not None and idle is not None:
            d["proc"].append((busy + idle) / dt)
            bad += abs(busy + idle - dt) > 3 * jiffy + 0.05 * dt
        if tsc is not None:
            d["ghz"].append(tsc / dt)
            bad += not (0.1 < tsc / dt < 10)
span = lambda xs: "%.3f..%.3f" % (min(xs), max(xs)) if xs else "-"
print("%d ticks of %s ms" % (len(recs) - 1, sys.argv[3]))
print("%5s %18s %18s %18s" % ("cpu", "cpu-clock/interval", "(busy+idle)/intvl", "tsc GHz"))
for cpu in sorted(rows):
    d = rows[cpu]
    print("%5d %18s %18s %18s" % (cpu, span(d["clock"]), span(d["proc"]), span(d["ghz"])))
print("outside the bounds: %d" % bad)
sys.exit(1 if bad else 0)
PY

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_errbars_remote.sh: error bars through the agent: pmutop --remote (the agent on the sim
# backend behind a stand-in transport) shows and prints the same +- values as a local run of the
# same sim seed, in JSON, CSV and text, on CPU rows, summed rows and rotated sets; and a recording
# of the remote run replays with them.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 needed to compare JSON"; exit 77; }
AGENT=${PMUTOP_AGENT_BIN:?PMUTOP_AGENT_BIN not set}
T=$T_TMP

# same NAME "SIM ARGS" ARGS...: a run on the board through the agent (SIM ARGS are the board's
# sim options) and a local run of the same sim, both with --error, into $T/NAME.remote, .local
same() {
	local name=$1 sim=$2
	shift 2
	# like ssh: drops "-- HOST" and joins the rest into one line for a shell
	printf '#!/bin/sh\nshift 2\nexec sh -c "$* --backend sim %s"\n' "$sim" >"$T/transport.sh"
	chmod +x "$T/transport.sh"
	# shellcheck disable=SC2086 # SIM ARGS are words
	timeout 120 "$BIN" -b --remote board --transport "$T/transport.sh" --agent "$AGENT" \
		--error "$@" >"$T/$name.remote" 2>"$T/$name.err" </dev/null
	timeout 120 "$BIN" -b --backend sim $sim --error "$@" >"$T/$name.local" 2>>"$T/$name.err" \
		</dev/null
}

# JSON: every record's intervals (metrics_err, each count's err) on every row and the all row
same_json() {
	python3 -c '
import json, sys
def errs(path):
    out = []
    for line in open(path):
        r = json.loads(line)
        for row in r["cpus"] + [r["total"]]:
            out.append(row["metrics_err"])
            out.append({k: v.get("err") for k, v in row["events"].items()})
    return out
a, b = errs(sys.argv[1]), errs(sys.argv[2])
nonzero = sum(1 for d in a for v in d.values() if v)
print("values %d, intervals not 0: %d" % (sum(len(d) for d in a), nonzero))
sys.exit(0 if a == b and nonzero > 100 else 1)' "$1" "$2"
}

SIM=(--sim-cpus 4 --seed 5)
same cpi "${SIM[*]} --sim-mux 0.5" -i 10 -n 40 -m cpi -f json
check "cpi, multiplexed: the remote JSON intervals are the local run's ($(same_json "$T/cpi.local" "$T/cpi.remote"))" \
	same_json "$T/cpi.local" "$T/cpi.remote"
same td2 "${SIM[*]} --sim-family skl --sim-mux 0.6" -i 10 -n 40 -m topdown2 -f json
check "topdown2 skl, rotated and multiplexed: the same intervals" \
	same_json "$T/td2.local" "$T/td2.remote"
same core "--sim-cpus 8 --seed 5 --sim-mux 0.5 --sysfs-root $T_SRC/tests/sysfs/x86-2s-smt" \
	-i 10 -n 40 -m cpi -f json --per-core
check "--per-core (the board's topology): the same intervals" \
	same_json "$T/core.local" "$T/core.remote"
check "--per-core: rows are cores" grep -q '"rows":"core"' "$T/core.remote"

# sampled (--sample): the agent ticks at the sample cadence and this side sums its ticks into the
# interval's windows, as a local run sums its samples; :sample on the way asks the agent too
same sample "${SIM[*]} --sim-mux 0.5" -i 50 --sample 10ms -n 20 -m cpi -f json
check "--sample: the same windows and intervals" same_json "$T/sample.local" "$T/sample.remote"
same resample "${SIM[*]} --sim-mux 0.5" -i 50 -n 20 -m cpi -f json -c "sample 10ms"
# (the first window holds the agent's last tick at the interval: from the next one on, the same
# windows and counts (the board's round differently after that tick, by a count or two). That
# 50 ms tick's rates spread less than a 10 ms tick's (the sim's noise shrinks with the tick), and
# the rate variances remember it: its weight is 1/n over the first 32 ticks, then falls by 1/32 a
# tick, 15 % a window of 5. So the intervals differ by up to 10 % in the third window, and the
# difference fades: below 1 % and a third of the first in the last window. Under load the agent
# may take :sample a tick later (the likely cause, not shown), one more 50 ms tick in that history:
# 13 % was seen in the third window under ASan beside the suite, so early windows are held to 20 %.)
check ":sample: the same windows and counts, the intervals converge" python3 -c '
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])][2:]
b = [json.loads(l) for l in open(sys.argv[2])][2:]
rel = lambda x, y: abs(x - y) / abs(x) if x else abs(y)
ok = len(a) == len(b) == 18 and all(y["samples"] == 5 and y["interval_ms"] == 50 for y in b)
worst = []
for x, y in zip(a, b):
    w = 0
    for rx, ry in zip(x["cpus"] + [x["total"]], y["cpus"] + [y["total"]]):
        for k, v in rx["metrics_err"].items():
            ok &= (v is None) == (ry["metrics_err"][k] is None)
            w = max(w, rel(v, ry["metrics_err"][k]) if v is not None else 0)
        for k, e in rx["events"].items():
            w = max(w, rel(e["err"], ry["events"][k]["err"]))
            ok &= rel(e["value"], ry["events"][k]["value"]) <= 1e-6
    worst.append(w)
ok &= bool(worst) and max(worst) <= 0.2 and worst[-1] <= 0.01 and worst[-1] <= worst[0] / 3
print("largest relative difference per window: " + " ".join("%.2g" % w for w in worst))
sys.exit(0 if ok else 1)' "$T/resample.local" "$T/resample.remote"

# an agent ticks every 10 ms at the shortest: a shorter :sample or --sample is refused here,
# before the agent refuses it (the agent's refusal came later, and the windows then summed 10 of
# its 50 ms ticks: interval_ms 500 at -i 50)
printf '#!/bin/sh\nshift 2\nexec sh -c "$* --backend sim %s"\n' "${SIM[*]}" >"$T/transport.sh"
for c in "-c|sample 5" "-c|sample 200us" "--sample|5"; do
	timeout 60 "$BIN" -b --remote board --transport "$T/transport.sh" --agent "$AGENT" -i 50 -n 2 \
		-f json "${c%%|*}" "${c#*|}" >"$T/short.json" 2>"$T/short.err" </dev/null
	rc=$?
	check "--remote, ${c%%|*} '${c#*|}': refused with exit 2, saying the agent's shortest tick (rc $rc: $(head -c 200 "$T/short.err"))" \
		bash -c "[ $rc -eq 2 ] && grep -q 'a --remote agent samples at its tick, 10 ms at the shortest' '$T/short.err' && [ ! -s '$T/short.json' ]"
done

# CSV: the event_err and metric_err lines (without the host and wall-clock columns)
same csv "${SIM[*]} --sim-mux 0.5" -i 10 -n 30 -m cpi -f csv
for w in local remote; do grep -E ',(event|metric)_err,' "$T/csv.$w" | cut -d, -f3-8 >"$T/csv.$w.err"; done
check "CSV: the same error lines ($(wc -l <"$T/csv.remote.err"))" \
	bash -c '[ -s "$1" ] && cmp -s "$1" "$2"' _ "$T/csv.local.err" "$T/csv.remote.err"
# text: the value+-half-width cells of every table row
same text "${SIM[*]} --sim-mux 0.5" -i 10 -n 30 -m cpi -f text
for w in local remote; do grep -o '[0-9.]*±[0-9.?]*' "$T/text.$w" >"$T/text.$w.err"; done
check "text: the same value±half-width cells ($(wc -l <"$T/text.remote.err"))" \
	bash -c '[ "$(wc -l <"$1")" -gt 100 ] && cmp -s "$1" "$2"' _ "$T/text.local.err" \
	"$T/text.remote.err"

# a recording of the remote run replays with the intervals shown on the remote side
printf '#!/bin/sh\nshift 2\nexec sh -c "$* --backend sim %s"\n' "${SIM[*]} --sim-mux 0.5" \
	>"$T/transport.sh"
timeout 120 "$BIN" -b --remote board --transport "$T/transport.sh" --agent "$AGENT" --error \
	-i 10 -n 30 -m cpi -f json -r "$T/board.jsonl" >"$T/rec.remote" 2>"$T/err" </dev/null
timeout 60 "$BIN" -R "$T/board.jsonl" --error -b -f json >"$T/replayed.json" 2>"$T/err"
check "the remote run's recording replays with its intervals" \
	same_json "$T/rec.remote" "$T/replayed.json"
t_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_errbars.sh: error bars against the truth the sim knows (--sim-truth): with multiplexing
# (--sim-mux) or rotated event sets, each mode's 95 % intervals cover the true value in 93-97 %
# of the values of a long run, on CPU rows and on rows summed by core and socket (the CPUs'
# variances add); counted whole, every interval is 0; --error and :set error put them in JSON,
# CSV, text and OpenMetrics, and nothing changes when they are off.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 needed to check JSON"; exit 77; }
T=$T_TMP
CHECK=$T_SRC/tests/errbar_check.py
SIM=(--backend sim --sim-cpus 4 --seed 7 -b -f json --sim-truth --error)
# --sim-unpaced: the ticks one after another, each standing for the interval (the same values
# as paced ticks, without waiting for them)
FAST=(--sim-unpaced)

# coverage NAME ARGS...: the mode's intervals cover the truth in 93-97 % of the values of 500
# ticks that have one (the values counted whole must equal the truth), each metric's in 92-98 %
# (about 2000 values each; the sim's rates are uniform draws, whose errors have lighter tails
# than the normal the interval assumes: a metric may cover a little more than 97 %)
coverage() {
	local name=$1
	shift
	timeout 120 "$BIN" "${SIM[@]}" "${FAST[@]}" -n 500 "$@" >"$T/$name.json" 2>"$T/err"
	if python3 "$CHECK" --label "$name" --expect 0.93:0.97 --expect-metric 0.92:0.98 <"$T/$name.json" >"$T/$name.cov"; then
		pass
	else
		fail "$name: coverage outside 93-97 % (a metric outside 92-98 %): $(cat "$T/$name.cov")"
	fi
	cat "$T/$name.cov"
}
coverage cpi-mux -m cpi -i 10 --sim-mux 0.5
coverage branch-mux -m branch -i 10 --sim-mux 0.7
coverage topdown-mux -m topdown --sim-family skl -i 10 --sim-mux 0.5
# rotation: Skylake's level 2 (five sets, events carried into a tick from different ticks: their
# errors share only that tick's rates) and Zen 4's (two sets)
coverage topdown2-skl-rotation -m topdown2 --sim-family skl -i 10
coverage topdown2-skl-rotation-mux -m topdown2 --sim-family skl -i 10 --sim-mux 0.6
coverage topdown2-zen4-rotation -m topdown2 --sim-family zen4 -i 10
coverage cpi-mux-sample -m cpi -i 50 --sample 10ms --sim-mux 0.5
# the sim's noise shrinks with the tick (+-1 % at 1 s, +-30 % at 1 ms): the intervals follow it
# (500 windows of 1 s, unpaced as every coverage run)
coverage cpi-mux-1s -m cpi -i 1s --sim-mux 0.5
coverage topdown-mux-1s -m topdown --sim-family skl -i 1s --sim-mux 0.5
coverage cpi-mux-1s-sample -m cpi -i 1s --sample 100ms --sim-mux 0.25
coverage cpi-mux-sample-1ms -m cpi -i 10 --sample 1ms --sim-mux 0.5
# rows summed by core and socket (8 CPUs, two threads a core): the CPUs' variances add
SMT=(--sim-cpus 8 --sysfs-root "$T_SRC/tests/sysfs/x86-2s-smt")
coverage cpi-mux-per-core -m cpi -i 10 --sim-mux 0.5 "${SMT[@]}" --per-core
coverage topdown2-skl-per-socket -m topdown2 --sim-family skl -i 10 "${SMT[@]}" --per-socket
# ... exactly: a core's count interval is the root of the sum of its threads' squared ones
timeout 60 "$BIN" "${SIM[@]}" "${FAST[@]}" -n 30 -m cpi -i 10 --sim-mux 0.5 "${SMT[@]}" >"$T/cpus.json" 2>"$T/err"
timeout 60 "$BIN" "${SIM[@]}" "${FAST[@]}" -n 30 -m cpi -i 10 --sim-mux 0.5 "${SMT[@]}" --per-core \
	>"$T/cores.json" 2>"$T/err"
check "--per-core: a core's variance is its threads' sum" python3 -c '
import json, math, sys
cpus = [json.loads(l) for l in open(sys.argv[1])][-1]
cores = [json.loads(l) for l in open(sys.argv[2])][-1]
sib = sys.argv[3] + "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list"
err = {c["cpu"]: c["events"]["cycles"]["err"] for c in cpus["cpus"]}
groups = {open(sib % c).read().strip() for c in err}
want = sorted(math.sqrt(sum(err[int(c)] ** 2 for c in g.split(","))) for g in groups)
got = sorted(c["events"]["cycles"]["err"] for c in cores["cpus"])
total = math.sqrt(sum(e * e for e in err.values()))
ok = len(want) == len(got) == 4 and all(abs(a - b) <= 1e-5 * a for a, b in zip(want, got))
ok = ok and min(got) > 0 and abs(cores["total"]["events"]["cycles"]["err"] - total) <= 1e-5 * total
sys.exit(0 if ok else 1)' "$T/cpus.json" "$T/cores.json" "$T_SRC/tests/sysfs/x86-2s-smt"
# a task's row (its threads summed) has them too
run_cmd --backend sim -b -n 30 -i 10 -m cpi --sim-mux 0.5 -f json --error -p $$
check "-p PID: the task row's intervals" python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])][-1]
sys.exit(0 if r["rows"] == "task" and r["cpus"][0]["metrics_err"]["ipc"] > 0 else 1)' "$T/out"

# counted whole: every interval is exactly 0 (and so covers the truth up to a count's rounding)
timeout 60 "$BIN" "${SIM[@]}" "${FAST[@]}" -n 100 -m cpi -i 10 >"$T/whole.json" 2>"$T/err"
check "no multiplexing: intervals 0" python3 "$CHECK" --zero <"$T/whole.json"

# the intervals are wider where fewer events were counted: 0.3 of the time against 0.9
width() {
	"$BIN" "${SIM[@]}" "${FAST[@]}" -n 60 -m cpi -i 10 --sim-mux "$1" 2>/dev/null | python3 -c '
import json, sys
w = [json.loads(l)["total"]["metrics_err"]["ipc"] for l in sys.stdin if l.startswith("{")][20:]
print(sum(w) / len(w))'
}
narrow=$(width 0.9) wide=$(width 0.3)
check "less running time, wider interval ($narrow < $wide)" \
	python3 -c "import sys; sys.exit(0 if 0 < $narrow < $wide else 1)"

# a replay gives the same intervals as the live run it recorded
timeout 60 "$BIN" --backend sim --sim-cpus 2 -b -n 40 -i 10 -m cpi --sim-mux 0.5 --error -f json \
	-r "$T/mux.jsonl" >"$T/live.json" 2>"$T/err"
timeout 60 "$BIN" -R "$T/mux.jsonl" --error -b -f json >"$T/replayed.json" 2>"$T/err"
check "replay: the live run's intervals" python3 -c '
import json, sys
a = [json.loads(l)["total"]["metrics_err"] for l in open(sys.argv[1])]
b = [json.loads(l)["total"]["metrics_err"] for l in open(sys.argv[2])]
sys.exit(0 if len(a) == len(b) == 40 and a == b and a[-1]["ipc"] > 0 else 1)' \
	"$T/live.json" "$T/replayed.json"

# off (the default): no error fields; :set error on turns them on in batch
run_cmd --backend sim --sim-cpus 2 -b -n 3 -i 10 -m cpi --sim-mux 0.5 -f json
check "off by default" bash -c "! grep -q metrics_err '$T/out'"
run_cmd --backend sim --sim-cpus 2 -b -n 30 -i 10 -m cpi --sim-mux 0.5 -f json -c "set error on"
check ":set error on: JSON metrics_err" grep -q '"metrics_err":{"cpi":[0-9]' "$T/out"
check ":set error on: a count's err" grep -q '"state":"scaled","err":[0-9]' "$T/out"
run_cmd --backend sim --sim-cpus 2 -b -n 30 -i 10 -m cpi --sim-mux 0.5 -f csv --error
check "CSV: a metric_err line per metric" grep -q '^[0-9.]*,10.000,all,metric_err,ipc,[0-9]' "$T/out"
check "CSV: an event_err line per count" grep -q ',0,event_err,cycles,[0-9]' "$T/out"
run_cmd --backend sim --sim-cpus 2 -b -n 30 -i 10 -m cpi --sim-mux 0.5 -f text --error
check "text: value+-half-width" grep -q '[0-9]±[0-9]' "$T/out"
run_cmd --backend sim --sim-cpus 2 -b -n 30 -i 10 -m cpi -f text --error
check "text: exact values +-0" grep -q '[0-9]±0 ' "$T/out"
run_cmd --backend sim --sim-cpus 2 -b -n 30 -i 10 -m cpi --sim-mux 0.5 -f openmetrics --error
check "OpenMetrics: a sibling gauge" grep -q '^pmutop_metric_err{.*metric="ipc".*} [0-9]' "$T/out"
run_cmd --backend sim -b -n 2 -i 10 -c "set error maybe"
check "bad value refused" test "$RC" -ne 0
t_done

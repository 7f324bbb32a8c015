#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_simnoise.sh: the sim's noise shrinks with the window as a sum of independent parts does (the
# 1/sqrt(n) law of a sum of n independent draws, not a figure of pmutop's): IPC's spread over 400
# windows of 10 ms is 10 times that of 1 s windows, and a 1 s window spreads as much when it is
# one tick as when it sums 100 ticks of 10 ms (--sample 10ms); --sim-unpaced gives the counts of
# the same run made at its pace, and is refused where it cannot apply, with nothing written.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 needed to read the JSON"; exit 77; }
T=$T_TMP
SIM=(--backend sim --sim-cpus 4 --seed 3 -m cpi -b -f json --sim-unpaced -n 400)
timeout 60 "$BIN" "${SIM[@]}" -i 10 >"$T/10ms.json" 2>"$T/err"
timeout 60 "$BIN" "${SIM[@]}" -i 1s >"$T/1s.json" 2>"$T/err"
timeout 60 "$BIN" "${SIM[@]}" -i 1s --sample 10ms >"$T/1s-sampled.json" 2>"$T/err"
check "three runs of 400 windows each" python3 -c '
import sys
sys.exit(0 if all(sum(1 for _ in open(f)) == 400 for f in sys.argv[1:]) else 1)' \
	"$T/10ms.json" "$T/1s.json" "$T/1s-sampled.json"
# relative spread of IPC per CPU, from the raw counts (instructions / cycles)
cat >"$T/spread.py" <<'PY'
import json, statistics, sys
def spread(path):
    ipc = {}
    for line in open(path):
        for c in json.loads(line)["cpus"]:
            e = c["events"]
            ipc.setdefault(c["cpu"], []).append(e["instructions"]["value"] / e["cycles"]["value"])
    return statistics.mean(statistics.stdev(v) / statistics.mean(v) for v in ipc.values())
a, b, c = (spread(p) for p in sys.argv[1:4])
print("ipc relative spread: %.3f %% at 10 ms, %.3f %% at 1 s, %.3f %% at 1 s of 100 x 10 ms; "
      "10 ms / 1 s = %.2f (law: 10), 1 s / sampled 1 s = %.2f (law: 1)"
      % (100 * a, 100 * b, 100 * c, a / b, b / c))
# 400 windows x 4 CPUs: a spread is known to about 2 % (1 / sqrt(2 x 1600)); 15 % is 7 sigma
sys.exit(0 if 8.5 <= a / b <= 11.5 and 0.85 <= b / c <= 1.15 else 1)
PY
if python3 "$T/spread.py" "$T/10ms.json" "$T/1s.json" "$T/1s-sampled.json" >"$T/spread.out"; then
	pass
else
	fail "the spread does not follow 1/sqrt(window length): $(cat "$T/spread.out")"
fi
cat "$T/spread.out"

# unpaced: the counts of the run made at its pace
timeout 30 "$BIN" --backend sim --sim-cpus 2 --seed 5 -m cpi -b -f json -n 5 -i 10 \
	>"$T/paced.json" 2>/dev/null
timeout 30 "$BIN" --backend sim --sim-cpus 2 --seed 5 -m cpi -b -f json -n 5 -i 10 --sim-unpaced \
	>"$T/unpaced.json" 2>/dev/null
check "--sim-unpaced: the same counts, times and metrics as the paced run" python3 -c '
import json, sys
def recs(p):
    out = [json.loads(l) for l in open(p)]
    return [(r["time"], r["seq"], r["cpus"], r["total"]) for r in out]
a, b = recs(sys.argv[1]), recs(sys.argv[2])
sys.exit(0 if len(a) == 5 and a == b else 1)' "$T/paced.json" "$T/unpaced.json"

# refused where it cannot apply: a clear message, exit 2, no record written
refused() { # DESC ARGS...
	local desc=$1
	shift
	timeout 10 "$BIN" "$@" -o "$T/refused.out" >"$T/out" 2>"$T/err" </dev/null
	local rc=$?
	check "--sim-unpaced $desc: exit 2 (got $rc)" [ "$rc" -eq 2 ]
	check "--sim-unpaced $desc: says why" grep -q -- "--sim-unpaced: a batch run" "$T/err"
	check "--sim-unpaced $desc: writes no record" bash -c "[ ! -s '$T/refused.out' ]"
	rm -f "$T/refused.out"
}
refused "without -n" --backend sim -b -f json --sim-unpaced
# the screen: refused before it starts, so the message is on the terminal (it was drawn away)
timeout 10 script -qec "$BIN --no-rc --backend sim --sim-unpaced" "$T/screen.typescript" >/dev/null 2>&1 </dev/null
check "--sim-unpaced on the screen: exit 2 and the message, the screen never started" bash -c \
	"grep -q 'COMMAND_EXIT_CODE=\"2\"' '$T/screen.typescript' && grep -q -- '--sim-unpaced: a batch run' '$T/screen.typescript' && ! grep -q \$'\\e\\[?1049h' '$T/screen.typescript'"
timeout 30 "$BIN" --backend sim --sim-cpus 2 -m cpi -b -f json -n 3 -i 10 -r "$T/rec.jsonl" \
	>/dev/null 2>&1
refused "on a replay" -R "$T/rec.jsonl" -b -f json -n 2 --sim-unpaced
refused "on the perf backend" --backend perf -m sw -b -f json -n 2 --sim-unpaced
t_done

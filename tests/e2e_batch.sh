# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_batch.sh: batch mode on the sim backend: golden text/CSV/JSON output, JSON structure,
# arithmetic of metrics and totals, wrap, multiplexing, faults, offline CPUs, CPU subsets.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 needed to check JSON"; exit 77; }

SIM=(-b --backend sim --seed 1)

# name | arguments (after -b --backend sim --seed 1) [| known bug: no golden until it is fixed]
CASES=(
	"cpi-4.text|-n 3 -i 10 --sim-cpus 4 -m cpi -f text"
	"cpi-4.csv|-n 3 -i 10 --sim-cpus 4 -m cpi -f csv"
	"cpi-4.json|-n 3 -i 10 --sim-cpus 4 -m cpi -f json"
	"sw-2.json|-n 2 -i 10 --sim-cpus 2 -m sw -f json"
	"sw-2.text|-n 2 -i 10 --sim-cpus 2 -m sw -f text"
	"dcache-generic.json|-n 2 -i 10 --sim-cpus 2 -m dcache --sim-family generic -f json"
	"dcache-skl.json|-n 2 -i 10 --sim-cpus 2 -m dcache --sim-family skl -f json"
	"cpi-skl.csv|-n 2 -i 10 --sim-cpus 2 -m cpi --sim-family skl -f csv"
	"cpi-armv8.json|-n 2 -i 10 --sim-cpus 2 -m cpi --sim-family armv8 -f json"
	"cpi-xscale1.json|-n 2 -i 10 --sim-cpus 2 -m cpi --sim-family xscale1 -f json"
	"dtlb-xscale1-rotate.json|-n 4 -i 10 --sim-cpus 2 -m dtlb --sim-family xscale1 -f json|fixed-counter events (CCNT cycles) rotate with set 0"
	"mux-half.json|-n 2 -i 10 --sim-cpus 2 -m cpi --sim-mux 0.5 -f json"
	"mux-half.text|-n 2 -i 10 --sim-cpus 2 -m cpi --sim-mux 0.5 -f text"
	"fail-event.json|-n 2 -i 10 --sim-cpus 2 -m cpi --sim-fail-event 1 -f json"
	"fail-event.text|-n 1 -i 10 --sim-cpus 2 -m cpi --sim-fail-event 1 -f text"
	"offline.json|-n 5 -i 10 --sim-cpus 3 -m cpi --sim-offline 1:2-3 -f json|sim offline window one tick short"
	"offline.text|-n 5 -i 10 --sim-cpus 3 -m cpi --sim-offline 1:2-3 -f text|sim offline window one tick short"
	"subset.json|-n 2 -i 10 --sim-cpus 8 -m cpi -C 1,5-6 -f json"
	"subset.csv|-n 2 -i 10 --sim-cpus 8 -m cpi -C 1,5-6 -f csv"
	"stack.text|-n 2 -i 10 --sim-cpus 4 --mode-file $T_SRC/tests/fixtures/stack/stack.mode -m stackfx -f text"
	"stack-mux.text|-n 2 -i 10 --sim-cpus 4 --mode-file $T_SRC/tests/fixtures/stack/stack.mode -m stackfx --sim-mux 0.5 -f text"
	"stack-rotate.text|-n 3 -i 10 --sim-cpus 2 --sim-family xscale1 --mode-file $T_SRC/tests/fixtures/stack/rotate.mode -m stackrot -f text"
	"stack-na.text|-n 1 -i 10 --sim-cpus 2 --mode-file $T_SRC/tests/fixtures/stack/stack.mode -m stackfx --sim-fail-event 0 -f text"
)

for c in "${CASES[@]}"; do
	IFS='|' read -r name argstr bug <<<"$c"
	read -r -a args <<<"$argstr"
	out=$T_TMP/$name
	timeout 30 "$BIN" "${SIM[@]}" "${args[@]}" >"$out" 2>"$out.err" </dev/null
	rc=$?
	check "$name: exit 0 (got $rc: $(head -c 300 "$out.err"))" [ "$rc" -eq 0 ]
	check "$name: stderr says SIMULATED" grep -q SIMULATED "$out.err"
	if [ -n "$bug" ] && [ ! -f "$GOLDEN/batch/$name" ] && [ "${PMUTOP_UPDATE_GOLDEN:-0}" != 1 ]; then
		skip "golden batch/$name: known bug: $bug (create it with PMUTOP_UPDATE_GOLDEN=1 after the fix)"
	else
		golden_cmp "batch/$name" "$out"
	fi
	# The same arguments give the same bytes (deterministic).
	"$BIN" "${SIM[@]}" "${args[@]}" 2>/dev/null </dev/null >"$out.again"
	golden_normalise "$out.again" "$name"
	check "$name: deterministic across runs" cmp -s "$out.again" "$out"
done

# A different seed gives different numbers.
"$BIN" -b --backend sim --seed 2 -n 3 -i 10 --sim-cpus 4 -m cpi -f json 2>/dev/null >"$T_TMP/seed2"
check "seed 2 differs from seed 1" bash -c "! cmp -s '$T_TMP/seed2' '$T_TMP/cpi-4.json'"

# Semantic checks of every JSON output (python prints one "OK"/"FAIL ..."/"BUG ..." line each).
json_check() { # FILE KIND...
	python3 "$T_TMP/check.py" "$@"
}
cat >"$T_TMP/check.py" <<'PY'
import json, math, sys
path, kinds = sys.argv[1], sys.argv[2:]
res = []
def ok(cond, msg, bug=None):
    res.append(("OK" if cond else ("BUG " + bug + ": " if bug else "FAIL ") + msg))
lines = open(path).read().splitlines()
ok(len(lines) > 0, "no output")
recs = []
for i, l in enumerate(lines):
    try:
        recs.append(json.loads(l))
    except Exception as e:
        ok(False, "line %d does not parse: %s" % (i + 1, e))
for i, r in enumerate(recs):
    for k in ("time", "interval_ms", "backend", "mode", "cpus", "metrics_in_rows", "simulated"):
        if k == "metrics_in_rows":
            ok(all("metrics" in c and "events" in c for c in r["cpus"]), "rec %d: rows lack metrics/events" % i)
            ok("metrics" in r.get("total", {}), "rec %d: total lacks metrics" % i)
        else:
            ok(k in r, "rec %d lacks %s" % (i, k))
    ok(r.get("simulated") is True, "rec %d: simulated is not true" % i)
    ok(r.get("backend") == "sim", "rec %d: backend %r" % (i, r.get("backend")))
    ok(r.get("seq") == i + 1, "rec %d: seq %r" % (i, r.get("seq")))
    ok(abs(r["time"] - (i + 1) * r["interval_ms"] / 1000) < 1e-9, "rec %d: time %r" % (i, r["time"]))
    for c in r["cpus"] + [r["total"]]:
        for n, e in c["events"].items():
            st = e["state"]
            ok(st in ("ok", "scaled", "not_counted", "not_supported", "offline"), "state %r" % st)
            ok((e["value"] is None) == (st not in ("ok", "scaled")), "value/state mismatch %r" % e)
            ok(st != "ok" or e["running"] == 1.0, "ok with running %r" % e["running"])
            ok(st != "scaled" or 0 < e["running"] < 1, "scaled with running %r" % e["running"])
        for n, v in c["metrics"].items():
            ok(v is None or (isinstance(v, float) and math.isfinite(v)), "metric %s=%r" % (n, v))
    ev = lambda c, n: c["events"][n]["value"] if n in c["events"] else None
    # metrics against their formulas
    for c in r["cpus"] + [r["total"]]:
        m = c["metrics"]
        cyc, ins = ev(c, "cycles"), ev(c, "instructions")
        if "cpi" in m:
            if cyc is not None and ins:
                ok(m["cpi"] is not None and abs(m["cpi"] - cyc / ins) <= 1e-5 * m["cpi"],
                   "cpi %r != cycles/instructions %r" % (m["cpi"], cyc / ins))
                ok(abs(m["ipc"] - ins / cyc) <= 1e-5 * m["ipc"], "ipc %r" % m["ipc"])
            else:
                ok(m["cpi"] is None and m["ipc"] is None, "cpi/ipc not null without inputs")
        if "dmiss_pct" in m and ev(c, "dmiss") is not None and ev(c, "daccess"):
            ok(abs(m["dmiss_pct"] - 100 * ev(c, "dmiss") / ev(c, "daccess")) <= 1e-4 * m["dmiss_pct"],
               "dmiss_pct %r" % m["dmiss_pct"])
    # the total row sums the online rows (6 significant digits in the output)
    names = r["total"]["events"].keys()
    for n in names:
        vals = [c["events"][n]["value"] for c in r["cpus"] if not c.get("offline")]
        tv = r["total"]["events"][n]["value"]
        vals = [v for v in vals if v is not None]
        if tv is not None and vals:
            ok(abs(sum(vals) - tv) <= 1e-5 * max(tv, 1), "total %s %r != sum %r" % (n, tv, sum(vals)))
            if "exact" in kinds:
                ok(sum(vals) == tv and all(v == int(v) for v in vals),
                   "rec %d total %s %r is not the exact sum %r of integer counts" % (i, n, tv, sum(vals)),
                   "counts rounded to 6 digits")
for k in kinds:
    if k.startswith("cpus="):
        want = [int(x) for x in k[5:].split(",")]
        for r in recs:
            ok([c["cpu"] for c in r["cpus"]] == want, "cpus %r != %r" % ([c["cpu"] for c in r["cpus"]], want))
    if k == "mux":
        for r in recs:
            for c in r["cpus"] + [r["total"]]:
                for e in c["events"].values():
                    ok(e["state"] == "scaled" and e["running"] == 0.5, "mux: %r" % e)
    if k == "fail1":
        for r in recs:
            for c in r["cpus"] + [r["total"]]:
                e = c["events"]["instructions"]
                ok(e["state"] == "not_supported" and e["value"] is None, "fail-event: %r" % e)
                ok(c["events"]["cycles"]["state"] == "ok", "fail-event: cycles %r" % c["events"]["cycles"])
                ok(c["metrics"]["cpi"] is None and c["metrics"]["ghz"] is not None, "fail-event metrics")
    if k == "offline":
        # CPU 1 offline for ticks 2..3 (records 2 and 3), counted again after.
        st = [[e["state"] for e in r["cpus"][1]["events"].values()] for r in recs]
        off = [bool(r["cpus"][1].get("offline")) for r in recs]
        ok(off[0] is False and st[0] == ["ok", "ok"], "offline: tick 1 %r" % st[0])
        ok(off[1] and st[1] == ["offline", "offline"], "offline: tick 2 %r" % st[1])
        ok(off[2] and st[2] == ["offline", "offline"], "offline: tick 3 %r %r" % (off[2], st[2]),
           "sim offline window one tick short")
        ok(st[-1] == ["ok", "ok"], "offline: counted again at the last tick %r" % st[-1])
        for i in (1, 2):
            if off[i]:
                ok(all(v is None for v in recs[i]["cpus"][1]["metrics"].values()), "offline row metrics not null")
    if k == "rotate":
        # XScale: cycles runs on CCNT (fixed), so it counts every tick; the 3 programmable
        # events rotate over 2 counters.
        for i, r in enumerate(recs):
            for c in r["cpus"]:
                e = c["events"]["cycles"]
                ok(e["state"] == "ok" and e["running"] == 1.0,
                   "rec %d: cycles on CCNT not counted every tick: %r" % (i, e),
                   "fixed-counter events rotate with set 0")
        states = set(e["state"] for r in recs for c in r["cpus"] for e in c["events"].values())
        ok("scaled" in states, "rotation: no scaled (rotated) values")
for x in res:
    if x != "OK":
        print(x)
print("CHECKS %d" % len(res))
PY

bugs_seen=()
json_result() { # FILE DESC KIND...: turns python's lines into pass/fail/skip
	local file=$1 desc=$2
	shift 2
	local out line
	out=$(json_check "$file" "$@" 2>&1)
	if ! grep -q '^CHECKS' <<<"$out"; then
		fail "$desc: checker crashed: $out"
		return
	fi
	if grep -q '^FAIL' <<<"$out"; then
		fail "$desc: $(grep '^FAIL' <<<"$out" | head -5)"
	else
		pass
	fi
	while IFS= read -r line; do
		skip "$desc: known bug: ${line#BUG }"
	done < <(grep '^BUG' <<<"$out" | sort -u -t: -k1,1)
}
json_result "$T_TMP/cpi-4.json" cpi-4.json exact
json_result "$T_TMP/sw-2.json" sw-2.json
json_result "$T_TMP/dcache-generic.json" dcache-generic.json
json_result "$T_TMP/dcache-skl.json" dcache-skl.json
json_result "$T_TMP/cpi-armv8.json" cpi-armv8.json
json_result "$T_TMP/cpi-xscale1.json" cpi-xscale1.json
json_result "$T_TMP/dtlb-xscale1-rotate.json" dtlb-xscale1-rotate.json rotate
json_result "$T_TMP/mux-half.json" mux-half.json mux
json_result "$T_TMP/fail-event.json" fail-event.json fail1
json_result "$T_TMP/offline.json" offline.json offline
json_result "$T_TMP/subset.json" subset.json cpus=1,5,6

# Multiplexing scales the values back: within rounding of the unmultiplexed run.
"$BIN" "${SIM[@]}" -n 2 -i 10 --sim-cpus 2 -m cpi -f json 2>/dev/null >"$T_TMP/nomux.json"
check "mux 0.5 values match the full-time values after scaling" python3 - "$T_TMP/nomux.json" "$T_TMP/mux-half.json" <<'PY'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
for ra, rb in zip(a, b):
    for ca, cb in zip(ra["cpus"], rb["cpus"]):
        for n in ca["events"]:
            x, y = ca["events"][n]["value"], cb["events"][n]["value"]
            if abs(x - y) > 1e-4 * x:
                sys.exit("%s: %r vs %r" % (n, x, y))
PY

# CSV: header once, 8 columns, one line per row x (events + metrics), rows "all" last.
check "csv: one header" [ "$(grep -c '^time_s,' "$T_TMP/cpi-4.csv")" -eq 1 ]
check "csv: 8 fields everywhere" awk -F, 'NF != 8 { exit 1 }' "$T_TMP/cpi-4.csv"
check "csv: 3 ticks x 5 rows x 6 lines + header" [ "$(wc -l <"$T_TMP/cpi-4.csv")" -eq $((3 * 5 * 6 + 1)) ]
check "csv: n/a metrics are empty with state n/a" grep -q '^0.010000,10.000,0,metric,util,,,n/a$' "$T_TMP/cpi-4.csv"
check "csv: subset rows are 1,5,6,all" bash -c "[ \"\$(cut -d, -f3 '$T_TMP/subset.csv' | sed 1d | uniq | head -4 | tr '\n' ' ')\" = '1 5 6 all ' ]"
# text: SIMULATED in every header, marks for n/s and scaled values
check "text: SIMULATED on every record" [ "$(grep -c 'backend sim  SIMULATED' "$T_TMP/cpi-4.text")" -eq 3 ]
check "text: n/s for the failed event" grep -q ' n/s$' "$T_TMP/fail-event.text"
check "text: scaled values carry their running share" grep -q '(50%)' "$T_TMP/mux-half.text"
check "text: offline row says off" grep -qE '^ +1 .* off +off$' "$T_TMP/offline.text"

# Rotation on an XScale1 board (tests/sysfs/xscale1: CCNT + 2 counters). The mode's IPC divides
# instructions by CCNT; instructions rotate with set 0, the D-cache pair is set 1. In the ticks
# set 1 counts, IPC combines instructions carried from the tick before with this tick's CCNT:
# it is split (JSON split_metrics, "*" in the text header); in set 0's ticks it is not. The miss
# rate's events are always counted together: never split.
cat >"$T_TMP/ccnt.mode" <<'MODE'
[mode]
name = ccnt-ratio
[events xscale]
cycles       = rfe
instructions = r07
daccess      = r0a
dmiss        = r0b
[metric ipc]
expr = instructions / cycles
[metric dmiss_pct]
expr = 100 * dmiss / daccess
MODE
XS1=(--sysfs-root "$T_SRC/tests/sysfs/xscale1" --sim-family xscale1 --sim-cpus 1 -n 6 -i 10
	--mode-file "$T_TMP/ccnt.mode" -m ccnt-ratio)
"$BIN" "${SIM[@]}" "${XS1[@]}" -f json >"$T_TMP/xs1.json" 2>"$T_TMP/xs1.err"
"$BIN" "${SIM[@]}" "${XS1[@]}" -f text >"$T_TMP/xs1.text" 2>>"$T_TMP/xs1.err"
check "xscale1 tree: a CCNT ratio over a carried event is split in exactly the ticks it is carried (JSON = text)" \
	python3 - "$T_TMP/xs1.json" "$T_TMP/xs1.text" <<'PY'
import json, re, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
heads = [l.split()[1:] for l in open(sys.argv[2]) if l.startswith("  CPU ")]
why = []
if len(recs) != 6 or len(heads) != 6:
    why.append("%d JSON records, %d text records, want 6" % (len(recs), len(heads)))
for r, h in zip(recs, heads):
    seq, split = r["seq"], r.get("split_metrics", [])
    # set 0 (instructions) counts in ticks 1, 3, 5; set 1 (the D-cache pair) in 2, 4, 6
    want = ["ipc"] if seq % 2 == 0 else []
    if split != want:
        why.append("seq %d: split_metrics %s, want %s" % (seq, split, want))
    ev = r["cpus"][0]["events"]
    if ev["cycles"]["running"] != 1.0 or ev["cycles"]["state"] != "ok":
        why.append("seq %d: CCNT not counted every tick: %r" % (seq, ev["cycles"]))
    marked = [re.sub(r"\[.*", "", c[1:]) for c in h if c.startswith("*")]
    if marked != split:
        why.append("seq %d: text marks %s, JSON split_metrics %s" % (seq, marked, split))
if not any(r["cpus"][0]["metrics"]["ipc"] is not None and "ipc" not in r.get("split_metrics", []) for r in recs):
    why.append("ipc never measured unsplit")
for w in why:
    print("  " + w)
sys.exit(1 if why else 0)
PY
check "xscale1 tree: the run says nothing on stderr but SIMULATED" \
	bash -c "! grep -v SIMULATED '$T_TMP/xs1.err' | grep -q ."
# The XScale manual's modes (CCNT + two events) fit the board: no rotation, nothing split.
for m in icache itlb; do
	"$BIN" "${SIM[@]}" --sysfs-root "$T_SRC/tests/sysfs/xscale1" --sim-family xscale1 --sim-cpus 1 -n 3 -i 10 -m $m -f json >"$T_TMP/xs1-$m.json" 2>/dev/null
	check "xscale1 tree: $m runs in one set (every event counted every tick, no split)" python3 - "$T_TMP/xs1-$m.json" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
bad = [(r["seq"], n, e) for r in recs for c in r["cpus"] for n, e in c["events"].items()
       if e["state"] != "ok" or e["running"] != 1.0]
bad += [(r["seq"], "split", r["split_metrics"]) for r in recs if r.get("split_metrics")]
print("\n".join("  seq %s %s: %r" % b for b in bad[:5]))
sys.exit(1 if bad or len(recs) != 3 else 0)
PY
done

# 32-bit counters wrap: same numbers as 64-bit ones (a counter passes 2^32 in tick 2).
"$BIN" "${SIM[@]}" -n 3 -i 1500 --sim-cpus 2 -m cpi --sim-width 32 -f json 2>/dev/null >"$T_TMP/w32.json" &
"$BIN" "${SIM[@]}" -n 3 -i 1500 --sim-cpus 2 -m cpi --sim-width 64 -f json 2>/dev/null >"$T_TMP/w64.json"
wait
golden_cmp batch/width32.json "$T_TMP/w32.json"
golden_normalise "$T_TMP/w64.json" w64.json
check "32-bit wrap: same deltas as 64-bit counters" cmp -s "$T_TMP/w32.json" "$T_TMP/w64.json"
check "32-bit wrap: a counter really passed 2^32" python3 - "$T_TMP/w32.json" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
s = max(sum(r["cpus"][k]["events"]["instructions"]["value"] for r in recs) for k in range(2))
sys.exit(0 if s > 2**32 else "max sum %r" % s)
PY
json_result "$T_TMP/w32.json" width32.json

# long names, as metric libraries have them: a 48-byte mode name and a 67-byte metric name
# (perf's longest) reach every output whole, and two that share their first 47 bytes stay apart
LONG_MODE=lib:$(printf 'm%.0s' {1..44})
LONG_A=llc_data_read_demand_plus_prefetch_miss_latency_for_local_requests
LONG_B=llc_data_read_demand_plus_prefetch_miss_latency
printf '[mode]\nname = %s\n[events *]\nclock = cpu-clock\n[metric %s]\nexpr = clock / interval_ns\n[metric %s]\nexpr = 2 * clock / interval_ns\n' \
	"$LONG_MODE" "$LONG_A" "$LONG_B" >"$T_TMP/long.mode"
run_cmd --backend sim --mode-file "$T_TMP/long.mode" -m "$LONG_MODE" -b -n 1 -f json
check "long names: exit 0 ($RC: $(head -c 200 "$T_TMP/err"))" [ "$RC" -eq 0 ]
check "long names: the mode name whole" grep -qF "\"mode\":\"$LONG_MODE\"" "$T_TMP/out"
check "long names: both metric names whole and apart" python3 -c '
import json, sys
o = json.loads(open(sys.argv[1]).readline())
m = o["total"]["metrics"]
a, b = m.get(sys.argv[2]), m.get(sys.argv[3])
sys.exit(not (a is not None and b is not None and abs(b - 2 * a) <= 1e-6 * abs(b)))' \
	"$T_TMP/out" "$LONG_A" "$LONG_B"
run_cmd --backend sim --mode-file "$T_TMP/long.mode" -m "$LONG_MODE" -b -n 1 -f csv
check "long names: CSV names them whole" grep -qF ",metric,$LONG_A," "$T_TMP/out"
# recorded and replayed, the long mode name binds again
run_cmd --backend sim --mode-file "$T_TMP/long.mode" -m "$LONG_MODE" -b -n 2 -f json -r "$T_TMP/long.jsonl"
cp "$T_TMP/out" "$T_TMP/long-live.json"
run_cmd --mode-file "$T_TMP/long.mode" -R "$T_TMP/long.jsonl" -b -f json
check "long names: the replay runs the mode ($RC: $(head -c 200 "$T_TMP/err"))" \
	grep -qF "\"mode\":\"$LONG_MODE\"" "$T_TMP/out"
check "long names: the replay prints the recorded metrics" python3 -c '
import json, sys
live = [json.loads(l)["total"]["metrics"] for l in open(sys.argv[1])]
rep = [json.loads(l)["total"]["metrics"] for l in open(sys.argv[2])]
sys.exit(not live or live != rep)' "$T_TMP/long-live.json" "$T_TMP/out"

# batch text never cuts a header: a perf stat import's columns are the JSON's metric names (with
# their units) and event names, each once
run_cmd -b -R "$T_SRC/tests/fixtures/perfstat/sw-percpu.csv" -f json
want=$(head -1 "$T_TMP/out" | jq -r '(.cpus[0].metrics | keys_unsorted[]), (.cpus[0].events | keys_unsorted[])' | sort | tr '\n' ' ')
run_cmd -b -R "$T_SRC/tests/fixtures/perfstat/sw-percpu.csv"
got=$(sed -n 2p "$T_TMP/out" | tr ' ' '\n' | grep -v '^CPU$' | sed 's/\[[^]]*\]$//; /^$/d' | sort | tr '\n' ' ')
check "text headers of a perf import are whole names ('$got', JSON '$want')" test -n "$want" -a "$got" = "$want"
t_done

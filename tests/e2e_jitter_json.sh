# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_jitter_json.sh: the window statistics of batch JSON ("stats" per CPU row) byte for byte
# against goldens written by the member-by-member writer they replaced (tests/golden/jitter/),
# over runs where windows of one sample and of several fill and roll, with offline CPUs,
# multiplexing, spikes and several modes, and the spikes the default rules find once their
# 64-sample windows have filled and roll; and, independently of any golden, that a window of
# one sample writes each statistic with the very bytes of the row's metric value.
source "$(dirname "$0")/lib.sh"

SIM=(-b --backend sim --seed 1 --flight 0 -f json)

# name | arguments (after -b --backend sim --seed 1 --flight 0 -f json)
CASES=(
	"cpi-8-k1|-n 8 -i 10 --sim-cpus 8 -m cpi"
	"cpi-4-k5|-n 8 -i 50 --sample 10 --sim-cpus 4 -m cpi"
	"spike-4-k10|-n 6 -i 100 --sample 10 --sim-cpus 4 -m cpi --sim-spike 2:10:5"
	"default-4-mux|-n 6 -i 20 --sample 5 --sim-cpus 4 --sim-mux 0.5"
	"offline-3|-n 6 -i 10 --sim-cpus 3 -m cpi --sim-offline 1:2-3"
	"sw-2|-n 5 -i 10 --sim-cpus 2 -m sw"
	"dcache-skl-8|-n 4 -i 10 --sim-cpus 8 -m dcache --sim-family skl"
	"rules-8-long|-n 150 -i 10 --sim-cpus 8 -m cpi --sim-spike 3:7:4|spikes"
)

# The "stats" members of every row, as written (raw bytes: one line each, in record order).
stats_of() { grep -oE '"stats":\{([^{}]|\{[^{}]*\})*\}' "$1"; }
# The "spikes" member of every record, as written.
spikes_of() { grep -oE '"spikes":\[[^]]*\]' "$1"; }

for c in "${CASES[@]}"; do
	IFS='|' read -r name argstr what <<<"$c"
	read -r -a args <<<"$argstr"
	out=$T_TMP/$name.json
	timeout 60 "$BIN" "${SIM[@]}" "${args[@]}" >"$out" 2>"$out.err" </dev/null
	rc=$?
	check "$name: exit 0 (got $rc: $(head -c 300 "$out.err"))" [ "$rc" -eq 0 ]
	what=${what:-stats}
	"${what}_of" "$out" >"$T_TMP/$name.$what"
	check "$name: a $what member per row or record" [ "$(wc -l <"$T_TMP/$name.$what")" -ge 4 ]
	golden_cmp "jitter/$name.$what" "$T_TMP/$name.$what"
done

# The goldens are not trivial: windows of 5 and 10 samples, and nulls (an offline CPU).
check "windows of 5 samples filled" grep -q '"n":5}' "$T_TMP/cpi-4-k5.stats"
check "windows of 10 samples filled" grep -q '"n":10}' "$T_TMP/spike-4-k10.stats"
check "spikes found after the rules' windows filled" grep -q '"time":1\.' "$T_TMP/rules-8-long.spikes"
check "an offline CPU's statistics are null" grep -q '"stats":{"cpi":null,"ipc":null' \
	"$T_TMP/offline-3.stats"

# A window of one sample: min, median, p99 and max are the sample, so each is written with the
# bytes the row's "metrics" member has for that metric (formatted by another code path).
python3 - "$T_TMP/cpi-8-k1.json" >"$T_TMP/k1.check" <<'EOF'
import re, sys
num = r'(-?[0-9][0-9.e+-]*|null)'
rows = bad = 0
for line in open(sys.argv[1]):
    for row in re.findall(r'"metrics":\{([^{}]*)\},"stats":\{((?:[^{}]|\{[^{}]*\})*)\}', line):
        metrics = dict(re.findall(r'"([a-z_]+)":' + num, row[0]))
        for m, body in re.findall(r'"([a-z_]+)":\{([^{}]*)\}', row[1]):
            rows += 1
            got = re.match(r'"min":' + num + ',"median":' + num + ',"p99":' + num + ',"max":' + num, body)
            if not got or len(set(got.groups())) != 1 or got.group(1) != metrics.get(m) or not body.endswith('"n":1'):
                bad += 1
                print("BAD", m, metrics.get(m), body)
print("cells", rows, "bad", bad)
EOF
check "one-sample windows: statistics are the metric's bytes ($(tail -1 "$T_TMP/k1.check"))" \
	grep -q '^cells [1-9][0-9]* bad 0$' "$T_TMP/k1.check"
t_done

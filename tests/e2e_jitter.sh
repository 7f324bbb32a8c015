#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_jitter.sh: batch JSON of the jitter statistics on the sim backend: spikes, steady run, self, errors.
set -u
BIN=${PMUTOP_BIN:-../build/pmutop}
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
[ -x "$BIN" ] || { echo "SKIP: no pmutop binary at $BIN"; exit 77; }
fail=0
check() { # check NAME CONDITION-OUTPUT(true/false)
	if [ "$2" = true ]; then echo "ok   $1"; else echo "FAIL $1 (got: $2)"; fail=1; fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# spikes injected on CPU 2 every 10 sim reads: found there and only there
"$BIN" -b -n 10 --sample 10 --refresh 100 --backend sim --sim-cpus 4 --seed 1 -m cpi \
	--sim-spike 2:10:5 --flight 0 -f json >"$tmp/spike.json" 2>"$tmp/spike.err"
check "spike run exits 0" "$([ $? = 0 ] && echo true || echo false)"
check "10 records at the refresh cadence" "$(jq -s 'length == 10 and all(.[]; .interval_ms == 100 and .samples == 10)' "$tmp/spike.json")"
check "spikes only on cpu 2" "$(jq -s '[.[].spikes[]] | length > 0 and all(.[]; .cpu == 2)' "$tmp/spike.json")"
check "cpi spikes at 0.39 .. 0.99 s" "$(jq -s '[.[].spikes[] | select(.metric == "cpi") | .time] == [0.39,0.49,0.59,0.69,0.79,0.89,0.99]' "$tmp/spike.json")"
check "per-cpu stats present" "$(jq -s 'all(.[].cpus[]; .stats.cpi.n == 10 and .stats.cpi.min <= .stats.cpi.median and .stats.cpi.median <= .stats.cpi.p99 and .stats.cpi.p99 <= .stats.cpi.max)' "$tmp/spike.json")"
check "cpu 2 max cpi is the spike" "$(jq -s '.[9].cpus[2].stats.cpi.max > 3 * .[9].cpus[2].stats.cpi.median' "$tmp/spike.json")"
check "self fields" "$(jq -s '.[9].self | (.sample_ms == 10 and .ticks >= 10 and has("lateness_p99_ms") and has("cpu_pct") and .mem_bytes > 0)' "$tmp/spike.json")"

# text output prints the same self line after each record (the frame carries it for text)
"$BIN" -b -n 2 --sample 10 --refresh 100 --backend sim --sim-cpus 2 -m cpi --flight 0 -f text >"$tmp/self.txt" 2>/dev/null
check "text: a self line per record" "$([ "$(grep -c '^sample 10 ms (measured ' "$tmp/self.txt")" = 2 ] && echo true || echo "$(head -c 300 "$tmp/self.txt")")"

# a steady run: nothing flagged
"$BIN" -b -n 30 --sample 10 --refresh 100 --backend sim --sim-cpus 8 --seed 2 -m cpi --flight 0 -f json >"$tmp/steady.json" 2>/dev/null
check "steady run: no spikes" "$(jq -s '[.[].spikes[]] | length == 0' "$tmp/steady.json")"

# without --sample the records are the plain ticks
"$BIN" -b -n 2 -i 10 --backend sim --sim-cpus 2 -m cpi -f json >"$tmp/plain.json" 2>/dev/null
check "no --sample: one sample per record" "$(jq -s 'all(.[]; .samples == 1 and .interval_ms == 10)' "$tmp/plain.json")"

# a user rule triggers a flight recording, which loads as a recording with the marker
(cd "$tmp" && "$BIN" -b -n 12 --sample 10 --refresh 100 --backend sim --sim-cpus 4 -m cpi \
	--sim-spike 1:50:6 --alert "cpi > 3 on 1" --flight 1.5 --flight-out fl -f json >"$tmp/fl.json" 2>"$tmp/fl.err")
check "flight recording written" "$([ -s "$tmp/fl-1.jsonl" ] && echo true || echo false)"
check "flight marker names the spike" "$(jq -s '[.[] | select(.type == "mark")] | length == 1 and (.[0].text | test("spike cpu 1 cpi"))' "$tmp/fl-1.jsonl")"
check "record names the flight file" "$(jq -s 'any(.[]; .flight == "fl-1.jsonl")' "$tmp/fl.json")"

# a rule that fires every 0.5 s: the recordings are bounded in count (flight-files) and bytes
# (flight-bytes), the oldest removed and said
(cd "$tmp" && mkdir rot && cd rot && "$BIN" -b -n 60 --sample 10 --refresh 100 --backend sim --sim-cpus 4 -m cpi \
	--sim-spike 1:50:6 --alert "cpi > 3 on 1" --flight 1.5 --flight-out fl -c 'set flight-files 3' \
	-f json >"$tmp/rot.json" 2>"$tmp/rot.err")
n=$(ls "$tmp/rot" | wc -l)
check "a periodic rule wrote more than 3 recordings, 3 kept ($n; $(grep -c 'flight recording fl-[0-9]*.jsonl:' "$tmp/rot.err") written)" \
	"$([ "$n" -eq 3 ] && [ "$(grep -c 'flight recording fl-[0-9]*.jsonl:' "$tmp/rot.err")" -gt 3 ] && echo true || echo false)"
check "the oldest were removed (fl-1 gone, the newest kept)" \
	"$([ ! -e "$tmp/rot/fl-1.jsonl" ] && [ -e "$tmp/rot/$(grep -o 'fl-[0-9]*.jsonl:' "$tmp/rot.err" | tail -1 | tr -d :)" ] && echo true || echo false)"
check "the removal is said with its setting" \
	"$(grep -q 'flight recording fl-1.jsonl removed: at most 3 files .*:set flight-files' "$tmp/rot.err" && echo true || echo false)"
(cd "$tmp" && mkdir rotb && cd rotb && "$BIN" -b -n 40 --sample 10 --refresh 100 --backend sim --sim-cpus 4 -m cpi \
	--sim-spike 1:50:6 --alert "cpi > 3 on 1" --flight 1.5 --flight-out fl -c 'set flight-bytes 64k' \
	-f json >/dev/null 2>"$tmp/rotb.err")
bytes=$(cat "$tmp"/rotb/* 2>/dev/null | wc -c)
nb=$(ls "$tmp/rotb" | wc -l)
check "flight-bytes 64k: $bytes bytes in $nb files kept (one file may exceed it alone)" \
	"$([ "$nb" -ge 1 ] && { [ "$bytes" -le 65536 ] || [ "$nb" -eq 1 ]; } && echo true || echo false)"
"$BIN" -b -n 1 --backend sim -c 'set flight-files 0' >/dev/null 2>"$tmp/err"
check "flight-files 0 is refused" "$(grep -q 'not a number of files 1..10000' "$tmp/err" && echo true || echo false)"

# errors
for args in "--sample 0" "--sample 200 -i 100" "--refresh 1" "--alert bogus" "--flight x"; do
	"$BIN" -b -n 1 --backend sim $args >/dev/null 2>"$tmp/err"
	rc=$?
	check "$args exits 2" "$([ $rc = 2 ] && echo true || echo "rc $rc: $(cat "$tmp/err")")"
done
exit $fail

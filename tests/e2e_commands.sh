# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_commands.sh: one command table for -c, the rc file and the agent's control lines: batch
# mode runs them before the first tick, and a bad or screen-only line exits 2 with where it is.
source "$(dirname "$0")/lib.sh"
cd "$T_SRC/tests" || exit 1
AGENT=${PMUTOP_AGENT_BIN:-$T_SRC/build/pmutop-agent}
SIM=(--backend sim --sim-cpus 4 --seed 1)
# the rc file is found through HOME when XDG_CONFIG_HOME is not set
export HOME=$T_TMP/home
unset XDG_CONFIG_HOME
RC_FILE=$HOME/.config/pmutop/pmutoprc
mkdir -p "$(dirname "$RC_FILE")"

# json FILE EXPR...: prints EXPR (python, over the records r) of the JSON lines in FILE
json() {
	python3 -c "import json,sys
r=[json.loads(l) for l in open(sys.argv[1])]
print($2)" "$1" 2>/dev/null
}

# --- -c takes effect before the first tick ---------------------------------------------------------
run_cmd -b -n 2 -f json "${SIM[@]}" -c 'interval 300'
check "-c interval 300: exit 0 (got $RC: $(head -c 200 "$T_TMP/err"))" [ "$RC" -eq 0 ]
check "-c interval 300: records say 300 ms ($(json "$T_TMP/out" '[x["interval_ms"] for x in r]'))" \
	[ "$(json "$T_TMP/out" '[x["interval_ms"] for x in r]')" = "[300.0, 300.0]" ]
check "-c interval 300: times 0.3 s apart ($(json "$T_TMP/out" '[x["time"] for x in r]'))" \
	[ "$(json "$T_TMP/out" '[round(x["time"], 3) for x in r]')" = "[0.3, 0.6]" ]

run_cmd -b -n 1 -f json "${SIM[@]}" -c 'mode sw' -c 'cpus 1-2' -c 'add flt=perf::PAGE-FAULTS'
check "-c mode/cpus/add: exit 0 (got $RC: $(head -c 200 "$T_TMP/err"))" [ "$RC" -eq 0 ]
check "-c mode sw: the record's mode" [ "$(json "$T_TMP/out" 'r[0]["mode"]')" = sw ]
check "-c cpus 1-2: the record's CPUs" [ "$(json "$T_TMP/out" '[c["cpu"] for c in r[0]["cpus"]]')" = "[1, 2]" ]
check "-c add flt=...: the event is counted" [ "$(json "$T_TMP/out" '"flt" in r[0]["cpus"][0]["events"]')" = True ]

# in order: the last -c wins; ; separates statements in one -c
run_cmd -b -n 1 -f json "${SIM[@]}" -c 'interval 200; mode sw' -c 'interval 400'
check "-c in order: 400 ms, mode sw" [ "$(json "$T_TMP/out" 'r[0]["interval_ms"], r[0]["mode"]')" = "400.0 sw" ]

# :show's values carry their units, and :set takes each back as shown
for sz in "500k 500K" "2G 2G" "70000 70000" "1.5M 1536K"; do
	set -- $sz
	run_cmd -b -n 1 -f json "${SIM[@]}" -c "set flight-bytes $1" -c 'show flight-bytes'
	shown=$(sed -n 's/^pmutop: flight-bytes = //p' "$T_TMP/err")
	check ":set flight-bytes $1: :show says $2 (rc $RC: $(head -c 160 "$T_TMP/err"))" [ "$shown" = "$2" ]
	run_cmd -b -n 1 -f json "${SIM[@]}" -c "set flight-bytes $shown" -c 'show flight-bytes'
	check ":set flight-bytes $shown (as shown) is taken, the same size (rc $RC)" \
		bash -c "[ $RC -eq 0 ] && grep -qx 'pmutop: flight-bytes = $2' '$T_TMP/err'"
done
run_cmd -b -n 1 -f json "${SIM[@]}" -c 'interval 250' -c 'show'
check ":show: interval=250ms, flight-bytes=64M (the default) ($(head -c 200 "$T_TMP/err"))" \
	grep -q 'interval=250ms .*flight-bytes=64M ' "$T_TMP/err"

# --- bad -c: exit 2, "-c:N: message", nothing runs ------------------------------------------------
BAD=(
	"bogus|-c:1: unknown command 'bogus'"
	"intervl 300|-c:1: unknown command 'intervl' (did you mean 'interval'?)"
	"interval|-c:1: usage: interval DURATION|+|-"
	"interval 5|-c:1: interval 5 ms is out of range"
	"interval soon|-c:1: interval: \"soon\" is not a duration"
	"sample 0|-c:1: sample cadence \"0\" is out of range (1 ms to the interval, 1000 ms)"
	"sample 0ms|-c:1: sample cadence \"0ms\" is out of range"
	"mode nosuch|-c:1: "
	"cpus 99|-c:1: "
	"sort cpu|-c:1: sort: only on the screen, not in batch mode"
	"bind x quit|-c:1: bind: only on the screen, not in batch mode"
	"help|-c:1: help: only on the screen, not in batch mode"
	"set theme mono|-c:1: set theme: only on the screen, not in batch mode"
	"mode sw; pause|-c:1: pause: only on the screen, not in batch mode"
)
for c in "${BAD[@]}"; do
	cmd=${c%%|*} want=${c#*|}
	run_cmd -b -n 1 -f json "${SIM[@]}" -c "$cmd"
	check "-c '$cmd': exit 2 (got $RC)" [ "$RC" -eq 2 ]
	check "-c '$cmd': nothing on stdout" [ ! -s "$T_TMP/out" ]
	check "-c '$cmd': says '$want' (got: $(head -c 200 "$T_TMP/err"))" grep -qF -- "pmutop: $want" "$T_TMP/err"
done
# N is the position of the -c; a later bad one stops the earlier ones from running
run_cmd -b -n 1 "${SIM[@]}" -c 'interval 300' -c 'record '"$T_TMP"'/never.jsonl' -c 'frob'
check "third -c bad: exit 2 (got $RC)" [ "$RC" -eq 2 ]
check "third -c bad: -c:3 (got: $(head -c 200 "$T_TMP/err"))" grep -qF -- "pmutop: -c:3: unknown command 'frob'" "$T_TMP/err"
check "third -c bad: the second did not run" [ ! -e "$T_TMP/never.jsonl" ]

# --- the rc file -------------------------------------------------------------------------------------
printf '# pmutop rc\ninterval 250\n\nmdoe sw\n' >"$RC_FILE"
run_cmd -b -n 1 -f json "${SIM[@]}"
check "rc bad line: exit 2 (got $RC)" [ "$RC" -eq 2 ]
check "rc bad line: FILE:LINE (got: $(head -c 200 "$T_TMP/err"))" \
	grep -qF -- "pmutop: $RC_FILE:4: unknown command 'mdoe' (did you mean 'mode'?)" "$T_TMP/err"
run_cmd -b -n 1 -f json "${SIM[@]}" --no-rc
check "--no-rc: the rc file is not read (got $RC)" [ "$RC" -eq 0 ]
check "--no-rc: 1000 ms" [ "$(json "$T_TMP/out" 'r[0]["interval_ms"]')" = 1000.0 ]
# one rc file for the screen and batch mode: its screen lines are skipped in batch mode
printf 'theme mono\nbind x quit\nset ascii on; interval 250\nsort cpu\nmode sw\n' >"$RC_FILE"
run_cmd -b -n 1 -f json "${SIM[@]}"
check "rc with screen lines: exit 0 (got $RC: $(head -c 200 "$T_TMP/err"))" [ "$RC" -eq 0 ]
check "rc: interval 250 and mode sw" [ "$(json "$T_TMP/out" 'r[0]["interval_ms"], r[0]["mode"]')" = "250.0 sw" ]
run_cmd -b -n 1 -f json "${SIM[@]}" -c 'interval 500'
check "rc, then -c: 500 ms" [ "$(json "$T_TMP/out" 'r[0]["interval_ms"]')" = 500.0 ]
XDG_CONFIG_HOME=$T_TMP/xdg run_cmd -b -n 1 -f json "${SIM[@]}"
check "XDG_CONFIG_HOME wins over HOME: no rc there, 1000 ms" [ "$(json "$T_TMP/out" 'r[0]["interval_ms"]')" = 1000.0 ]
rm -f "$RC_FILE"

# --- the agent's control lines run through the same table -------------------------------------------
# each step waits (up to 8 s, however loaded the machine) for the ticks the one before changed
ticks_with() { # REGEX: a tick line of the agent's output matches
	local i
	for ((i = 0; i < 160; i++)); do
		grep '"type":"tick"' "$T_TMP/agent.jsonl" 2>/dev/null | grep -qE -- "$1" && return 0
		sleep 0.05
	done
	return 1
}
{
	echo "interval 100"
	ticks_with '"interval_ms":100[,.]'
	echo "cpus 0"
	echo "record $T_TMP/agent-rec.jsonl"
	echo "mark one  two"
	ticks_with '"cpus":\[\{"cpu":0,"c":[][0-9,]*\}\]\}$' # CPU 0 alone
	echo quit
} | timeout 20 "$BIN" -b -r - "${SIM[@]}" -i 50 >"$T_TMP/agent.jsonl" 2>"$T_TMP/agent.err"
check "agent: exit 0 on quit (got $?)" [ "$?" -eq 0 ]
check "agent: interval 100 reaches the ticks" grep -q '"type":"tick","t":[0-9.]*,"interval_ms":100' "$T_TMP/agent.jsonl"
check "agent: cpus 0 reaches the ticks" [ "$(json "$T_TMP/agent.jsonl" 'any(x["type"] == "tick" and [c["cpu"] for c in x["cpus"]] == [0] for x in r)')" = True ]
check "agent: mark" grep -q '"type":"mark","t":[0-9.]*,"text":"one two"' "$T_TMP/agent.jsonl"
check "agent: record is not a control line (got: $(head -c 300 "$T_TMP/agent.err"))" \
	grep -qF 'pmutop: control: unknown command "record" (mode, interval, cpus, mark, quit)' "$T_TMP/agent.err"
check "agent: nothing recorded" [ ! -e "$T_TMP/agent-rec.jsonl" ]
check "agent: no confirmations on stderr" bash -c "! grep -q 'opened\|mark:' '$T_TMP/agent.err'"
if [ -x "$AGENT" ]; then
	timeout 10 "$AGENT" -b -n 1 "${SIM[@]}" -c 'interval 300' -c bogus >/dev/null 2>"$T_TMP/a.err"
	check "pmutop-agent -c bogus: exit 2, -c:2 (got $?: $(head -c 200 "$T_TMP/a.err"))" grep -qF -- "-c:2: unknown command 'bogus'" "$T_TMP/a.err"
fi
t_done

# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_cli.sh: command-line behaviour: bad input (exit 2, a message, nothing on stdout), --help,
# --version, reports (--list-modes, --list-events, --explain), live sw batch runs, pipes, signals.
source "$(dirname "$0")/lib.sh"
cd "$T_SRC/tests" || exit 1

# a CPU number past this machine's last online CPU
last=$(tr ',' '\n' </sys/devices/system/cpu/online | tail -1)
NOT_ONLINE=$((${last##*-} + 1))
# bad usage: arguments | words the message must contain
BAD=(
	"--nosuch|unknown option --nosuch"
	"-i|-i needs an argument"
	"-C 5-1|5-1"
	"-C x|bad CPU list"
	"-C $NOT_ONLINE|CPU $NOT_ONLINE is not online"
	"--pin $NOT_ONLINE|--pin $NOT_ONLINE: CPU $NOT_ONLINE is not one pmutop may run on"
	"--pin x|--pin: \"x\" is not a number"
	"-i 5|from 10ms to 1h"
	"-i 99999999|from 10ms to 1h"
	"-f xml|unknown format \"xml\""
	"-m nosuch|unknown or ambiguous mode \"nosuch\""
	"--backend nosuch|unknown backend \"nosuch\""
	"-n 0|-n"
	"-n x|-n"
	"--backend sim --sim-cpus 0|--sim-cpus"
	"--backend sim --sim-cpus x|--sim-cpus"
	"--backend sim --sim-width 7|--sim-width"
	"--backend sim --sim-mux 2|--sim-mux"
	"--backend sim --sim-mux x|--sim-mux"
	"--backend sim --sim-fail-event -1|--sim-fail-event"
	"--backend sim --sim-offline 1|--sim-offline"
	"--backend sim --sim-offline 1:3-x|--sim-offline"
	"--backend sim --sim-spike x|--sim-spike"
	"--backend sim --sim-family nosuch|unknown family \"nosuch\""
	"--backend sim --seed x|--seed"
	"--sysfs-root /nonexistent|/nonexistent"
	"stray|unexpected argument \"stray\""
)
for c in "${BAD[@]}"; do
	read -r -a args <<<"${c%%|*}"
	want=${c#*|}
	run_cmd -b -n 1 -i 10 "${args[@]}"
	check "${args[*]}: exit 2 (got $RC)" [ "$RC" -eq 2 ]
	check "${args[*]}: nothing on stdout" [ ! -s "$T_TMP/out" ]
	check "${args[*]}: message has '$want' (got: $(head -c 200 "$T_TMP/err"))" grep -qF -- "$want" "$T_TMP/err"
	check "${args[*]}: message starts with pmutop:" grep -q '^pmutop: ' "$T_TMP/err"
	check "${args[*]}: one line message" [ "$(wc -l <"$T_TMP/err")" -eq 1 ]
done

# A --sim-offline CPU that is not simulated is bad input too.
run_cmd -b -n 1 -i 10 --backend sim --sim-cpus 4 --sim-offline 9:1-2
check "--sim-offline 9:1-2 with 4 simulated CPUs: exit 2 (got $RC)" [ "$RC" -eq 2 ]
check "--sim-offline 9:1-2 with 4 simulated CPUs: says why (got: $(head -c 120 "$T_TMP/err"))" \
	grep -q '^pmutop: .*9' "$T_TMP/err"

# -e with an unknown event: a failure that names the event, nothing on stdout.
run_cmd -b -n 1 -i 10 -e perf::NO_SUCH
check "-e perf::NO_SUCH: fails (got $RC)" [ "$RC" -ne 0 ]
check "-e perf::NO_SUCH: nothing on stdout" [ ! -s "$T_TMP/out" ]
check "-e perf::NO_SUCH: message names the event (got: $(head -c 120 "$T_TMP/err"))" \
	grep -q 'NO_SUCH' "$T_TMP/err"
check "-e perf::NO_SUCH: exit 2 (got $RC)" [ "$RC" -eq 2 ]
# -e with software events that open here counts them.
run_cmd -b -n 1 -i 10 -e perf::CPU-CLOCK,perf::CONTEXT-SWITCHES -f csv
check "-e perf::CPU-CLOCK,perf::CONTEXT-SWITCHES: exit 0 (got $RC: $(head -c 120 "$T_TMP/err"))" \
	[ "$RC" -eq 0 ]
n=$(getconf _NPROCESSORS_ONLN)
check "-e perf::CPU-CLOCK,perf::CONTEXT-SWITCHES: both events counted on each of the $n online CPUs" \
	[ "$(grep -cE '^[0-9.]+,[0-9.]+,[0-9]+,event,(CPU_CLOCK|CONTEXT_SWITCHES),[0-9]+,[0-9.]+,ok,' "$T_TMP/out")" -eq $((2 * n)) ]

# Start-up gives the stack pages below main's frame back (release_stack_below); a range that
# reached into the frame in use (main's frame is over 8 KiB under ASan) made one start in about 20
# jump to address 0, depending on where ASLR put the stack: 60 starts in a row all run.
crashed=0
for ((i = 0; i < 60; i++)); do
	timeout 30 "$BIN" -b --backend sim --no-rc -n 1 -f csv --sim-unpaced >/dev/null 2>"$T_TMP/start.err" </dev/null ||
		{ crashed=$((crashed + 1)); cp "$T_TMP/start.err" "$T_TMP/crash.err"; }
done
check "60 starts in a row: every one exits 0 ($crashed did not: $(head -c 200 "$T_TMP/crash.err" 2>/dev/null))" \
	[ "$crashed" -eq 0 ]

# --theme of no theme with -b is refused too (batch output has no colours; the name is still
# wrong), naming the themes there are; a theme that loads changes nothing in batch output.
run_cmd -b --backend sim --no-rc -n 1 -f csv --theme no-such-theme
check "-b --theme no-such-theme: exit 2, the themes named (rc $RC: $(head -c 120 "$T_TMP/err"))" \
	bash -c "[ $RC -eq 2 ] && grep -q \"unknown theme 'no-such-theme'.*mono\" '$T_TMP/err' && [ ! -s '$T_TMP/out' ]"
run_cmd -b --backend sim --no-rc -n 1 -f csv --theme mono --seed 3
cut -d, -f1-9 "$T_TMP/out" >"$T_TMP/theme.csv"
run_cmd -b --backend sim --no-rc -n 1 -f csv --seed 3
check "-b --theme mono: the same records as without it (rc $RC)" \
	bash -c "[ $RC -eq 0 ] && cut -d, -f1-9 '$T_TMP/out' | cmp -s - '$T_TMP/theme.csv'"

# --help lists every option; --version.
run_cmd --help
check "--help: exit 0" [ "$RC" -eq 0 ]
check "--help: usage on stdout" grep -q '^usage: pmutop' "$T_TMP/out"
check "--help: nothing on stderr" [ ! -s "$T_TMP/err" ]
for o in -b --batch -n --iterations -i --interval -m --mode -C --cpus -f --format -e --events \
	--backend --sim-cpus --seed --sim-width --sim-mux --sim-fail-event --sim-offline --sim-spike \
	--sim-family --sysfs-root --list-events --explain --list-modes --mode-file --record --replay \
	--theme --command --no-rc --help --version; do
	check "--help lists $o" grep -qE -- "(^|[ ,])$o([ ,=]|$)" "$T_TMP/out"
done
check "--help: exit statuses documented" grep -q '2 bad usage' "$T_TMP/out"
run_cmd --version
check "--version: exit 0, 'pmutop X.Y.Z'" bash -c "[ $RC -eq 0 ] && grep -qE '^pmutop [0-9]+\.[0-9]+\.[0-9]+$' '$T_TMP/out'"
run_cmd -V
check "-V: same as --version" grep -q '^pmutop ' "$T_TMP/out"

# --list-modes here (no PMU): only sw available, others with a reason.
run_cmd --list-modes
check "--list-modes: exit 0 (got $RC)" [ "$RC" -eq 0 ]
if grep -q '^# family: sw' "$T_TMP/out"; then
	check "--list-modes: sw available" grep -qE '^sw +available' "$T_TMP/out"
	check "--list-modes: only sw available" [ "$(grep -c ' available ' "$T_TMP/out")" -eq 1 ]
	check "--list-modes: cpi n/a with a reason" grep -qE '^cpi +n/a .*needs a hardware PMU' "$T_TMP/out"
	check "--list-modes: every mode listed" [ "$(grep -cE '^[a-z]+ +(available|n/a) ' "$T_TMP/out")" -ge 12 ]
else
	skip "--list-modes: this machine has a PMU; the sw-only checks do not apply"
fi
run_cmd --list-modes --sysfs-root sysfs/xscale
check "--list-modes xscale tree: family xscale" grep -q '^# family: xscale' "$T_TMP/out"
check "--list-modes xscale tree: dtlb available" grep -qE '^dtlb +available' "$T_TMP/out"
check "--list-modes xscale tree: llc n/a with reason" grep -qE '^llc +n/a .*L2' "$T_TMP/out"
run_cmd --list-modes --sysfs-root sysfs/arm-biglittle
check "--list-modes ARM tree: cortex_a53 family" grep -q '^# family: cortex_a53' "$T_TMP/out"
check "--list-modes ARM tree: cpi available" grep -qE '^cpi +available' "$T_TMP/out"
check "--list-modes big.LITTLE: stall n/a, A72 lacks STALL_BACKEND" \
	grep -qE '^stall +n/a .*STALL_BACKEND \(0x24\).*armv8_cortex_a72' "$T_TMP/out"
check "--list-modes big.LITTLE: both core types with their counters" \
	grep -q '^# core type armv8_cortex_a72 (CPUs 4-5): family cortex_a72, perf type 9, 6 programmable' "$T_TMP/out"
run_cmd --list-modes --sysfs-root sysfs/arm-a53
check "--list-modes A53: stall from the implementation-defined 0xE7, labelled" \
	grep -qE '^stall +available .*\[implementation-defined \(Cortex-A53 TRM\)' "$T_TMP/out"
check "--list-modes A53: llc n/a, LL_CACHE_RD named" grep -qE '^llc +n/a .*LL_CACHE_RD \(0x36\)' "$T_TMP/out"
check "--list-modes A53: counter width and interval" \
	grep -q 'counters 32-bit: wrap after 3.6 s at 1.2 GHz.*interval 1 s ok' "$T_TMP/out"
run_cmd --list-modes -i 5000 --sysfs-root sysfs/arm-a53
check "--list-modes A53 -i 5000: interval longer than the wrap" \
	grep -q 'interval 5 s is longer than the wrap' "$T_TMP/out"
run_cmd --list-modes --sysfs-root sysfs/armv6
check "--list-modes ARMv6: armv6 family, 2 counters" grep -q '^# family: armv6 .*2 programmable' "$T_TMP/out"
check "--list-modes ARMv6: dcache without rotation" grep -qE '^dcache +available +2/2 +1 +0 no ' "$T_TMP/out"
run_cmd --list-modes --sysfs-root sysfs/x86-skylake
check "--list-modes Skylake tree: skl family" grep -q '^# family: skl' "$T_TMP/out"
check "--list-modes Skylake tree: offcore available" grep -qE '^offcore +available' "$T_TMP/out"
# XScale1 (CCNT + 2): the manual's two-event modes fit, a third event rotates
run_cmd --list-modes --sysfs-root sysfs/xscale1
check "--list-modes XScale1 tree: xscale1 family, 2 counters" grep -q '^# family: xscale1 .* 2 programmable counters' "$T_TMP/out"
check "--list-modes XScale1 tree: icache and itlb without rotation" bash -c "grep -qE '^icache +available +2/2 +1 +0 no ' '$T_TMP/out' && grep -qE '^itlb +available +2/2 +1 +0 no ' '$T_TMP/out'"
check "--list-modes XScale1 tree: dcache rotates" grep -qE '^dcache +available +3/2 +1 +0 rotate sets' "$T_TMP/out"
run_cmd --backend sim --sim-family xscale1 --explain dcache
check "--explain dcache on xscale1: dmiss is in both sets (counted always), daccess and instructions rotate" \
	bash -c "grep -q 'dmiss \[always\]' '$T_TMP/out' && grep -q 'daccess \[set 0\]' '$T_TMP/out' && grep -q 'instructions \[set 1\]' '$T_TMP/out'"

# --list-events PATTERN
run_cmd --list-events cycles
check "--list-events cycles: exit 0" [ "$RC" -eq 0 ]
check "--list-events cycles: perf::CYCLES" grep -q 'perf::CYCLES' "$T_TMP/out"
check "--list-events cycles: no unrelated event" bash -c "! grep -q 'perf::INSTRUCTIONS' '$T_TMP/out'"

# --explain
run_cmd --explain sw
check "--explain sw: exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "--explain sw: encodings" grep -q 'perf::CPU-CLOCK .*type=1 config=0' "$T_TMP/out"
n=$(getconf _NPROCESSORS_ONLN)
check "--explain sw: opens on $n of $n CPUs" grep -q "opens on $n of $n CPUs" "$T_TMP/out"
run_cmd --explain cpi --sysfs-root sysfs/x86-skylake
check "--explain cpi skylake: exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "--explain cpi skylake: PMU model from the tree" grep -q 'Intel Skylake' "$T_TMP/out"
check "--explain cpi skylake: skl section" grep -q 'events for family skl' "$T_TMP/out"
check "--explain cpi skylake: REF-CYCLES encoded" grep -q 'perf::REF-CYCLES .*type=0 config=0x9' "$T_TMP/out"
check "--explain cpi skylake: opens not tried on another machine" grep -q 'opens not tried' "$T_TMP/out"
run_cmd --explain dtlb --sysfs-root sysfs/xscale
check "--explain dtlb xscale: raw codes" grep -q 'events for family xscale' "$T_TMP/out"
run_cmd --explain dcache --sysfs-root sysfs/armv6
check "--explain dcache armv6: section armv6" grep -q 'events for family armv6 (section armv6):' "$T_TMP/out"
check "--explain dcache armv6: 0x0A/0x0B on the armv6_1176 type" \
	grep -qE 'daccess +r0a +type=7 config=0xa ' "$T_TMP/out"
check "--explain dcache armv6: no ARMv7 0x08" bash -c "! grep -qE 'r08|config=0x8 ' '$T_TMP/out'"
check "--explain dcache armv6: one counter set" bash -c "! grep -q 'rotated in sets' '$T_TMP/out'"
run_cmd --explain cpi --sysfs-root sysfs/cortex-a9
check "--explain cpi cortex-a9: instructions are 0x68" grep -qE 'instructions +r68 +type=7 config=0x68 ' "$T_TMP/out"
check "--explain cpi cortex-a9: labelled implementation-defined" \
	grep -q 'note: implementation-defined 0x68 for instructions (Cortex-A9 TRM' "$T_TMP/out"
run_cmd --explain cpi --sysfs-root sysfs/arm-biglittle
check "--explain cpi big.LITTLE: A53 type 8" \
	grep -q 'on armv8_cortex_a53 (CPUs 0-3): type=8 config=0x11 ' "$T_TMP/out"
check "--explain cpi big.LITTLE: A72 type 9" \
	grep -q 'on armv8_cortex_a72 (CPUs 4-5): type=9 config=0x11 ' "$T_TMP/out"
run_cmd --explain stall --sysfs-root sysfs/arm-a53
check "--explain stall A53: 0xE7 labelled" grep -q 'note: implementation-defined (Cortex-A53 TRM): 0xE7' "$T_TMP/out"
check "--explain stall A53: encodes 0xe7" grep -qE 'dstall +re7 +type=8 config=0xe7 ' "$T_TMP/out"
run_cmd --explain nosuch
check "--explain nosuch: message" grep -q 'neither a mode nor an event' "$T_TMP/err"
check "--explain nosuch: exit 2 (got $RC)" [ "$RC" -eq 2 ]

# Live batch (sw mode here): exit 0, three records.
if grep -q '^# family: sw' < <("$BIN" --list-modes 2>/dev/null); then
	run_cmd -b -n 3 -i 100
	check "live -b -n 3 -i 100: exit 0 (got $RC: $(head -c 200 "$T_TMP/err"))" [ "$RC" -eq 0 ]
	check "live: 3 records in mode sw" [ "$(grep -c '^time .* mode sw  backend perf' "$T_TMP/out")" -eq 3 ]
	run_cmd -b -n 2 -i 100 -f json
	check "live json: 2 lines, simulated false" python3 -c "
import json,sys
r=[json.loads(l) for l in open('$T_TMP/out')]
assert len(r)==2 and all(x['simulated'] is False and x['mode']=='sw' for x in r)
assert all(x['metrics']['util'] is not None for x in r[0]['cpus'])"
else
	skip "live sw checks: this machine has a PMU (default mode is not sw)"
fi

# A reader that goes away: the run ends by itself, exit 0.
timeout 10 bash -c "set -o pipefail; '$BIN' -b -n 50 -i 20 --backend sim -f json 2>/dev/null | head -1 >/dev/null; echo \${PIPESTATUS[0]} >'$T_TMP/pipe'"
check "json | head -1: ends (no hang)" [ $? -ne 124 ]
check "json | head -1: pmutop exits 0 (got $(cat "$T_TMP/pipe" 2>/dev/null))" [ "$(cat "$T_TMP/pipe" 2>/dev/null)" = 0 ]
timeout 10 bash -c "'$BIN' -b -n 50 -i 20 -f json 2>/dev/null | head -1 >/dev/null; echo \${PIPESTATUS[0]} >'$T_TMP/pipe'"
check "live json | head -1: pmutop exits 0 (got $(cat "$T_TMP/pipe" 2>/dev/null))" [ "$(cat "$T_TMP/pipe" 2>/dev/null)" = 0 ]

# SIGTERM / SIGINT during a batch run end it with exit 0 and whole records.
for sig in TERM INT HUP; do
	# a file of its own per signal: the last one's records, still there until the child's
	# redirection truncates it, would send the signal before pmutop has started
	out=$T_TMP/sig-$sig.out
	"$BIN" -b -i 50 --backend sim -f json >"$out" 2>/dev/null &
	pid=$!
	# the first record means the handlers are in place: a background job of a script starts
	# with SIGINT ignored, so an INT sent before pmutop set its handler would be lost
	for _ in $(seq 600); do [ -s "$out" ] && break; sleep 0.05; done
	kill -$sig $pid
	timeout 10 tail --pid=$pid -f /dev/null
	if kill -0 $pid 2>/dev/null; then
		kill -KILL $pid
		fail "SIG$sig: the batch run was still there after 10 s"
	fi
	wait $pid
	rc=$?
	check "SIG$sig ends a batch run with exit 0 (got $rc)" [ "$rc" -eq 0 ]
	check "SIG$sig: every line whole JSON" python3 -c "
import json
for l in open('$out'): json.loads(l)"
done

# -m naming a mode whose file does not parse: the parse error (file:line), not "unknown mode"
mkdir -p "$T_TMP/badmodes"
printf '[mode]\nname = broken\n[events *]\nc = @::CYCLES\n[metric x]\nexpr = c +\n' >"$T_TMP/badmodes/broken.mode"
run_cmd -b -n 1 --backend sim --no-rc --mode-file "$T_TMP/badmodes/broken.mode" -m broken
check "-m broken: exit 2 with the parse error ($(cat "$T_TMP/err"))" \
	bash -c "[ $RC -eq 2 ] && grep -q 'mode \"broken\" did not load: .*broken.mode:6: .*operand expected' '$T_TMP/err'"
# define's METRICS as :help shows them (name=FORMULA;...): one mode with both metrics
run_cmd -b -n 1 -i 100 --backend sim --no-rc -c 'define semi c=perf::CPU-CLOCK x=c/2;y=c/4' -f json
check "define NAME EVENTS x=..;y=..: both metrics ($(tail -c 200 "$T_TMP/out") $(cat "$T_TMP/err"))" \
	bash -c "[ $RC -eq 0 ] && tail -1 '$T_TMP/out' | jq -e '.mode == \"semi\" and (.total.metrics | has(\"x\") and has(\"y\"))' >/dev/null"
# A run of CPUs has no command: its exit closes no descriptor it did not open (it closed 0,
# stdin, twice: the target's command descriptors were 0 in a run without one)
if command -v strace >/dev/null; then
	strace -f -e trace=close -o "$T_TMP/close.trace" "$BIN" --no-rc -b -n 1 -i 100 --backend sim \
		-f csv >/dev/null 2>&1 </dev/null
	check "a run of CPUs never closes stdin ($(grep -c 'close(0)' "$T_TMP/close.trace") close(0))" \
		bash -c "[ -s '$T_TMP/close.trace' ] && ! grep -q 'close(0)' '$T_TMP/close.trace'"
else
	echo "SKIP (one check): strace is not installed, so the close(0) check cannot look"
fi
# -- CMD still running when -n ends the run: the summary says so (it said "exited with status
# 1"), and pmutop's status is the command's after the SIGTERM that ends it (128 + 15).
run_cmd -b -n 1 -i 100 -e task-clock -- sleep 5
if grep -q "Performance counter stats for 'sleep 5'" "$T_TMP/err"; then
	check "-n 1 -- sleep 5: exit 143 (got $RC)" [ "$RC" -eq 143 ]
	check "-n 1 -- sleep 5: the summary says it was still running ($(tail -2 "$T_TMP/err" | tr '\n' ' '))" \
		grep -q "^ sleep 5 was still running when counting stopped: ended with SIGTERM$" "$T_TMP/err"
	check "-n 1 -- sleep 5: no exit status it never had" bash -c "! grep -q 'exited with status' '$T_TMP/err'"
else
	echo "SKIP (one check): -- CMD cannot count here: $(head -c 200 "$T_TMP/err")"
fi
t_done

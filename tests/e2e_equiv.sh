#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_equiv.sh: what the engine guarantees, seen from the command line: one sim run (kernel
# multiplexing, offcore request bits rotated over the two MSRs, a CPU offline and back, offcore
# shares) gives the same frames live, recorded and replayed, in a flight recording, through
# --remote and on the screen; a live sw run replays to the same numbers; the seams between
# commands, screen, batch output and recorder; CPUs that come and go (a --sysfs-root tree whose
# online file changes) and a dropped remote link, through every path. Half of these checks
# failed before the engine was rebuilt around sources, one loop and one frame per refresh.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to compare JSON"; exit 77; }
T=$T_TMP
EQ=(python3 "$T_SRC/tests/equiv.py")
AGENT=${PMUTOP_AGENT_BIN:-$(dirname "$BIN")/pmutop-agent}
[ -x "$AGENT" ] || AGENT=$BIN
mkdir -p "$T/home/.config" "$T/state"
export HOME=$T/home XDG_STATE_HOME=$T/state XDG_CONFIG_HOME=$T/home/.config

# run OUT ARGS...: pmutop with stdout in $T/OUT, stderr in $T/OUT.err, status in $RC.
run() {
	local out=$1
	shift
	(cd "$T" && timeout 30 "$BIN" --no-rc "$@" >"$T/$out" 2>"$T/$out.err" </dev/null)
	RC=$?
}
ok_run() { # DESC: the last run exited 0
	[ "$RC" -eq 0 ] || { echo "  exit $RC: $(head -c 600 "$T/$1.err")"; return 1; }
}
eq() { "${EQ[@]}" "$@"; }

# --- tmux: the real screen ---------------------------------------------------------------------
SOCK=pmutop-equiv-$$
TM=(tmux -L "$SOCK" -f /dev/null)
HAVE_TMUX=0
if command -v tmux >/dev/null && "${TM[@]}" new-session -d -s keep -x 80 -y 24 "sleep 600" 2>/dev/null; then
	HAVE_TMUX=1
	T_CLEANUPS+=("tmux_close '$SOCK'")
	"${TM[@]}" set-option -g status off >/dev/null
fi
NO_TMUX="tmux is not installed or cannot start a server here"
# scr NAME W H WORD...: a W x H session running the words (shell-quoted), then EXIT=status.
scr() {
	local name=$1 w=$2 h=$3 cmd
	shift 3
	cmd=$(printf '%q ' "$@")
	"${TM[@]}" new-session -d -s "$name" -x "$w" -y "$h" -e TERM=xterm-256color -e NO_COLOR=1 \
		-e HOME="$HOME" -e XDG_STATE_HOME="$XDG_STATE_HOME" -e XDG_CONFIG_HOME="$XDG_CONFIG_HOME" \
		"cd $(printf %q "$T"); $cmd 2>$(printf %q "$T/$name.err"); echo EXIT=\$?; sleep 600"
}
pane() { "${TM[@]}" capture-pane -p -t "$1"; }
keys() {
	local s=$1
	shift
	"${TM[@]}" send-keys -t "$s" "$@"
}
# wait_for S REGEX [SECONDS]: polls the pane until REGEX (grep -E) matches.
wait_for() {
	local s=$1 re=$2 limit=${3:-10} i
	for ((i = 0; i < limit * 20; i++)); do
		pane "$s" | grep -qE -- "$re" && return 0
		sleep 0.05
	done
	echo "  --- pane $s after $limit s without /$re/:"
	pane "$s" | sed 's/^/  | /' | head -20
	return 1
}
wait_gone() {
	local s=$1 re=$2 i
	for ((i = 0; i < 200; i++)); do
		pane "$s" | grep -qE -- "$re" || return 0
		sleep 0.05
	done
	return 1
}
tick_of() { pane "$1" | sed -n 's/.*| #\([0-9][0-9]*\).*/\1/p' | head -1; }
wait_tick() { # S N: until the header's tick is at least N
	local s=$1 n=$2 i t
	for ((i = 0; i < 200; i++)); do
		t=$(tick_of "$s")
		[ -n "$t" ] && [ "$t" -ge "$n" ] && return 0
		sleep 0.05
	done
	return 1
}
# snap S FILE: a capture that two reads in a row agree on (the frame is not being drawn)
snap() {
	local i
	pane "$1" >"$2.a"
	for ((i = 0; i < 40; i++)); do
		sleep 0.05
		pane "$1" >"$2"
		cmp -s "$2" "$2.a" && return 0
		mv "$2" "$2.a"
	done
	mv "$2.a" "$2"
}
pause_at() { # S N FILE: waits for tick N, pauses, captures the paused frame
	wait_tick "$1" "$2" && keys "$1" " " && wait_for "$1" '^mode .*PAUSED' 5 && snap "$1" "$3"
}
header_cols() { # FILE: the column header line of a captured table
	grep -m1 '^CPU ' "$1"
}
has_col() { # FILE REGEX: a column header word matching REGEX (whole word)
	header_cols "$1" | tr -s ' ' '\n' | grep -qE "^($2)$"
}

# ==== 1. one sim run, five ways =================================================================
# Silvermont has 2 programmable counters, so -m offcore sweeps its 16 request-type bits over the
# two offcore MSRs in 8 time slices (pmutop's rotation), on top of the kernel multiplexing that
# --sim-mux forces on every event; CPU 1 is offline for ticks 2..4 and back from 5; the offcore
# metrics are each bit's share of the measured requests. tests/test_views.c renders the same run
# into the equiv-offcore goldens: keep SIM and its equiv_args the same.
SIM=(--backend sim --sim-family slm --sim-cpus 2 --sim-mux 0.75 --sim-offline 1:2-4 --seed 3)
RUN=("${SIM[@]}" -m offcore -i 100)
N=15

run plain.json -b -n $N "${RUN[@]}" -f json
check "sim run: exits 0" ok_run plain.json
# the same run with every reader attached: a recording, the flight recorder, a rule that triggers
# it on the first tick (its window, 30 s, holds the whole run)
run live.json -b -n $N "${RUN[@]}" -f json -r "$T/rec.jsonl" --flight 30 --flight-out "$T/fl" --alert "cpi > 0 on 0"
check "sim run with -r, --flight and --alert: exits 0" ok_run live.json
check "sim run: $N records" [ "$(wc -l <"$T/live.json")" -eq $N ]
# the recipe really has all four: if one went missing, the equivalences below would prove less
recipe() {
	python3 - "$T/live.json" <<'PY'
import json, sys
R = [json.loads(l) for l in open(sys.argv[1])]
ev = lambda r: [(c["cpu"], n, e) for c in r["cpus"] for n, e in c["events"].items()]
bits = [m for m in R[0]["total"]["metrics"] if m in R[0]["total"]["events"]]
why = []
if not any(e["state"] == "scaled" and e["running"] == 0.75 for r in R for _, n, e in ev(r) if n == "cycles"):
    why.append("no kernel multiplexing (cycles never scaled at 75 %)")
if len(bits) < 8 or not any(e["state"] == "not_counted" for r in R for c, n, e in ev(r) if n in bits and c == 0) \
        or not any(e["state"] == "scaled" and 0 < e["running"] < 0.75 for r in R for c, n, e in ev(r) if n in bits):
    why.append("no rotation of the offcore bits (%d bit metrics)" % len(bits))
off = [r["seq"] for r in R if any(c["cpu"] == 1 and c.get("offline") for c in r["cpus"])]
back = [r["seq"] for r in R if off and r["seq"] > max(off) and
        any(c["cpu"] == 1 and c["metrics"].get("cpi") is not None for c in r["cpus"])]
if not off or not back:
    why.append("CPU 1 not offline and back (offline at %s, back at %s)" % (off, back))
for r in R:
    s = [v for m, v in r["total"]["metrics"].items() if m in bits and v is not None]
    if len(s) >= 2 and abs(sum(s) - 100) > 0.01:
        why.append("seq %s: the offcore shares add up to %.4f, not 100" % (r["seq"], sum(s)))
        break
if not any(len([v for m, v in r["total"]["metrics"].items() if m in bits and v is not None]) >= 2 for r in R):
    why.append("no offcore shares")
for w in why:
    print("  " + w)
sys.exit(1 if why else 0)
PY
}
check "sim run: has kernel multiplexing, rotated offcore bits, CPU 1 offline and back, offcore shares" recipe
check "(a) live batch JSON is the same with and without the recorder, flight recorder and rule" \
	eq same "$T/plain.json" "$T/live.json" plain with-readers

# the offcore breakdown in batch output: per CPU and in total each bit's rate, share and age in
# JSON (the ANY bit never has a share; the first slice is measured in the first tick), the same
# numbers in the text records' offcore lines and in CSV
check "offcore JSON: rate = event/s, share = share metric, age null only before the first measurement, ANY has no share" \
	eq offcore-json "$T/live.json" ANY
run plain.text -b -n $N "${RUN[@]}" -f text
check "offcore batch text: exits 0" ok_run plain.text
check "offcore batch text lines = JSON total.offcore, record by record" eq offcore-text "$T/plain.text" "$T/live.json"
run plain.csv -b -n $N "${RUN[@]}" -f csv
check "offcore batch CSV: exits 0" ok_run plain.csv
check "offcore batch CSV offcore_* lines = JSON offcore, per CPU and all" eq offcore-csv "$T/plain.csv" "$T/live.json"

# (b) record, then replay
run rep.json -b -R "$T/rec.jsonl" -f json
check "(b) replay of the recording: exits 0" ok_run rep.json
check "(b) replay of the recording = live, value for value and state for state" eq same "$T/live.json" "$T/rep.json" live replay

# (c) the flight recording of the same window
FL=$T/fl-1.jsonl
check "(c) the rule wrote a flight recording" [ -s "$FL" ]
if [ -s "$FL" ]; then
	run flr.json -b -R "$FL" -f json
	check "(c) replay of the flight recording: exits 0" ok_run flr.json
	# the window holds the whole run: every interval but the first (the base of the window)
	check "(c) flight recording replayed = live at the same times (at least $((N - 1)) intervals)" \
		eq same "$T/live.json" "$T/flr.json" live flight --window $((N - 1)) --no-stats
fi

# (d) the same run through --remote, with a local stand-in for ssh that runs the agent here
printf '#!/bin/sh\n# stand-in for "ssh -T -- HOST": drops -- HOST, runs the command line here\nshift 2\nexec sh -c "$*"\n' >"$T/transport.sh"
chmod +x "$T/transport.sh"
AGENT_CMD="$(printf '%q' "$AGENT") ${SIM[*]}"
run rem.json -b -n $N -i 100 -m offcore --remote board --transport "$T/transport.sh" --agent "$AGENT_CMD" -f json
check "(d) --remote run: exits 0" ok_run rem.json
check "(d) --remote batch JSON = live" eq same "$T/live.json" "$T/rem.json" live remote

# (e) the screen: the canvas goldens of the same run (tests/test_views.c), and the real screen
for g in equiv-offcore-t4-80x24 equiv-offcore-t4-132x40 equiv-offcore-t7-80x24 equiv-offcore-t7-132x40; do
	check "(e) golden screen $g.txt: every number is the batch JSON's" \
		eq table "$GOLDEN/screens/$g.txt" "$T/live.json"
done
if [ $HAVE_TMUX = 1 ]; then
	# 320 columns: all 17 metric columns at full width. Counting goes on while the display is
	# paused, so on a loaded machine the screen can pass the batch run's last tick: the screen's
	# own run is recorded, and its replay (= live for the first $N ticks) is what the captures
	# are compared with.
	scr eq 320 14 "$BIN" --no-rc "${RUN[@]}" -r "$T/scr.jsonl"
	if wait_for eq '^ +all ' 10; then
		pause_at eq 3 "$T/screen1.txt"
		keys eq " "
		wait_gone eq 'PAUSED'
		pause_at eq 7 "$T/screen2.txt"
		keys eq o
		wait_for eq 'offcore requests by request-type bit' 5 && snap eq "$T/screen3.txt"
		keys eq q
		wait_for eq '^EXIT=' 10
		run scr.json -b -R "$T/scr.jsonl" -f json
		check "(e) the screen's run, recorded and replayed: exits 0" ok_run scr.json
		check "(e) the screen's run = the batch run for its first $N ticks" \
			eq same "$T/scr.json" "$T/live.json" screen-run live --window $N --no-stats
		check "(e) screen (tmux 320x14), paused at tick >= 3: every cell = batch JSON" eq table "$T/screen1.txt" "$T/scr.json" 17
		check "(e) screen, paused at tick >= 7 (CPU 1 back): every cell = batch JSON" eq table "$T/screen2.txt" "$T/scr.json" 17
		check "(e) offcore view: each bit's rate, share and age = the all row of batch JSON" eq offcore "$T/screen3.txt" "$T/scr.json"
	else
		fail "(e) the sim screen did not come up"
	fi
else
	skip "(e) the real screen: $NO_TMUX"
fi

# ==== 2. a live run on this machine: software events ============================================
run swlive.json -b -n 5 -i 100 -m sw -f json -r "$T/sw.jsonl" --flight 30 --flight-out "$T/swfl" --alert "counted > 1"
LIVE_OK=0
if [ "$RC" -eq 0 ] && [ -s "$T/swlive.json" ]; then
	LIVE_OK=1
	run swrep.json -b -R "$T/sw.jsonl" -f json
	check "sw: replay of the live recording exits 0" ok_run swrep.json
	check "sw: replay of the live recording = live, every metric (util from proc/busy too)" \
		eq same "$T/swlive.json" "$T/swrep.json" live replay
	# /proc/stat counts busy time in clock ticks (USER_HZ): over one interval a CPU can be
	# credited one tick more than the interval; the live run itself shows up to that (and, on a
	# loaded VM, what its tick accounting says): the flight must not show more than either
	HZ=$(getconf CLK_TCK 2>/dev/null || echo 100)
	if [ -s "$T/swfl-1.jsonl" ]; then
		run swfl.json -b -R "$T/swfl-1.jsonl" -f json
		check "sw: replay of the flight recording exits 0" ok_run swfl.json
		check "sw: the flight recording shows no util above 100 % (+ one /proc/stat tick) the live run did not" \
			eq util-bound "$T/swfl.json" "$HZ" "$T/swlive.json"
	else
		fail "sw: the rule wrote no flight recording ($(head -c 300 "$T/swlive.json.err"))"
	fi
else
	skip "sw: live software events do not count here: exit $RC: $(head -c 300 "$T/swlive.json.err")"
fi

# ==== 3. seams ====================================================================================
# :add / :remove, in batch through -c (sim: the same everywhere)
run add.json -b -n 3 -i 100 --backend sim -m sw -c "add mig=perf::CPU-MIGRATIONS" -f json
check "-c 'add mig=perf::CPU-MIGRATIONS' in batch: event mig and its rate in the JSON" eq mig "$T/add.json" present
run addrm.json -b -n 3 -i 100 --backend sim -m sw -c "add mig=perf::CPU-MIGRATIONS" -c "remove mig" \
	-c "remove migrations" -f json
check "-c add then remove mig in batch: no mig" eq mig "$T/addrm.json" absent
check "-c 'remove migrations' in batch: the sw event migrations is gone" eq no-event "$T/addrm.json" migrations

LIVE_SCREEN=(-m sw)
[ $LIVE_OK = 1 ] || LIVE_SCREEN=(--backend sim -m sw)
CAPLINE=
if [ $HAVE_TMUX = 1 ]; then
	# :add / :remove on the screen
	scr ar 200 16 "$BIN" --no-rc -i 100 "${LIVE_SCREEN[@]}"
	if wait_for ar '^ +all ' 10; then
		snap ar "$T/ar0.txt"
		[ $LIVE_OK = 1 ] && CAPLINE=$(sed -n 3p "$T/ar0.txt" | sed 's/ *$//')
		keys ar ":add mig=perf::CPU-MIGRATIONS" Enter
		wait_for ar 'opened|[Ee]rror|cannot|unknown' 5 >/dev/null
		wait_tick ar $(($(tick_of ar) + 2))
		snap ar "$T/ar1.txt"
		check ":add mig=perf::CPU-MIGRATIONS on the screen: a mig column ($(header_cols "$T/ar1.txt" | tr -s ' '))" \
			has_col "$T/ar1.txt" 'mig([_/].*)?'
		keys ar ":remove mig" Enter
		sleep 0.3
		wait_tick ar $(($(tick_of ar) + 2))
		snap ar "$T/ar2.txt"
		gone_again() { has_col "$T/ar1.txt" 'mig([_/].*)?' && ! has_col "$T/ar2.txt" 'mig([_/].*)?'; }
		check ":remove mig on the screen: the mig column that :add made is gone" gone_again
		keys ar ":remove migrations" Enter
		sleep 0.3
		wait_tick ar $(($(tick_of ar) + 2))
		snap ar "$T/ar3.txt"
		removed() { has_col "$T/ar0.txt" 'migr_per_s' && ! has_col "$T/ar3.txt" 'migr_per_s'; }
		check ":remove migrations on the screen: the migr_per_s column is gone" removed
		keys ar q
	else
		fail ":add/:remove: the screen did not come up"
	fi

	# pause on the screen: the recording keeps growing
	scr pr 120 16 "$BIN" --no-rc -i 100 --backend sim -m sw -r "$T/paused.jsonl"
	if wait_for pr '^ +all ' 10; then
		keys pr " "
		wait_for pr '^mode .*PAUSED' 5
		n1=$(grep -c '"type":"tick"' "$T/paused.jsonl")
		grows() {
			local i n
			for ((i = 0; i < 60; i++)); do
				n=$(grep -c '"type":"tick"' "$T/paused.jsonl")
				[ "$n" -gt "$n1" ] && return 0
				sleep 0.05
			done
			echo "  $n1 ticks recorded when paused, still $n after 3 s"
			return 1
		}
		check "pause on the screen: a running recording (-r) keeps growing" grows
		check "pause: the screen is still paused" wait_for pr '^mode .*PAUSED' 1
		keys pr q
	else
		fail "pause: the screen did not come up"
	fi

	# pause, then :mode: the paused screen holds its frame, header and table alike (the header
	# once named the new mode over the frozen table)
	scr pm 120 16 "$BIN" --no-rc -i 100 --backend sim -m cpi
	if wait_for pm '^ +all ' 10; then
		keys pm " "
		wait_for pm '^mode .*PAUSED' 5
		snap pm "$T/pm0.txt"
		keys pm ":mode branch" Enter
		sleep 0.6 # six ticks of the new mode: counting goes on behind the paused screen
		snap pm "$T/pm1.txt"
		held() {
			grep -q '^mode cpi' "$T/pm1.txt" && [ "$(header_cols "$T/pm0.txt")" = "$(header_cols "$T/pm1.txt")" ] ||
				{ echo "  paused header: $(grep -m1 '^mode' "$T/pm1.txt"); columns: $(header_cols "$T/pm1.txt" | tr -s ' ')"; return 1; }
		}
		check "pause + :mode: the header still names the frozen table's mode (cpi) and its columns" held
		keys pm " "
		check "resume after :mode: header and table are the new mode's" \
			wait_for pm '^mode branch' 5
		check "resume after :mode: the table has the new mode's columns" \
			wait_for pm '^ *CPU .*brmiss' 5
		keys pm q
	else
		fail "pause + :mode: the screen did not come up"
	fi

	# pause with --listen: the endpoint keeps serving fresh frames (a counter advances)
	PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	scr pl 120 16 "$BIN" --no-rc -i 100 --backend sim -m cpi --listen "127.0.0.1:$PORT"
	# scrape: the sum of the counter samples the endpoint serves now
	scrape() {
		python3 - "$PORT" <<'PYEOF'
import re, sys, urllib.request
page = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode()
vals = [float(l.rsplit(" ", 1)[1]) for l in page.splitlines() if re.match(r"^\w+_total\{", l)]
print(sum(vals) if vals else "none")
PYEOF
	}
	if wait_for pl '^ +all ' 10; then
		keys pl " "
		wait_for pl '^mode .*PAUSED' 5
		# scrapes five ticks apart at least, then polled as long as a loaded machine needs (9 s
		# more); a first scrape that did not answer is taken again
		c1=$(scrape 2>&1)
		sleep 0.5
		c2=$(scrape 2>&1)
		for ((i = 0; i < 18; i++)); do
			python3 -c 'import sys; sys.exit(0 if float(sys.argv[2]) > float(sys.argv[1]) > 0 else 1)' \
				"$c1" "$c2" 2>/dev/null && break
			python3 -c 'import sys; float(sys.argv[1])' "$c1" 2>/dev/null || c1=$c2
			sleep 0.5
			c2=$(scrape 2>&1)
		done
		counting() {
			python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if b > a > 0 else 1)' "$c1" "$c2" 2>/dev/null ||
				{ echo "  scrapes while paused: $c1 then $c2"; return 1; }
		}
		check "pause + --listen: the endpoint's counters advance while the screen is paused" counting
		check "pause + --listen: the screen is still paused" wait_for pl '^mode .*PAUSED' 1
		keys pl q
	else
		fail "pause + --listen: the screen did not come up"
	fi
else
	skip ":add/:remove and pause on the screen: $NO_TMUX"
fi

# remote: the batch JSON names its source
remote_backend() {
	python3 -c 'import json,sys
b = sorted({json.loads(l)["backend"] for l in open(sys.argv[1])})
print("  backend:", b); sys.exit(b != ["remote"])' "$T/rem.json"
}
check "--remote batch JSON says \"backend\": \"remote\"" remote_backend

# a replay shows the recorded host, kernel and PMU, not this machine's
python3 - "$T/rec.jsonl" "$T/rec7.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
h = json.loads(lines[0])
h.update(host="board-7", kernel="5.10.0-test", pmu="cpu_atom7", model="board model 7")
open(sys.argv[2], "w").write("\n".join([json.dumps(h)] + lines[1:]) + "\n")
PY
run rep7.json -b -R "$T/rec7.jsonl" -f json -n 2
check "replay of the edited recording: exits 0" ok_run rep7.json
check "replay batch JSON: the recorded host board-7, kernel 5.10.0-test and PMU (cpu_atom7 or Silvermont)" \
	eq has-strings "$T/rep7.json" board-7 5.10.0-test "cpu_atom7|Silvermont|slm"
if [ $HAVE_TMUX = 1 ]; then
	scr rp 200 16 "$BIN" --no-rc -R "$T/rec7.jsonl"
	if wait_for rp '^ +all ' 10; then
		snap rp "$T/rp.txt"
		check "replay screen header: recorded host board-7 and kernel 5.10.0-test" \
			grep -qE '^pmutop board-7 +5\.10\.0-test ' "$T/rp.txt"
		check "replay screen header: the recorded PMU (cpu_atom7 or Silvermont)" \
			bash -c "head -1 '$T/rp.txt' | grep -qE 'cpu_atom7|Silvermont'"
		if [ -n "$CAPLINE" ]; then
			not_this_machine() {
				if grep -qxF -- "$CAPLINE" <(sed 's/ *$//' "$T/rp.txt"); then
					echo "  the replay shows this machine's capability line: $CAPLINE"
					return 1
				fi
			}
			check "replay screen header: not this machine's capability line" not_this_machine
		else
			skip "replay capability line: no live screen of this machine to compare with"
		fi
		keys rp q
	else
		fail "replay screen did not come up"
	fi
else
	skip "replay screen header: $NO_TMUX"
fi

# -c in batch: a command that changes the run; a bad command
run iv.json -b -n 2 -i 100 --backend sim -m cpi -c "interval 300" -f json
check "-c 'interval 300' in batch: 300 ms ticks" eq interval "$T/iv.json" 300
run bogus.json -b -n 1 -i 100 --backend sim -m cpi -c bogus -f json
bogus_ok() {
	[ "$RC" -eq 2 ] && grep -q -- '-c:1:' "$T/bogus.json.err" && return 0
	echo "  exit $RC, stderr: $(head -c 300 "$T/bogus.json.err")"
	return 1
}
check "-c bogus in batch: exit 2 and '-c:1:' on stderr" bogus_ok

# define the same mode twice, the second fails to open (on the sim, event 0 never opens: the
# second definition has nothing else), under AddressSanitizer when there is an ASan build
ABIN=
if ldd "$BIN" 2>/dev/null | grep -q libasan; then
	ABIN=$BIN
elif [ -x "$T_SRC/build-asan/pmutop" ]; then
	ABIN=$T_SRC/build-asan/pmutop
fi
DBIN=${ABIN:-$BIN}
[ -n "$ABIN" ] || skip "define twice: no ASan build (SANITIZE=1 bash scripts/test.sh makes build-asan/): checked without it"
DEF1="define foo a=perf::CPU-CLOCK,s=perf::CONTEXT-SWITCHES cs=s/interval"
DEF2="define foo x=perf::CONTEXT-SWITCHES xs=x/interval"
no_asan() { # PREFIX
	if ls "$1".* >/dev/null 2>&1; then
		echo "  $(grep -h -m1 'ERROR: AddressSanitizer' "$1".*)"
		grep -h -m3 ' in ' "$1".* | sed 's/^/  /'
		return 1
	fi
}
(cd "$T" && ASAN_OPTIONS=log_path=$T/asan-batch timeout 30 "$DBIN" --no-rc -b -n 3 -i 100 --backend sim \
	--sim-fail-event 0 -m sw -c "$DEF1" -c "$DEF2" -f json >"$T/def.json" 2>"$T/def.err" </dev/null)
RC=$?
def_batch() {
	no_asan "$T/asan-batch" || return 1
	grep -q -- '-c:2:' "$T/def.err" || { echo "  exit $RC; the failed second define is not reported as -c:2: $(head -c 300 "$T/def.err")"; return 1; }
	[ "$RC" -eq 0 ] || [ "$RC" -eq 2 ] || { echo "  exit $RC"; return 1; }
	[ ! -s "$T/def.json" ] || eq modes "$T/def.json" foo
}
check "define foo twice via -c in batch, the second fails: reported as -c:2:, no heap-use-after-free" def_batch
if [ $HAVE_TMUX = 1 ]; then
	scr df 160 16 env ASAN_OPTIONS=log_path=$T/asan-screen "$DBIN" --no-rc -i 100 --backend sim --sim-fail-event 0 -m sw
	if wait_for df '^ +all ' 10; then
		keys df ":$DEF1" Enter
		wait_for df '^mode foo ' 5
		keys df ":$DEF2" Enter
		sleep 0.5
		t1=$(tick_of df)
		def_screen() {
			no_asan "$T/asan-screen" || return 1
			if pane df | grep -q 'EXIT=[0-9]'; then
				echo "  pmutop ended with $(pane df | grep -o 'EXIT=[0-9]*' | tail -1) (139: SIGSEGV):"
				pane df | grep -v '^ *$' | tail -3 | sed 's/^/  | /'
				return 1
			fi
			wait_for df '^mode foo ' 2 >/dev/null || { echo "  the first foo is not running"; return 1; }
			wait_tick df $((t1 + 2)) || { echo "  ticks stopped at #$t1"; return 1; }
		}
		check "define foo twice on the screen, the second fails: the first keeps running, no heap-use-after-free" def_screen
		keys df q
	else
		fail "define: the screen did not come up"
	fi
else
	skip "define twice on the screen: $NO_TMUX"
fi


# ==== 4. CPUs coming and going: a --sysfs-root tree whose online file changes =================
# The perf backend counts software events on CPUs 0 and 1 of this machine while the tree says
# which are online: CPU 1 comes online (a row from then on), then CPU 0 goes offline (its row
# stays, shown offline) and comes back (counted again after one tick). Live, recorded and
# replayed, the flight recordings, the remote stream and the screen agree tick for tick.
HT=$T/hptree
cp -r "$T_SRC/tests/sysfs/x86-skylake" "$HT"
HON=$HT/sys/devices/system/cpu/online
# wait_recs FILE N PID: until FILE has N lines (1 when PID ended first or after 60 s)
wait_recs() {
	local i
	for ((i = 0; i < 1200; i++)); do
		[ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ] && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
# wait_grep FILE REGEX PID: until a line of FILE matches (pmutop reads the online list once a
# second)
wait_grep() {
	local i
	for ((i = 0; i < 1200; i++)); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
# keep.sh FILE: the stand-in transports' tee: each line of the board's stream goes to FILE before
# it goes on to the client. The client ends the transport once it has its last record, and tee
# (stdout first) could die before writing that record to its file.
cat >"$T/keep.sh" <<'EOF'
#!/bin/sh
: >>"$1"
while IFS= read -r l; do
	printf '%s\n' "$l" >>"$1"
	printf '%s\n' "$l" || exit 0
done
EOF
chmod +x "$T/keep.sh"
# hotplug OUT PID: drives the tree through the steps, following OUT (batch JSON)
hotplug() {
	local out=$1 pid=$2
	wait_recs "$out" 5 "$pid"
	echo 0-1 >"$HON"
	wait_grep "$out" '"cpu":1,' "$pid"
	wait_recs "$out" $(($(wc -l <"$out") + 5)) "$pid"
	echo 1 >"$HON"
	wait_grep "$out" '"cpu":0,"offline":true' "$pid"
	wait_recs "$out" $(($(wc -l <"$out") + 5)) "$pid"
	echo 0-1 >"$HON"
}
if ! timeout 20 "$BIN" --no-rc -b -m sw -n 1 -i 50 -C 0,1 >/dev/null 2>&1 </dev/null; then
	skip "hotplug: software events cannot be counted on CPUs 0 and 1 here (perf_event_paranoid, or one CPU)"
else
	echo 0 >"$HON"
	(cd "$T" && timeout 60 "$BIN" --no-rc -b -m sw -i 100 -n 70 --sysfs-root "$HT" -f json \
		-r "$T/hp.jsonl" --flight 30 --flight-out "$T/hpfl" --alert "counted > 1" \
		>"$T/hp.json" 2>"$T/hp.json.err" </dev/null) &
	PID=$!
	hotplug "$T/hp.json" $PID
	wait $PID
	RC=$?
	check "hotplug: the live run exits 0" ok_run hp.json
	check "hotplug: CPU 1 comes online, CPU 0 goes offline and comes back: $(eq hotplug "$T/hp.json")" \
		eq hotplug "$T/hp.json"
	check "hotplug: the messages say so" bash -c "grep -q 'CPU 1 came online' '$T/hp.json.err' &&
		grep -q 'CPU 0 went offline' '$T/hp.json.err' && grep -q 'CPU 0 is online again' '$T/hp.json.err'"
	run hprep.json -b -R "$T/hp.jsonl" -f json
	check "hotplug (b): replay of the recording exits 0" ok_run hprep.json
	check "hotplug (b): replay = live, record for record (CPU 1's row from where it came online)" \
		eq same "$T/hp.json" "$T/hprep.json" live replay
	nfl=0
	for fl in "$T"/hpfl-*.jsonl; do
		[ -s "$fl" ] || continue
		nfl=$((nfl + 1))
		run hpfl.json -b -R "$fl" -f json
		check "hotplug (c): replay of ${fl##*/} exits 0" ok_run hpfl.json
		check "hotplug (c): ${fl##*/} replayed = live at the same times" \
			eq same "$T/hp.json" "$T/hpfl.json" live flight --window 3 --no-stats
	done
	check "hotplug (c): the rule wrote flight recordings ($nfl)" [ "$nfl" -ge 1 ]

	# (d) the same on a board: the agent follows the tree; the transport keeps what the board
	# sent (its stream is its recording), so the client's numbers can be held against the board's
	printf '#!/bin/sh\nshift 2\nsh -c "$* -m sw --sysfs-root %s" | %s %s\n' "'$HT'" "'$T/keep.sh'" "'$T/hpboard.jsonl'" >"$T/hptr.sh"
	chmod +x "$T/hptr.sh"
	echo 0 >"$HON"
	(cd "$T" && timeout 60 "$BIN" --no-rc -b -i 100 -n 70 -m sw --remote board --transport "$T/hptr.sh" \
		--agent "$AGENT" -f json -r "$T/hprem.jsonl" >"$T/hprem.json" 2>"$T/hprem.json.err" </dev/null) &
	PID=$!
	hotplug "$T/hprem.json" $PID
	wait $PID
	RC=$?
	check "hotplug (d): the --remote run exits 0" ok_run hprem.json
	check "hotplug (d): the board's CPUs come and go in the client: $(eq hotplug "$T/hprem.json")" \
		eq hotplug "$T/hprem.json"
	run hpboard.json -b -R "$T/hpboard.jsonl" -f json
	check "hotplug (d): the board's stream replays" ok_run hpboard.json
	check "hotplug (d): --remote = the board's own stream, record for record" \
		eq same "$T/hpboard.json" "$T/hprem.json" board remote --window 60
	run hpremrep.json -b -R "$T/hprem.jsonl" -f json
	check "hotplug (d): the client's recording replayed = the client" \
		eq same "$T/hprem.json" "$T/hpremrep.json" remote replay

	# (e) the screen through the same steps: paused with CPU 0 offline and CPU 1 online, then
	# with CPU 0 back, every cell is the batch JSON of the screen's own run (recorded, replayed)
	if [ $HAVE_TMUX = 1 ]; then
		echo 0 >"$HON"
		scr hp 200 16 "$BIN" --no-rc -m sw -i 100 --sysfs-root "$HT" -r "$T/hpscr.jsonl"
		if wait_for hp '^ +all ' 10; then
			wait_tick hp 5
			echo 0-1 >"$HON"
			wait_for hp '^ +1 ' 10 >/dev/null
			wait_tick hp $(($(tick_of hp) + 3))
			echo 1 >"$HON"
			wait_for hp '^ +0 +offline' 10 >/dev/null
			pause_at hp $(($(tick_of hp) + 1)) "$T/hpscr1.txt"
			keys hp " "
			wait_gone hp 'PAUSED'
			echo 0-1 >"$HON"
			wait_for hp '^ +0 +[0-9]' 10 >/dev/null
			pause_at hp $(($(tick_of hp) + 2)) "$T/hpscr2.txt"
			keys hp q
			wait_for hp '^EXIT=' 10
			run hpscr.json -b -R "$T/hpscr.jsonl" -f json
			check "hotplug (e): the screen's run, recorded and replayed: exits 0" ok_run hpscr.json
			check "hotplug (e): screen with CPU 0 offline: every cell = batch JSON" \
				eq table "$T/hpscr1.txt" "$T/hpscr.json"
			check "hotplug (e): CPU 0 was offline on that screen" grep -qE '^ +0 +offline' "$T/hpscr1.txt"
			check "hotplug (e): screen with CPU 0 back: every cell = batch JSON" \
				eq table "$T/hpscr2.txt" "$T/hpscr.json"
		else
			fail "hotplug (e): the screen did not come up"
		fi
	else
		skip "hotplug (e): the real screen: $NO_TMUX"
	fi
fi

# ==== 5. a dropped remote link ===================================================================
# The board dies mid-run (the transport's process group is killed) and the client reconnects: the
# client's records are the board's, stream by stream, with its times shifted past the outage;
# seq never repeats; the gap is a mark, at the same place live, in the client's recording and in
# its replay; the client's recording and flight recordings replay to the client's records.
{
	echo '#!/bin/sh'
	echo '# a stand-in for "ssh -T -- HOST": each connection'"'"'s stream kept in board-N.jsonl, its'
	echo '# process group in board.pid (the client makes the transport a group leader)'
	echo 'shift 2'
	echo "n=\$(ls '$T'/board-*.jsonl 2>/dev/null | wc -l)"
	echo "echo \$\$ >'$T/board.pid'"
	echo "sh -c \"\$* ${SIM[*]}\" | '$T/keep.sh' \"$T/board-\$n.jsonl\""
} >"$T/droptr.sh"
chmod +x "$T/droptr.sh"
(cd "$T" && timeout 60 "$BIN" --no-rc -b -n 40 -i 100 -m sw --remote board --transport "$T/droptr.sh" \
	--agent "$AGENT" -f json -r "$T/drop.jsonl" --flight 30 --flight-out "$T/dropfl" --alert "counted > 1" \
	>"$T/drop.json" 2>"$T/drop.json.err" </dev/null) &
PID=$!
wait_recs "$T/drop.json" 12 $PID
kill -KILL -- "-$(cat "$T/board.pid")"
wait $PID
RC=$?
check "dropped link: the --remote run exits 0 after reconnecting" ok_run drop.json
check "dropped link: the client reconnected" grep -q 'reconnected to board' "$T/drop.json.err"
check "dropped link: 40 records" [ "$(wc -l <"$T/drop.json")" = 40 ]
boards=()
for b in "$T"/board-*.jsonl; do
	run "${b##*/}.json" -b -R "$b" -f json
	boards+=("$T/${b##*/}.json")
done
check "dropped link: two board streams (${#boards[@]})" [ "${#boards[@]}" = 2 ]
check "dropped link: the client = the board's streams tick for tick, times past the outage, seq never repeated: $(eq pieces "$T/drop.json" "${boards[@]}")" \
	eq pieces "$T/drop.json" "${boards[@]}"
GAPRE='mark at [0-9.]+ s: gap: link to board lost at [0-9:]+ \(after t [0-9.]+ s\), reconnected'
check "dropped link: the gap is marked live" grep -qE "$GAPRE" "$T/drop.json.err"
check "dropped link: the gap is a mark in the client's recording" \
	grep -q '^{"type":"mark",.*"text":"gap: link to board lost' "$T/drop.jsonl"
run droprep.json -b -R "$T/drop.jsonl" -f json
check "dropped link: the client's recording replays" ok_run droprep.json
check "dropped link: replay = the client, record for record" eq same "$T/drop.json" "$T/droprep.json" remote replay
same_gap() {
	local a b
	a=$(grep -oE "$GAPRE" "$T/drop.json.err")
	b=$(grep -oE "$GAPRE" "$T/droprep.json.err")
	[ -n "$a" ] && [ "$a" = "$b" ] || { echo "  live: $a; replay: $b"; return 1; }
}
check "dropped link: the replay marks the gap where the run did" same_gap
nfl=0
for fl in "$T"/dropfl-*.jsonl; do
	[ -s "$fl" ] || continue
	nfl=$((nfl + 1))
	run dropfl.json -b -R "$fl" -f json
	check "dropped link: ${fl##*/} replayed = the client at the same times" \
		eq same "$T/drop.json" "$T/dropfl.json" remote flight --window 3 --no-stats
done
check "dropped link: the rule wrote flight recordings ($nfl)" [ "$nfl" -ge 1 ]

t_done

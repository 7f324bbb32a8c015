# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_escape.sh: strings from mode files, recordings, file names and arguments never reach the
# terminal raw: every output path (--list-modes, --explain, batch text/CSV/JSON, error messages,
# a hostile recording replayed, the screen in tmux) shows terminal escapes (OSC 52, OSC 0, CSI,
# C1 as a raw byte and as UTF-8, bidirectional overrides) escaped and visible.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 needed to check the bytes"; exit 77; }
FX=$T_SRC/tests/fixtures/hostile

# raw_free FILE: no C0 control but newline and tab, no DEL, no byte that is not UTF-8 (a raw
# 0x9b), no C1 control (U+0080..U+009F) and no bidirectional control in FILE.
cat >"$T_TMP/raw_free.py" <<'PY'
import re, sys
data = open(sys.argv[1], 'rb').read()
if len(sys.argv) > 2:  # the screen: drop the colour sequences tmux itself writes
    data = re.sub(rb'\x1b\[[0-9;:]*m', b'', data)
bad = re.compile('[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]')
try:
    text = data.decode('utf-8')
except UnicodeDecodeError as e:
    sys.exit('%s: not UTF-8 at byte %d: %r' % (sys.argv[1], e.start, data[max(0, e.start - 20):e.start + 8]))
m = bad.search(text)
if m:
    sys.exit('%s: raw %r at %d: %r' % (sys.argv[1], m.group(), m.start(), text[max(0, m.start() - 30):m.start() + 10]))
PY
raw_free() { python3 "$T_TMP/raw_free.py" "$@"; }
# shows FILE TEXT: FILE holds TEXT (fixed string) -- the escaped form is visible
shows() { grep -qF -- "$2" "$1" || { echo "--- $1:"; head -c 600 "$1"; echo; return 1; }; }
# clean DESC: stdout and stderr of the last run_cmd are both free of raw controls
clean() {
	check "$1: stdout" raw_free "$T_TMP/out"
	check "$1: stderr" raw_free "$T_TMP/err"
}
OSC52='\x1b]52;c;cHduZWQ=\x07' # as it is shown
BIDI='\u202eevil\u2066'
C1='\x9b2J\xc2\x9b6n' # raw byte, then U+009B as UTF-8
M=(--no-rc --backend sim --sim-cpus 2 --mode-file "$FX/hostile.mode")

# --- the fixture really is hostile (the checker would catch it) ---------------------------------
check "the fixture carries raw escapes" bash -c "! python3 '$T_TMP/raw_free.py' '$FX/hostile.mode' 2>/dev/null"

# --- reports ------------------------------------------------------------------------------------
run_cmd "${M[@]}" --list-modes
check "--list-modes: exit 0" test "$RC" -eq 0
clean "--list-modes"
check "--list-modes: the title shows escaped" shows "$T_TMP/out" "T$OSC52\\x1b]0;PWNED\\x07\\x1b[31m$C1$BIDI"

run_cmd "${M[@]}" --explain hostile
check "--explain: exit 0" test "$RC" -eq 0
clean "--explain"
check "--explain: the title shows escaped" shows "$T_TMP/out" "mode hostile: T$OSC52"

# --- batch output -------------------------------------------------------------------------------
run_cmd "${M[@]}" -m hostile -b -n 2 -i 50
check "batch text: exit 0" test "$RC" -eq 0
clean "batch text"
check "batch text: the unit in the header shows escaped" shows "$T_TMP/out" 'util[U\x1b]52;c;c'
for f in csv json; do
	run_cmd "${M[@]}" -m hostile -b -n 2 -i 50 -f $f
	check "batch $f: exit 0" test "$RC" -eq 0
	clean "batch $f"
done

# --- errors that echo a hostile line, a file name, an argument ------------------------------------
run_cmd --no-rc --backend sim --mode-file "$FX/bad-metric.mode" -b -n 1 -m sw
clean "bad metric name"
check "bad metric name: shown escaped" shows "$T_TMP/err" 'bad metric name "u\u202e\x1b[31m\x9b2J\xc2\x9b6n"'
run_cmd --no-rc --backend sim --mode-file "$FX/bad-alias.mode" -b -n 1 -m sw
clean "bad event alias"
check "bad event alias: shown escaped" shows "$T_TMP/err" 'bad event alias "c\x1b]52;c;cHduZWQ'
run_cmd --no-rc --backend sim --mode-file "$FX/bad-spec.mode" -b -n 1 -m sw
clean "bad event spec"
check "bad event spec: shown escaped" shows "$T_TMP/err" "control characters in \"perf::CPU-CLOCK$OSC52"
hostile_name="$T_TMP/m"$'\e]0;PWNED\a\xe2\x80\xae'".mode"
cp "$FX/bad-alias.mode" "$hostile_name"
run_cmd --no-rc --backend sim --mode-file "$hostile_name" -b -n 1 -m sw
clean "hostile file name"
check "hostile file name: shown escaped" shows "$T_TMP/err" 'm\x1b]0;PWNED\x07\u202e.mode:6:'
run_cmd --no-rc -b -n 1 -R "$T_TMP/none"$'\e]52;c;eA==\a'
check "hostile -R name: exit 2" test "$RC" -eq 2
clean "hostile -R name"
check "hostile -R name: shown escaped" shows "$T_TMP/err" 'none\x1b]52;c;eA==\x07'
run_cmd --no-rc -b -n 1 -e $'cycles\e]0;PWNED\a\xe2\x80\xae,\x9b'
check "hostile -e: refused" test "$RC" -ne 0
clean "hostile -e"
check "hostile -e: shown escaped" shows "$T_TMP/err" 'cycles\x1b]0;PWNED\x07\u202e'
run_cmd --no-rc -b -n 1 -m $'\e]0;PWNED\a'
clean "hostile -m"
run_cmd --no-rc -b -n 1 $'--\e]0;PWNED\a'
clean "hostile option"
check "hostile option: shown escaped" shows "$T_TMP/err" '\x1b]0;PWNED\x07'

# --- kernel and sysfs strings: a host name, a kernel release, a CPU model, a PMU name ----------
cp -r "$T_SRC/tests/sysfs/x86-skylake" "$T_TMP/sysfs"
python3 - "$T_TMP/sysfs" <<'PY'
import os, sys
root = sys.argv[1]
H = b'\x1b]0;PWNED\x07\x9b2J' + '\u009b6n\u202eevil'.encode()
for f in ('proc/sys/kernel/hostname', 'proc/sys/kernel/osrelease'):
    open(os.path.join(root, f), 'wb').write(b'k' + H + b'\n')
info = os.path.join(root, 'proc/cpuinfo')
data = open(info, 'rb').read().replace(b'Intel(R) Core(TM) i5-6500 CPU @ 3.20GHz', b'M' + H)
open(info, 'wb').write(data)
pmus = os.path.join(root, 'sys/bus/event_source/devices')
os.rename(os.path.join(pmus, 'uprobe').encode(), os.path.join(pmus, 'up').encode() + H)
PY
for a in --list-modes --list-events "-b -n 1 -m sw" "-b -n 1 -m sw -f json"; do
	run_cmd --no-rc --backend sim --sysfs-root "$T_TMP/sysfs" $a
	clean "hostile sysfs tree, $a"
done
run_cmd --no-rc --sysfs-root "$T_TMP/sysfs" --list-events
check "hostile sysfs tree: the PMU name shows escaped" shows "$T_TMP/out" '\u202eevil'

# --- a recording made with the hostile mode, and a recording with hostile strings ---------------
run_cmd "${M[@]}" -m hostile -b -n 3 -i 50 -r "$T_TMP/rec.jsonl"
check "record: exit 0" test "$RC" -eq 0
check "the recording itself is plain" raw_free "$T_TMP/rec.jsonl"
run_cmd --no-rc --mode-file "$FX/hostile.mode" -b -R "$T_TMP/rec.jsonl"
check "replay: exit 0" test "$RC" -eq 0
clean "replay of the hostile mode"
python3 - "$T_TMP/rec.jsonl" "$T_TMP/hostile.jsonl" <<'PY'
import json, sys
H = '\x1b]52;c;cHduZWQ=\x07\x1b]0;PWNED\x07\x1b[31m\u009b6n\u202eevil\u2066'
out = []
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o['type'] == 'header':
        for k in ('host', 'kernel', 'pmu', 'model'):
            o[k] = k + H
    elif o['type'] == 'mode':
        o['name'] = 'm' + H
        for e in o['events']:
            e['name'] += H
            e['spec'] += H
        o['events'][0]['name'] = 'c,"k"' + H  # a CSV field that needs quotes
    out.append(o)
out.append({'type': 'mark', 't': 0.07, 'text': 'mark' + H})
open(sys.argv[2], 'w').write(''.join(json.dumps(o) + '\n' for o in out))
PY
for f in text csv json; do
	run_cmd --no-rc -b -R "$T_TMP/hostile.jsonl" -f $f
	check "hostile recording, $f: exit 0" test "$RC" -eq 0
	clean "hostile recording, $f"
	cp "$T_TMP/out" "$T_TMP/replay.$f"
done
check "hostile recording: the mark shows escaped" shows "$T_TMP/err" "mark$OSC52"
check "hostile recording: the host shows escaped in JSON" shows "$T_TMP/replay.json" '"host":"host\\x1b]52;c;'
# with no mode that fits, a replay shows each recorded event under a formula name made of it:
# the hostile bytes become visible _x1b_ parts, a comma and quotes become _
check "hostile recording: event names show escaped in CSV" shows "$T_TMP/replay.csv" ",event,cs_x1b_52_c_"
check "hostile recording: a name with a comma and quotes is one CSV field" shows "$T_TMP/replay.csv" ',event,c__k__x1b_52_c_'
check "hostile recording: the host is one CSV field, escaped once" shows "$T_TMP/replay.csv" ',host\x1b]52;c;cHduZWQ=\x07'
check "hostile recording: every CSV line has 10 fields (the host quoted)" python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
sys.exit(0 if rows and all(len(r) == 10 for r in rows) else "fields: %s" % sorted(set(len(r) for r in rows)))' "$T_TMP/replay.csv"

# --- the screen in tmux: the table header, the messages line, a replay banner --------------------
if command -v tmux >/dev/null; then
	SOCKS=0
	# capture_screen TEXT ARGS...: runs pmutop ARGS in a new tmux server, waits for TEXT on its
	# screen (320 columns: a hostile host name is shown whole), captures it with its attributes
	# (-e) into $T_TMP/screen
	capture_screen() {
		local want=$1 i
		shift
		SOCKS=$((SOCKS + 1))
		TM=(tmux -L "pmutop-escape-$$-$SOCKS" -f /dev/null)
		T_CLEANUPS+=("tmux_close 'pmutop-escape-$$-$SOCKS'")
		"${TM[@]}" new-session -d -x 320 -y 40 -e TERM=xterm-256color -e HOME="$T_TMP" \
			"'$BIN' $*; sleep 30" || return 1
		"${TM[@]}" set-option -g set-clipboard on >/dev/null
		for ((i = 0; i < 200; i++)); do
			"${TM[@]}" capture-pane -p -e -t 0 >"$T_TMP/screen" 2>/dev/null
			grep -qF "$want" "$T_TMP/screen" && return 0
			sleep 0.05
		done
		echo "--- screen:"
		cat "$T_TMP/screen"
		return 1
	}
	# no_effect: the pane's title was not set and no tmux buffer was written (OSC 0, OSC 52)
	no_effect() {
		! "${TM[@]}" display-message -p -t 0 '#{pane_title}' | grep -q PWNED &&
			[ -z "$("${TM[@]}" list-buffers 2>/dev/null)" ]
	}
	q_hostile="$(printf '%q' "$FX/hostile.mode")"
	q_alias="$(printf '%q' "$hostile_name")"
	check "screen: the table appears" capture_screen 'U\x1b]52' --no-rc --backend sim --sim-cpus 2 \
		--mode-file "$q_hostile" --mode-file "$q_alias" -m hostile -i 100
	check "screen: no raw control" raw_free "$T_TMP/screen" tmux
	# a CSI that reached tmux would be a colour in the capture, not this text
	check "screen: the CSI shows as text" shows "$T_TMP/screen" 'T\x1b]52;c;cHduZWQ=\x07\x1b]0;PWNED\x07\x1b[31m'
	check "screen: the file name in the message shows escaped" shows "$T_TMP/screen" 'm\x1b]0;PWNED\x07\u202e.mode'
	check "screen: no title set, no clipboard written" no_effect
	"${TM[@]}" send-keys -t 0 '?'
	sleep 0.5
	"${TM[@]}" capture-pane -p -e -t 0 >"$T_TMP/screen"
	check "screen help: no raw control" raw_free "$T_TMP/screen" tmux
	check "screen, hostile sysfs tree: the table appears" capture_screen '\u202eevil' --no-rc \
		--backend sim --sysfs-root "$(printf '%q' "$T_TMP/sysfs")" -m sw -i 100
	check "screen, hostile sysfs tree: no raw control" raw_free "$T_TMP/screen" tmux
	check "screen, hostile sysfs tree: no title set, no clipboard written" no_effect
	check "replay screen: the table appears" capture_screen 'mark\x1b]52' --no-rc -R "$(printf '%q' "$T_TMP/hostile.jsonl")" --speed 16
	check "replay screen: no raw control" raw_free "$T_TMP/screen" tmux
	check "replay screen: the banner shows escaped" shows "$T_TMP/screen" "host$OSC52\\x1b]0;PWNED\\x07\\x1b[31m\\xc2\\x9b6n$BIDI"
	check "replay screen: no title set, no clipboard written" no_effect
else
	skip "tmux is not installed: the screen is not checked"
fi
t_done

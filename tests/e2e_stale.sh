#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_stale.sh: the real screen of a --remote run whose link drops: while it is down the status
# line says DISCONNECTED and every value cell carries the stale mark "!" (plain ASCII: it reads
# in mono, under NO_COLOR and in ASCII mode), with its legend; after the reconnect the marks go.
# A board CPU that went offline shows "offline", never numbers.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read the captures"; exit 77; }
T=$T_TMP
AGENT=${PMUTOP_AGENT_BIN:-$(dirname "$BIN")/pmutop-agent}
[ -x "$AGENT" ] || AGENT=$BIN
# a stand-in for "ssh -T -- HOST": while $T/down exists the board refuses connections; each
# connection's process group is in $T/agent.pid (the client makes the transport a group leader)
cat >"$T/transport.sh" <<EOF
#!/bin/sh
shift 2
if [ -e '$T/down' ]; then
	echo "ssh: connect to host board port 22: Connection refused" >&2
	exit 255
fi
echo \$\$ >'$T/agent.pid'
exec sh -c "\$*"
EOF
chmod +x "$T/transport.sh"

tmux_open 132 24
# CPU 1 of the board goes offline from its tick 4 on (and stays so)
start "--no-rc -i 200 -m sw --remote board --transport '$T/transport.sh'" \
	"--agent '$AGENT --backend sim --sim-cpus 3 --sim-offline 1:4-100000'"
check "the link is up: connected to board" wait_for 'connected to board' 10
wait_for '^ +1 +offline' 10 >/dev/null
pane >"$T/live.txt"

# rows.py FILE WANT: each table row (CPU rows and all) against WANT: "marked" (every value cell
# is followed by the stale mark), "plain" (none is); an offline row shows only "offline"
cat >"$T/rows.py" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
want = sys.argv[2]
hdr = next((i for i, l in enumerate(lines) if l.startswith("CPU ")), None)
if hdr is None:
    print("no table:\n" + "\n".join(lines[:10])); sys.exit(1)
ncols, bad, rows = None, [], 0
for l in lines[hdr + 1:]:
    m = re.match(r"^\s*(\d+|all)\s+(.*?)\s*$", l)
    if not m:
        break
    who, rest = m.groups()
    rows += 1
    if rest == "offline":
        continue
    if who != "all" and re.search(r"offline", rest):
        bad.append("CPU %s: %r" % (who, rest))
        continue
    toks = rest.split()
    if want == "marked":
        cells = re.findall(r"(\S+?[~*^]?) !(?=\s|$)", rest)
        left = re.sub(r"(\S+?[~*^]?) !(?=\s|$)", "", rest).strip()
        if not cells or left:
            bad.append("%s: cells without the stale mark: %r" % (who, left or rest))
        n = len(cells)
    else:
        if "!" in rest:
            bad.append("%s: a stale mark: %r" % (who, rest))
        n = len(toks)
    if ncols is None:
        ncols = n
    elif n != ncols:
        bad.append("%s: %d cells, the row before %d" % (who, n, ncols))
    if who == "all":
        break
if rows < 3 or not ncols:
    bad.append("%d rows, %s cells" % (rows, ncols))
print("\n".join(bad) if bad else "ok: %d rows of %d cells %s" % (rows, ncols, want))
sys.exit(1 if bad else 0)
PY
rows() { python3 "$T/rows.py" "$@"; }
check "live: no cell is marked stale ($(rows "$T/live.txt" plain))" rows "$T/live.txt" plain
check "live: no stale legend" bash -c "! grep -q 'stale:' '$T/live.txt'"
offline_row() { # FILE: CPU 1 shows "offline", no number
	grep -qE '^ +1 +offline *$' "$1" || { echo "  CPU 1: $(grep -E '^ +1 ' "$1")"; return 1; }
}
check "a board CPU gone offline shows offline, not numbers" offline_row "$T/live.txt"

# the board dies and refuses connections for a while
touch "$T/down"
kill -KILL -- "-$(cat "$T/agent.pid")"
check "down: the status line says DISCONNECTED since ..." wait_for '^DISCONNECTED since [0-9:]+ \(values are stale\)' 10
wait_for '^ +all .*!' 5 >/dev/null
pane >"$T/down.txt"
check "down: every value cell is marked stale ($(rows "$T/down.txt" marked))" rows "$T/down.txt" marked
check "down: the legend explains the mark" grep -q '^! stale: the link is down' "$T/down.txt"
check "down: the offline CPU still shows offline" offline_row "$T/down.txt"
# the marked numbers are the last live ones: the same cells with the marks taken away
sed -e 's/ !\( \|$\)/  \1/g' "$T/down.txt" | grep -E '^ +(0|2|all) ' | sed 's/ \+/ /g' >"$T/down.vals"
check "down: the marks sit beside values, not instead of them" bash -c "[ \$(wc -l <'$T/down.vals') -eq 3 ] && ! grep -q '!' '$T/down.vals'"
# still down after the next attempt: still marked
check "down: a failed reconnect attempt is reported" wait_for 'reconnecting to board|link to board lost' 10
pane >"$T/down2.txt"
check "down, after an attempt: still marked ($(rows "$T/down2.txt" marked))" rows "$T/down2.txt" marked

# the board is back: the next tick clears every mark
rm -f "$T/down"
check "back: connected to board again" wait_for '^connected to board' 30
wait_gone ' !( |$)' 5
pane >"$T/back.txt"
check "back: no cell is marked stale ($(rows "$T/back.txt" plain))" rows "$T/back.txt" plain
check "back: the legend is gone" bash -c "! grep -q 'stale:' '$T/back.txt'"

# the help names the mark
keys ":help" Enter
wait_for "^pmutop help" 5 >/dev/null
keys -N 400 Down
check ":help explains the stale mark" wait_for '^! stale: ' 5
keys q
keys q
quit_check "quit"

# the mark is a glyph, not a colour: the same in ASCII mode with the mono theme and NO_COLOR
keys "export NO_COLOR=1" Enter
rm -f "$T/agent.pid"
start "--no-rc -i 200 -m sw -c 'set ascii on' --theme mono --remote board --transport '$T/transport.sh'" \
	"--agent '$AGENT --backend sim --sim-cpus 2'"
check "ascii, mono: connected" wait_for 'connected to board' 10
touch "$T/down"
kill -KILL -- "-$(cat "$T/agent.pid")"
check "ascii, mono: DISCONNECTED" wait_for '^DISCONNECTED since ' 10
wait_for '^ +all .*!' 5 >/dev/null
pane >"$T/mono.txt"
check "ascii, mono: every value cell is marked stale ($(rows "$T/mono.txt" marked))" rows "$T/mono.txt" marked
rm -f "$T/down"
keys q
quit_check "ascii, mono: quit"
t_done

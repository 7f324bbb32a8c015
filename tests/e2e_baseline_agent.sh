#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_baseline_agent.sh: a baseline through the agent: --baseline FILE and :baseline FILE on the
# --remote side of a pmutop-agent stream (a stand-in transport runs the agent on the sim with a
# seed and an IPC shift) give, frame by frame, the same changes, p-values and significant cells
# as the same sim run locally; the remote screen shows the changes after :baseline FILE.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh" # tmux_close: the panes' programs stopped before the server
command -v python3 >/dev/null || { echo "SKIP: python3 needed to compare JSON"; exit 77; }
T=$T_TMP
AGENT=${PMUTOP_AGENT_BIN:?PMUTOP_AGENT_BIN not set}
BOARD=(--backend sim --sim-cpus 2 --seed 11 --sim-shift 0:1.05@20)
cat >"$T/transport.sh" <<SH
#!/bin/sh
# like ssh: drops "-- HOST", joins the rest into one line for a shell; the board is the sim
shift 2
exec sh -c "\$* ${BOARD[*]}"
SH
chmod +x "$T/transport.sh"
REMOTE=(--no-rc --remote board --transport "$T/transport.sh" --agent "$AGENT" -m cpi -i 20)

# the reference: another seed of the same two simulated CPUs
timeout 60 "$BIN" --backend sim --sim-cpus 2 --seed 99 -m cpi -i 20 -n 200 -b -f json \
	-r "$T/ref.jsonl" >/dev/null 2>"$T/err"
timeout 60 "$BIN" "${BOARD[@]}" --no-rc -m cpi -i 20 -n 60 -b -f json --baseline "$T/ref.jsonl" \
	>"$T/local.json" 2>"$T/err"
timeout 60 "$BIN" "${REMOTE[@]}" -n 60 -b -f json --baseline "$T/ref.jsonl" >"$T/remote.json" \
	2>"$T/err"
timeout 60 "$BIN" "${REMOTE[@]}" -n 60 -b -f json -c "baseline $T/ref.jsonl" >"$T/remote_c.json" \
	2>"$T/err"
# same_cells A B: every frame's cells (cpu, metric) with the same change, p and significance,
# some significant and some not
same_cells() {
	python3 - "$1" "$2" <<'PY'
import json, sys
def cells(path):
    out = {}
    for line in open(path):
        if not line.startswith("{"):
            continue
        rec = json.loads(line)
        for c in rec["cpus"]:
            for m, b in (c.get("baseline") or {}).items():
                out[(rec["seq"], c["cpu"], m)] = b
    return out
a, b = cells(sys.argv[1]), cells(sys.argv[2])
bad = [k for k in a if k not in b or a[k] != b[k]] + [k for k in b if k not in a]
sig = sum(1 for v in a.values() if v["significant"])
print("cells %d / %d, significant %d, differing %d %s" % (len(a), len(b), sig, len(bad),
      [(k, a.get(k), b.get(k)) for k in bad[:2]]))
sys.exit(0 if a and not bad and 0 < sig < len(a) else 1)
PY
}
if same_cells "$T/local.json" "$T/remote.json" >"$T/cmp.out"; then pass; else
	fail "--remote --baseline FILE differs from the local run: $(cat "$T/cmp.out" "$T/err")"
fi
cat "$T/cmp.out"
if same_cells "$T/local.json" "$T/remote_c.json" >"$T/cmp.out"; then pass; else
	fail "--remote -c 'baseline FILE' differs from the local run: $(cat "$T/cmp.out")"
fi
cat "$T/cmp.out"
check "the shifted CPU's IPC is significant in the remote run's last frame" python3 -c '
import json, sys
rec = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
sys.exit(0 if rec["cpus"][0]["baseline"]["ipc"]["significant"] else 1)' "$T/remote.json"

# the remote screen: :baseline FILE turns the cells into changes
if command -v tmux >/dev/null; then
	TS=pmutop-e2e-bl-$$
	trap 'tmux_close "$TS"; rm -rf "$T_TMP"' EXIT
	tmux -L "$TS" new-session -d -x 150 -y 30 "$BIN ${REMOTE[*]}; sleep 5"
	for _ in $(seq 100); do
		tmux -L "$TS" capture-pane -p | grep -q "REMOTE board" && break
		sleep 0.1
	done
	tmux -L "$TS" send-keys ":baseline $T/ref.jsonl" Enter
	ok=0
	for _ in $(seq 50); do
		tmux -L "$TS" capture-pane -p >"$T/screen.txt"
		grep -q "REMOTE board" "$T/screen.txt" &&
			grep -Eq '^ *(cpu)? *0 .*[+-][0-9]+(\.[0-9])?%' "$T/screen.txt" && ok=1 && break
		sleep 0.2
	done
	check "the remote screen shows the changes after :baseline FILE" [ $ok -eq 1 ]
	[ $ok -eq 1 ] || cat "$T/screen.txt"
	check "the remote screen names the baseline it compares with" \
		grep -q "against baseline .*ref.jsonl" "$T/screen.txt"
	tmux -L "$TS" send-keys q
	tmux_close "$TS"
else
	skip "no tmux for the screen"
fi
t_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_agent.sh: the board agent (pmutop-agent) runs without ncurses or libedit and serves --remote.
set -u
BIN=${PMUTOP_BIN:?} AGENT=${PMUTOP_AGENT_BIN:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
no() { echo "FAIL $*"; fail=$((fail + 1)); }

# 1. no terminal libraries at run time
if ldd "$AGENT" | grep -Eq 'curses|tinfo|libedit'; then no "agent links a terminal library: $(ldd "$AGENT" | grep -E 'curses|tinfo|libedit')"; else ok "agent needs no ncurses/libedit"; fi
# 2. it streams a recording on stdout (the agent protocol) and ends by itself after -n
timeout 20 "$AGENT" -b -r - -n 2 -i 50 --backend sim --sim-cpus 2 </dev/null >"$T/stream" 2>"$T/err"
[ $? -eq 0 ] && ok "agent -b -r - exits 0" || no "agent exit: $(cat "$T/err")"
head -1 "$T/stream" | grep -q '"type":"header","format":"pmutop-recording"' && ok "stream starts with the header" || no "header: $(head -c 200 "$T/stream")"
[ "$(grep -c '"type":"tick"' "$T/stream")" -ge 2 ] && ok "stream has ticks" || no "ticks: $(grep -c tick "$T/stream")"
# 3. without -b it says it has no screen (exit 2), instead of failing on the terminal
"$AGENT" -n 1 </dev/null >/dev/null 2>"$T/err2"
[ $? -eq 2 ] && grep -q "without the screen" "$T/err2" && ok "no screen: clear message, exit 2" || no "screenless run: $(cat "$T/err2")"
# 4. pmutop --remote through a stand-in transport runs the agent binary
cat >"$T/transport.sh" <<'SH'
#!/bin/sh
# like ssh: drops "-- HOST", joins the rest into one line for a shell
shift 2
exec sh -c "$* --backend sim --sim-cpus 2"
SH
chmod +x "$T/transport.sh"
timeout 30 "$BIN" -b --remote board --transport "$T/transport.sh" --agent "$AGENT" -i 50 -n 5 -f json >"$T/r.json" 2>"$T/r.err"
[ $? -eq 0 ] && [ "$(wc -l <"$T/r.json")" -eq 5 ] && ok "remote through the agent: 5 records" || no "remote: $(wc -l <"$T/r.json") records; $(tail -3 "$T/r.err")"
echo "e2e_agent.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]

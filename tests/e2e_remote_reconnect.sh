#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_remote_reconnect.sh: batch --remote against a board that dies: bounded reconnect attempts
# (--reconnect N), then a clear error and exit 1, never retrying forever; what came before is
# kept, with time and seq monotonic.
source "$(dirname "$0")/lib.sh"
T=$T_TMP
AGENT=${PMUTOP_AGENT_BIN:-$(dirname "$BIN")/pmutop-agent}
TR=$T_SRC/tests/fixtures/replay/dead-transport.sh
export PMUTOP_BIN=$BIN DEAD_MARK=$T/dead
start=$(date +%s)
timeout 60 "$BIN" -b --remote board --transport "$TR" --agent "$AGENT" -i 100 -f json \
	--reconnect 2 >"$T/out.json" 2>"$T/err" </dev/null
RC=$?
secs=$(($(date +%s) - start))
check "a dead board: exit 1, not retrying forever (got $RC after $secs s)" [ "$RC" = 1 ]
check "a dead board: the reason ($(tail -2 "$T/err"))" \
	grep -q 'board: gave up after 2 reconnect attempts (--reconnect 2): link lost' "$T/err"
check "a dead board: each attempt reported" [ "$(grep -c 'reconnecting to board' "$T/err")" = 2 ]
check "a dead board: the ticks before it were printed" [ "$(wc -l <"$T/out.json")" -ge 3 ]
python3 - "$T/out.json" >"$T/py" 2>&1 <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
for key in ("time", "seq"):
    v = [r[key] for r in recs]
    if not all(b > a for a, b in zip(v, v[1:])):
        print("%s not monotonic: %s" % (key, v)); sys.exit(1)
print("ok")
EOF
check "time and seq monotonic ($(cat "$T/py"))" grep -qx ok "$T/py"
run_cmd -b --remote board --reconnect often -n 1
check "--reconnect often: usage error (exit $RC)" [ "$RC" = 2 ]
check "--reconnect often: says so ($(cat "$T/err"))" grep -q -- '--reconnect' "$T_TMP/err"
t_done

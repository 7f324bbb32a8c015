#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_openmetrics.sh: -f openmetrics and the --listen endpoint: strict OpenMetrics parsing, the
# numbers against batch JSON of the same run, promtool, hostile clients, and a real Prometheus
# scraping the sim backend.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"

PY=/usr/bin/python3 # Debian's python3-prometheus-client is installed for the system python
if ! "$PY" -c 'import prometheus_client' 2>/dev/null; then
	echo "SKIP: python3-prometheus-client is not installed (scripts/deps.sh test installs it)"
	exit 77
fi
CHECK="$PY $T_SRC/tests/openmetrics_check.py"
SIM=(--backend sim --sim-cpus 2 --seed 7 --no-rc)

# --- batch -f openmetrics: every record one valid exposition -----------------------------------
run_cmd -b -n 3 -i 100 "${SIM[@]}" -f openmetrics
check "-f openmetrics exits 0 (rc $RC: $(head -c 200 "$T_TMP/err"))" [ "$RC" -eq 0 ]
check "-f openmetrics: 3 expositions, each ending in # EOF" [ "$(grep -c '^# EOF$' "$T_TMP/out")" -eq 3 ]
check "-f openmetrics parses strictly ($($CHECK parse "$T_TMP/out" 2>&1 | tail -1))" \
	$CHECK parse "$T_TMP/out"
check "-f openmetrics has HELP, TYPE and UNIT lines" \
	bash -c "grep -q '^# HELP pmutop_event ' '$T_TMP/out' && grep -q '^# TYPE pmutop_event counter' '$T_TMP/out' && grep -q '^# UNIT pmutop_event_enabled_seconds seconds' '$T_TMP/out'"
check "-f openmetrics labels cpu, mode and host (no empty core_type)" \
	grep -qE '^pmutop_event_total\{host="[^"]*",mode="cpi",cpu="0",event="cycles"\} [0-9]' "$T_TMP/out"
# n/a is left out, never 0: the sim has no reference cycles, so util is n/a
check "an n/a metric has no sample (util)" bash -c "! grep -qE '^pmutop_(all_cpus_)?metric_util_percent\{' '$T_TMP/out'"
# a hostile mode: its strings never reach the terminal raw
cat >"$T_TMP/hostile.mode" <<'MODE'
[mode]
name  = hostile
title = Hostile
[events *]
cycles = @::CYCLES
[metric odd]
expr = cycles / interval
unit = /s
desc = a "quoted" \ desc with ESC[31m
MODE
sed -i 's/ESC\[31m/\x1b[31m/' "$T_TMP/hostile.mode"
run_cmd -b -n 2 -i 100 "${SIM[@]}" --mode-file "$T_TMP/hostile.mode" -m hostile -f openmetrics
check "a hostile HELP text is escaped (no ESC byte in the output)" bash -c "! grep -q $'\x1b' '$T_TMP/out'"
check "a hostile HELP text still parses ($($CHECK parse "$T_TMP/out" 2>&1 | tail -1))" $CHECK parse "$T_TMP/out"

# --- the endpoint beside batch JSON: a scrape is one of the printed frames ---------------------
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
timeout 60 "$BIN" -b -n 40 -i 150 "${SIM[@]}" -f json --listen "127.0.0.1:$PORT" \
	>"$T_TMP/run.jsonl" 2>"$T_TMP/run.err" &
PID=$!
T_CLEANUPS+=("kill $PID 2>/dev/null")
for _ in $(seq 50); do
	grep -q "serving OpenMetrics on http://127.0.0.1:$PORT/metrics" "$T_TMP/run.err" && break
	sleep 0.1
done
check "--listen says where it serves ($(head -c 200 "$T_TMP/run.err"))" \
	grep -q "serving OpenMetrics on http://127.0.0.1:$PORT/metrics" "$T_TMP/run.err"
# hostile clients first: idle connections, a huge request head, a bad method, a bad path
"$PY" - "$PORT" >"$T_TMP/hostile.out" 2>&1 <<'PYEOF' &
import socket, sys, time
port = int(sys.argv[1])
idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(6)]
big = socket.create_connection(("127.0.0.1", port))
try:
    big.sendall(b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 100000)
except OSError:
    pass
time.sleep(0.5)
big.settimeout(10)
try:
    head = big.recv(64)
except OSError as e:
    head = repr(e).encode()
print("big:", head.split(b"\r\n")[0].decode(errors="replace"))
# the idle ones are closed by the server within its timeout
closed = 0
for s in idle:
    s.settimeout(15)
    try:
        if s.recv(1) == b"":
            closed += 1
    except OSError:
        closed += 1
print("idle closed:", closed)
PYEOF
HPID=$!
sleep 1
curl -s -m 10 -o "$T_TMP/scrape.om" -H 'Accept: application/openmetrics-text; version=1.0.0' \
	-w '%{http_code} %{content_type}\n' "http://127.0.0.1:$PORT/metrics" >"$T_TMP/curl.out" 2>&1
curl -s -m 10 -o "$T_TMP/scrape.prom" "http://127.0.0.1:$PORT/metrics" 2>/dev/null
curl -s -m 10 -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$PORT/other" >"$T_TMP/404" 2>&1
curl -s -m 10 -o /dev/null -X POST -w '%{http_code}\n' "http://127.0.0.1:$PORT/metrics" >"$T_TMP/405" 2>&1
wait "$PID"
RC=$?
wait "$HPID"
check "the run with --listen and hostile clients completed all 40 ticks (rc $RC, $(wc -l <"$T_TMP/run.jsonl") records)" \
	bash -c "[ $RC -eq 0 ] && [ \$(wc -l <'$T_TMP/run.jsonl') -eq 40 ]"
check "a scrape asking for OpenMetrics gets it ($(cat "$T_TMP/curl.out"))" \
	grep -q '^200 application/openmetrics-text; version=1.0.0' "$T_TMP/curl.out"
check "the scrape parses strictly" $CHECK parse "$T_TMP/scrape.om"
check "the scrape is one of the printed JSON frames ($($CHECK match "$T_TMP/scrape.om" "$T_TMP/run.jsonl" 2>&1 | tail -1))" \
	$CHECK match "$T_TMP/scrape.om" "$T_TMP/run.jsonl"
if command -v promtool >/dev/null; then
	promtool check metrics <"$T_TMP/scrape.prom" >"$T_TMP/promtool.out" 2>&1
	check "promtool check metrics accepts the Prometheus-format page ($(head -3 "$T_TMP/promtool.out" | tr '\n' ' '))" \
		bash -c "[ -s '$T_TMP/scrape.prom' ] && [ ! -s '$T_TMP/promtool.out' ]"
else
	skip "promtool is not installed (Debian's prometheus package): the page was not linted"
fi
check "another path is 404 ($(cat "$T_TMP/404"))" grep -qx 404 "$T_TMP/404"
check "POST is 405 ($(cat "$T_TMP/405"))" grep -qx 405 "$T_TMP/405"
check "a 100 KB request head is refused with 431 ($(grep big: "$T_TMP/hostile.out"))" \
	grep -q 'big: HTTP/1.1 431' "$T_TMP/hostile.out"
check "idle connections are closed by the server ($(grep idle "$T_TMP/hostile.out"))" \
	grep -q 'idle closed: 6' "$T_TMP/hostile.out"

# bad --listen values change nothing and say why
run_cmd -b -n 1 "${SIM[@]}" --listen 99999
check "--listen 99999 is a usage error ($RC: $(cat "$T_TMP/err"))" \
	bash -c "[ $RC -eq 2 ] && grep -q 'port 0..65535' '$T_TMP/err'"
run_cmd -b -n 1 "${SIM[@]}" --listen 'a b:9100'
check "--listen with a bad address is a usage error ($RC)" [ "$RC" -eq 2 ]

# --- Prometheus's naming conventions (promtool) on the page of every built-in mode --------------
if command -v promtool >/dev/null && command -v curl >/dev/null; then
	for m in $("$BIN" "${SIM[@]}" --list-modes 2>/dev/null | awk '$2 == "available" { print $1 }' | grep -v :); do
		PORT=$(free_port)
		timeout -k 5 30 "$BIN" -b -n 40 -i 100 "${SIM[@]}" -m "$m" -f json --listen "127.0.0.1:$PORT" \
			>/dev/null 2>"$T_TMP/m.err" &
		MPID=$!
		for _ in $(seq 50); do
			sleep 0.1
			curl -s -m 5 -o "$T_TMP/m.prom" "http://127.0.0.1:$PORT/metrics" &&
				grep -q '^pmutop_metric_' "$T_TMP/m.prom" && break
		done
		kill $MPID 2>/dev/null
		wait $MPID 2>/dev/null
		promtool check metrics <"$T_TMP/m.prom" >"$T_TMP/m.lint" 2>&1
		rc=$?
		check "promtool check metrics: mode $m exits $rc ($(head -3 "$T_TMP/m.lint" | tr '\n' ' '))" \
			bash -c "[ $rc -eq 0 ] && grep -q '^pmutop_metric_' '$T_TMP/m.prom'"
		# sum() over a family never counts twice: no cpu="all" beside the CPUs
		check "mode $m: a cpu=\"all\" series" bash -c "! grep -q 'cpu=\"all\"' '$T_TMP/m.prom'"
		check "mode $m: an empty label" bash -c "! grep -q '=\"\"' '$T_TMP/m.prom'"
		nm=$((${nm:-0} + 1))
	done
	check "promtool: at least 3 modes linted (${nm:-0})" [ "${nm:-0}" -ge 3 ]
	# the all-CPU total is a family of its own, equal to the JSON's total
	grep -q '^pmutop_all_cpus_metric_cpi{host="[^"]*",mode="cpi"} [0-9]' "$T_TMP/scrape.prom"
	check "the all-CPU cpi is pmutop_all_cpus_metric_cpi without a cpu label" [ $? -eq 0 ]
else
	skip "promtool or curl is not installed (scripts/deps.sh test installs prometheus and curl)"
fi
# names in base units: GHz as hertz (x 1e9), per second spelled out
run_cmd -b -n 2 -i 100 "${SIM[@]}" -m sw -f json
ghz=$(tail -1 "$T_TMP/out" | jq '.total.metrics.tsc_ghz')
run_cmd -b -n 2 -i 100 "${SIM[@]}" -m sw -f openmetrics
check "sw: cs_per_s is pmutop_metric_cs_per_second" grep -q '^pmutop_metric_cs_per_second{' "$T_TMP/out"
if [ "$ghz" != null ]; then
	hz=$(grep '^pmutop_all_cpus_metric_tsc_hertz{' "$T_TMP/out" | tail -1 | awk '{print $2}')
	check "sw: tsc_ghz $ghz is pmutop_all_cpus_metric_tsc_hertz $hz" \
		python3 -c 'import sys; a, b = float(sys.argv[1]) * 1e9, float(sys.argv[2]); sys.exit(abs(a - b) > 1e-6 * a)' "$ghz" "${hz:-0}"
fi
check "no family names a unit twice" bash -c "! grep -qE '^# TYPE [a-z_]*(ghz_gigahertz|_s_seconds|pct_percent)' '$T_TMP/out'"
# an event that cannot open is left out, never 0 (the sim's event 1 never opens)
run_cmd -b -n 2 -i 100 "${SIM[@]}" -m cpi --sim-fail-event 1 -f openmetrics
check "an unsupported event has no series ($(grep -m1 'event="instructions"' "$T_TMP/out"))" \
	bash -c "grep -q 'event=\"cycles\"' '$T_TMP/out' && ! grep -q 'event=\"instructions\"' '$T_TMP/out'"

# --- connection churn: a burst of connects while pmutop is busy all complete (backlog) ---------
PORT=$(free_port)
timeout 60 "$BIN" -b -n 200 -i 100 "${SIM[@]}" -f json --listen "127.0.0.1:$PORT" >/dev/null 2>&1 &
CPID=$!
T_CLEANUPS+=("kill -CONT $CPID 2>/dev/null; kill $CPID 2>/dev/null")
for _ in $(seq 50); do curl -s -m 2 -o /dev/null "http://127.0.0.1:$PORT/metrics" && break; sleep 0.1; done
# the kernel's view of the listening socket: its accept queue (ss shows the backlog as Send-Q)
if command -v ss >/dev/null; then
	backlog=$(ss -Hltn "sport = :$PORT" | awk '{print $3}' | head -1)
	check "the listen backlog (${backlog:-?}) holds a few scrapers and a browser (at least 32)" \
		[ "${backlog:-0}" -ge 32 ]
else
	skip "ss (iproute2) is not installed: the listen backlog was not read"
fi
kill -STOP $CPID # a long tick: nothing is accepted meanwhile
"$PY" - "$PORT" >"$T_TMP/churn.out" 2>&1 <<'PYEOF'
import socket, sys
port, ok, timedout, socks = int(sys.argv[1]), 0, 0, []
for i in range(24):  # four scrapers, a browser's six and more, at once
    s = socket.socket()
    s.settimeout(1.5)
    try:
        s.connect(("127.0.0.1", port))
        ok += 1
        socks.append(s)
    except OSError:
        timedout += 1
print("connected %d timed out %d" % (ok, timedout))
PYEOF
kill -CONT $CPID
check "24 connects at once while pmutop is busy all complete ($(cat "$T_TMP/churn.out"))" \
	grep -q 'connected 24 timed out 0' "$T_TMP/churn.out"
# the burst's connections close as the server takes them; a scraper then gets its page
for _ in 1 2 3 4 5; do
	curl -s -m 5 -o "$T_TMP/after.prom" "http://127.0.0.1:$PORT/metrics" && grep -q '^pmutop_metric_cpi{' "$T_TMP/after.prom" && break
	sleep 0.2
done
check "a scrape after the burst is served" grep -q '^pmutop_metric_cpi{' "$T_TMP/after.prom"
kill $CPID 2>/dev/null

# --- the agent serves and writes the same text (no ncurses) ------------------------------------
AGENT=${PMUTOP_AGENT_BIN:-$(dirname "$BIN")/pmutop-agent}
timeout 30 "$AGENT" -b -n 2 -i 100 "${SIM[@]}" -f openmetrics >"$T_TMP/agent.om" 2>/dev/null
check "pmutop-agent -f openmetrics parses ($($CHECK parse "$T_TMP/agent.om" 2>&1 | tail -1))" \
	$CHECK parse "$T_TMP/agent.om"

# --- beside the screen: the screen keeps drawing while a scraper reads the same frames ------------
if command -v tmux >/dev/null; then
	SOCK=pmutop-om-$$
	PORT=$(free_port)
	T_CLEANUPS+=("tmux_close '$SOCK'")
	TERM=xterm-256color tmux -L "$SOCK" -f /dev/null new-session -d -x 100 -y 30 \
		"$BIN ${SIM[*]} -i 200 --listen 127.0.0.1:$PORT; sleep 30"
	ok=0
	for _ in $(seq 50); do
		sleep 0.1
		curl -s -m 2 -H 'Accept: application/openmetrics-text' -o "$T_TMP/screen.om" \
			"http://127.0.0.1:$PORT/metrics" && grep -q '^pmutop_metric_cpi{' "$T_TMP/screen.om" &&
			ok=1 && break
	done
	check "the screen serves frames to a scraper" [ "$ok" -eq 1 ]
	check "the screen's page parses" $CHECK parse "$T_TMP/screen.om"
	check "the screen still draws after the scrape" \
		bash -c "tmux -L '$SOCK' capture-pane -p -t 0 | grep -q 'SIMULATED'"
	tmux -L "$SOCK" send-keys -t 0 q
else
	skip "tmux is not installed: the endpoint beside the screen was not tried"
fi

# --- a real Prometheus scrapes pmutop on the sim -----------------------------------------------
if ! command -v prometheus >/dev/null; then
	skip "prometheus is not installed (scripts/deps.sh test installs Debian's prometheus): no scrape test"
	t_done
fi
PORT=$(free_port)
PPORT=$(free_port)
cat >"$T_TMP/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: pmutop
    static_configs:
      - targets: ['127.0.0.1:$PORT']
YML
timeout 120 "$BIN" -b -n 60 -i 250 "${SIM[@]}" -f json --listen "127.0.0.1:$PORT" \
	>"$T_TMP/prom-run.jsonl" 2>"$T_TMP/prom-run.err" &
PID=$!
T_CLEANUPS+=("kill $PID 2>/dev/null")
prometheus --config.file="$T_TMP/prometheus.yml" --storage.tsdb.path="$T_TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PPORT" >"$T_TMP/prometheus.log" 2>&1 &
PROM=$!
T_CLEANUPS+=("kill $PROM 2>/dev/null")
API=http://127.0.0.1:$PPORT/api/v1
scrapes=0
for _ in $(seq 60); do
	sleep 0.5
	scrapes=$(curl -s -m 2 "$API/query" --data-urlencode 'query=count_over_time(up{job="pmutop"}[5m])' |
		"$PY" -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(int(float(r[0]["value"][1])) if r else 0)' 2>/dev/null || echo 0)
	[ "${scrapes:-0}" -ge 2 ] && break
done
check "Prometheus scraped pmutop at least twice (got ${scrapes:-0}; $(tail -2 "$T_TMP/prometheus.log" | tr '\n' ' '))" \
	[ "${scrapes:-0}" -ge 2 ]
curl -s -m 5 "$API/query" --data-urlencode 'query=up{job="pmutop"}' >"$T_TMP/up.json"
check "the target is up ($(head -c 200 "$T_TMP/up.json"))" grep -q '"value":\[[0-9.]*,"1"\]' "$T_TMP/up.json"
curl -s -m 5 "$API/query" --data-urlencode 'query=pmutop_metric_cpi' >"$T_TMP/cpi.json"
curl -s -m 5 "$API/query" --data-urlencode 'query=pmutop_event_total{event="cycles"}' >"$T_TMP/cycles.json"
kill "$PROM" 2>/dev/null
# the values Prometheus holds were printed before it scraped them: the run can end now (SIGINT:
# the batch run stops after the tick it is in, every record whole) instead of after its 60 ticks
kill -INT "$PID" 2>/dev/null
wait "$PID"
check "Prometheus' cpi values are values pmutop printed ($($CHECK prom "$T_TMP/cpi.json" "$T_TMP/prom-run.jsonl" 2>&1 | tail -1))" \
	$CHECK prom "$T_TMP/cpi.json" "$T_TMP/prom-run.jsonl"
check "Prometheus has the cycles counters of both CPUs" \
	bash -c "[ \$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))[\"data\"][\"result\"]))' '$T_TMP/cycles.json') -eq 2 ]"
# --- a mode switch on the screen with --listen: the old mode's counters stay, labelled with it -
# (the page's labels are built once for the frame's mode; another mode's series take the slow path)
if command -v tmux >/dev/null && command -v curl >/dev/null; then
	tmux_open 120 30
	PORT=$(free_port)
	start "${SIM[@]}" -m cpi -i 100 --listen "127.0.0.1:$PORT"
	keys ":mode branch" Enter
	wait_for 'branch' 10
	for _ in $(seq 50); do
		sleep 0.1
		curl -s -m 5 -o "$T_TMP/switch.om" -H 'Accept: application/openmetrics-text; version=1.0.0' \
			"http://127.0.0.1:$PORT/metrics" && grep -q 'mode="branch"' "$T_TMP/switch.om" && break
	done
	curl -s -m 5 -o "$T_TMP/switch.prom" "http://127.0.0.1:$PORT/metrics"
	keys q
	quit_check "pmutop with --listen after :mode branch"
	check "after :mode branch the page parses strictly ($($CHECK parse "$T_TMP/switch.om" 2>&1 | tail -1))" \
		$CHECK parse "$T_TMP/switch.om"
	for fl in om prom; do
		check "$fl page: cpi's cycles counters of both CPUs, labelled mode=\"cpi\"" \
			[ "$(grep -cE '^pmutop_event_total\{host="[^"]*",mode="cpi",cpu="[01]",event="cycles"\} [0-9]' "$T_TMP/switch.$fl")" -eq 2 ]
		check "$fl page: branch's counters too, labelled mode=\"branch\"" \
			grep -qE '^pmutop_event_total\{host="[^"]*",mode="branch",cpu="0",event="[^"]+"\} [0-9]' "$T_TMP/switch.$fl"
		check "$fl page: the gauges are branch's only" \
			bash -c "! grep -E '^pmutop_(all_cpus_)?metric_' '$T_TMP/switch.$fl' | grep -qv 'mode=\"branch\"'"
	done
else
	skip "tmux or curl is not installed: the mode switch with --listen is not checked"
fi
t_done

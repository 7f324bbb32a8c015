# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_fdlimit.sh: low open-file limits: the loop's descriptors and two spare ones come first,
# counters get the rest; events that do not fit are dropped with one message naming them and
# RLIMIT_NOFILE, and the run goes on; when not even the essentials fit, exit 2.
source "$(dirname "$0")/lib.sh"

# limited N ARGS: pmutop -b ARGS under ulimit -n N, without descriptors above stderr inherited
# from whatever started the test; output in $T_TMP/out, $T_TMP/err, status in $RC
limited() {
	local n=$1
	shift
	(
		ulimit -n "$n" || exit 99
		for fd in {3..19}; do eval "exec $fd>&-"; done
		exec timeout 30 "$BIN" -b "$@"
	) >"$T_TMP/out" 2>"$T_TMP/err" </dev/null
	RC=$?
}

# twelve software events, one descriptor each per CPU: more than 16 descriptors on any machine
EVENTS=e1=perf::CPU-CLOCK,e2=perf::TASK-CLOCK,e3=perf::PAGE-FAULTS,e4=perf::CONTEXT-SWITCHES
EVENTS=$EVENTS,e5=perf::CPU-MIGRATIONS,e6=perf::MINOR-FAULTS,e7=perf::MAJOR-FAULTS
EVENTS=$EVENTS,e8=perf::CPU-CLOCK,e9=perf::TASK-CLOCK,e10=perf::PAGE-FAULTS
EVENTS=$EVENTS,e11=perf::CONTEXT-SWITCHES,e12=perf::CPU-MIGRATIONS

# fits LIMIT: the CSV output and the message agree on what was dropped, and the counters took
# exactly what the limit leaves: LIMIT - 3 (stdin, stdout, stderr) - 1 (the loop's signalfd) -
# 2 spare, all events kept in order while they fit on every CPU, else the first on the CPUs it
# fits on. The CPU count is read from the output.
fits() {
	python3 - "$1" "$T_TMP/out" "$T_TMP/err" <<'EOF'
import csv, re, sys
limit, out, err = int(sys.argv[1]), sys.argv[2], sys.argv[3]
names = ["e%d" % i for i in range(1, 13)]
ok = {n: set() for n in names}
cpus = set()
for row in csv.DictReader(open(out)):
    if row["kind"] == "event" and row["cpu"] != "all":
        cpus.add(row["cpu"])
        if row["state"] in ("ok", "scaled"):
            ok[row["name"]].add(row["cpu"])
msgs = [l for l in open(err) if "open-file limit" in l]
assert len(msgs) == 1, "one message about the limit: %r" % msgs
m = re.search(r"open-file limit RLIMIT_NOFILE (\d+) reached: dropped (.*); the other events go on", msgs[0])
assert m and int(m.group(1)) == limit, msgs[0]
dropped = {}
for item in m.group(2).split(", "):
    p = re.fullmatch(r"(\w+)(?: \(on (\d+) of (\d+) CPUs\))?", item)
    assert p, "unexpected item %r" % item
    dropped[p.group(1)] = int(p.group(2)) if p.group(2) else len(cpus)
ncpu = len(cpus)
budget = limit - 3 - 1 - 2
per_cpu = min(len(names), budget // ncpu)
want = ncpu * per_cpu if per_cpu else budget
got = sum(len(v) for v in ok.values())
assert got == want, "counters open: %d, expected %d (%d CPUs, limit %d)" % (got, want, ncpu, limit)
assert got > 0, "no sample"
for n in names:
    if n in dropped:
        assert len(ok[n]) == ncpu - dropped[n], "%s: dropped on %d CPUs, counted on %d of %d" % (n, dropped[n], len(ok[n]), ncpu)
    else:
        assert len(ok[n]) == ncpu, "%s: not named, counted on %d of %d CPUs" % (n, len(ok[n]), ncpu)
EOF
}

for n in 16 8; do
	limited "$n" -n 2 -i 100 -f csv -e "$EVENTS"
	check "ulimit -n $n: perf batch runs on (exit $RC)" [ "$RC" = 0 ]
	check "ulimit -n $n: dropped events named with the limit, the rest counted" fits "$n"
	[ "$T_FAIL" = 0 ] || { sed 's/^/| /' "$T_TMP/err"; head -5 "$T_TMP/out"; }
done

# the built-in mode under the same limits: samples print, the message names the limit
limited 8 -n 2 -i 100 -r "$T_TMP/rec.jsonl"
check "ulimit -n 8, sw mode with -r: exit 0 ($RC)" [ "$RC" = 0 ]
check "ulimit -n 8, sw mode: the message names RLIMIT_NOFILE 8" \
	grep -q 'open-file limit RLIMIT_NOFILE 8 reached: dropped ' "$T_TMP/err"
check "ulimit -n 8, sw mode: a sample prints" grep -qE '^ +all +.*[0-9]' "$T_TMP/out"
check "ulimit -n 8: the recording has its ticks" [ "$(grep -c '"type":"tick"' "$T_TMP/rec.jsonl")" -ge 2 ]

# the sim backend opens no counter descriptors: the limit changes nothing
for n in 16 8; do
	limited "$n" --backend sim -n 2 -i 100
	check "ulimit -n $n, sim: exit 0 ($RC)" [ "$RC" = 0 ]
	check "ulimit -n $n, sim: samples print" [ "$(grep -cE '^ +all ' "$T_TMP/out")" = 2 ]
	check "ulimit -n $n, sim: nothing dropped" bash -c "! grep -q 'open-file limit' '$T_TMP/err'"
done

# not even the essentials: a clear message and exit 2, for either backend
limited 5 --backend sim -n 1
check "ulimit -n 5: exit 2 ($RC)" [ "$RC" = 2 ]
check "ulimit -n 5: the message names the limit" \
	grep -q 'RLIMIT_NOFILE 5 leaves fewer than 2 free descriptors' "$T_TMP/err"
# the loop's signalfd takes the last descriptor the dynamic loader left: nothing is free (the
# loader needs one itself, so no limit leaves the signalfd without one)
limited 4 -n 1
check "ulimit -n 4: exit 2 ($RC)" [ "$RC" = 2 ]
check "ulimit -n 4: the message names the limit" \
	grep -q 'RLIMIT_NOFILE 4 leaves fewer than 2 free descriptors' "$T_TMP/err"

t_done

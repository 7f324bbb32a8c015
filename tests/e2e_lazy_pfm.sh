# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_lazy_pfm.sh: a run keeps libpfm4 mapped only while it encodes: after the first tick of a
# software-event run the kernel's /proc/PID/maps lists no libpfm, the counts go on, and a
# libpfm4-named event still encodes (a static build links it in and is skipped).
source "$(dirname "$0")/lib.sh"

if grep -q 'libpfm' < <(ldd "$BIN" 2>/dev/null); then
	fail "pmutop is linked against libpfm4 at start (ldd lists it)"
elif ! grep -aq 'libpfm\.so' "$BIN"; then
	echo "SKIP: libpfm4 is linked statically into $BIN (it is never unloaded)"
	exit 77
fi

run_bg() { # ARGS: pmutop -b ARGS in the background (itself, so that $PID is its PID)
	"$BIN" -b "$@" >"$T_TMP/out" 2>"$T_TMP/err" </dev/null &
	PID=$!
	T_CLEANUPS+=("kill $PID 2>/dev/null")
}

run_bg --backend sim --sim-cpus 4 -i 100 -n 40 -f csv -e cs=perf::CONTEXT-SWITCHES
for _ in $(seq 100); do # two ticks at least, however busy the machine is
	[ "$(wc -l <"$T_TMP/out")" -ge 3 ] && break
	sleep 0.1
done
if [ -r /proc/$PID/maps ]; then
	check "libpfm4 not mapped after the first ticks ($(grep -c pfm /proc/$PID/maps) lines)" \
		bash -c "! grep -q '/libpfm.so' /proc/$PID/maps"
	check "libc is (the maps were read)" grep -q '/libc.so' /proc/$PID/maps
else
	fail "the run ended before its maps could be read: $(cat "$T_TMP/err")"
fi
wait $PID
check "the run ends well" test $? -eq 0
check "the libpfm4-named event is counted on every tick" \
	test "$(grep -c '^[0-9.]*,[0-9.]*,[0-9]*,event,cs,[0-9]' "$T_TMP/out")" -ge 8
t_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz.sh: builds the libFuzzer binaries (clang, ASan + UBSan) into build-fuzz and runs each target.
# Usage: bench/fuzz.sh [SECONDS] [TARGET...]   (default 60 s each, every tests/fuzz/fuzz_*.c)
# Env: CC (default clang), BUILD (default build-fuzz), JOBS (build jobs, default 2), PARALLEL
# (targets fuzzing at once, default 1), FUZZ_TIME ("modefile=240 command=90": seconds for
# those targets instead of SECONDS).
# New inputs libFuzzer finds go to $BUILD/corpus/NAME (the committed seeds are only read);
# crashes go to $BUILD/crashes/NAME-crash-*. Exit status 1 if any target crashed.
set -u
cd "$(dirname "$0")/.."
SRC=$PWD
SECONDS_EACH=${1:-60}
shift || true
CC=${CC:-clang}
BUILD=${BUILD:-build-fuzz}
case $BUILD in /*) ;; *) BUILD=$SRC/$BUILD ;; esac

# Instrument the whole core (coverage + sanitizers), not just the target files.
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
cmake -S "$SRC" -B "$BUILD" -DCMAKE_C_COMPILER="$CC" -DPMUTOP_FUZZ=ON \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS="$flags" >/dev/null || exit 1
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for f in "$SRC"/tests/fuzz/fuzz_*.c; do
		n=$(basename "$f" .c)
		targets+=("${n#fuzz_}")
	done
fi
bins=()
for t in "${targets[@]}"; do bins+=("fuzz_${t}_libfuzzer"); done
cmake --build "$BUILD" -j"${JOBS:-2}" --target "${bins[@]}" 2>&1 | grep -E "warning|error" && exit 1

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
mkdir -p "$BUILD/crashes" "$BUILD/logs"
# run_target T: fuzzes one target; its table line goes to $BUILD/logs/fuzz_T.result.
run_target() {
	local t=$1 name=fuzz_$1 work log rc execs secs last cov ft units rate result
	work=$BUILD/corpus/$name
	mkdir -p "$work"
	local secs_t=$SECONDS_EACH kv
	for kv in ${FUZZ_TIME:-}; do
		[ "${kv%%=*}" = "$t" ] && secs_t=${kv#*=}
	done
	log=$BUILD/logs/$name.log
	rm -f "$BUILD/logs/$name.result"
	# From tests/: the encode target reads the sysfs fixture there.
	(cd "$SRC/tests" && "$BUILD/${name}_libfuzzer" "$work" "$SRC/tests/fuzz/corpus/$name" \
		-max_total_time="$secs_t" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$BUILD/crashes/$name-" >"$log" 2>&1)
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
	last=$(grep -E '^#[0-9]+' "$log" | tail -1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	units=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
	rate=-
	[ -n "$execs" ] && [ -n "$secs" ] && [ "$secs" -gt 0 ] && rate=$((execs / secs))
	if [ $rc -eq 0 ]; then
		result=ok
	else
		result="CRASH (rc $rc): $(ls -t "$BUILD/crashes/$name-"* 2>/dev/null | head -1), log $log"
	fi
	{
		printf '%-10s %10s %10s %8s %8s %6s  %s\n' "$t" "${execs:--}" "$rate" "${cov:--}" \
			"${ft:--}" "${units:--}" "$result"
		[ $rc -ne 0 ] && grep -m1 -E "ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|property failed" "$log"
	} >"$BUILD/logs/$name.result"
}
# PARALLEL targets at a time (each is one process on one CPU).
for t in "${targets[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "${PARALLEL:-1}" ]; do wait -n; done
	run_target "$t" &
done
wait
failed=0
printf '%-10s %10s %10s %8s %8s %6s  %s\n' target execs exec/s cov ft corpus result
for t in "${targets[@]}"; do
	r=$BUILD/logs/fuzz_$t.result
	if [ -s "$r" ]; then
		cat "$r"
		grep -q '^[^ ]* .* ok$' "$r" || failed=1
	else
		echo "$t: no result (the run did not finish)"
		failed=1
	fi
done
exit $failed

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# json_bench.sh [CPUS [ROUNDS [TICKS]]]: pmutop's JSON writer against jansson on one batch JSON
# tick (bench/json_tick.c): the two records byte for byte, then CPU time per tick and the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B "${BUILD_DIR:-build}" >/dev/null
cmake --build "${BUILD_DIR:-build}" --target bench_json_tick >/dev/null
for cpus in ${1:-4 64 1024}; do
	"${BUILD_DIR:-build}/bench_json_tick" "$cpus" "${2:-11}" "${3:-$((40000 / cpus + 10))}"
done

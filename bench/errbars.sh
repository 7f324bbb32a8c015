#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# errbars.sh: how often the 95 % error bars cover the simulated truth, per mode (docs/uncertainty.md).
# Usage: bench/errbars.sh [TICKS [CPUS]]   (default 1000 ticks on 4 simulated CPUs; env PMUTOP_BIN)
# One line of JSON per case: metric and count coverage (0.95 is the target), the values checked.
set -u
TICKS=${1:-1000}
CPUS=${2:-4}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${PMUTOP_BIN:-$ROOT/build/pmutop}
SIM=(--backend sim --sim-cpus "$CPUS" --seed 11 -b -f json --sim-truth --error -n "$TICKS")
cases=(
	"cpi mux 0.5|-m cpi -i 10 --sim-mux 0.5"
	"cpi mux 0.25|-m cpi -i 10 --sim-mux 0.25"
	"branch mux 0.7|-m branch -i 10 --sim-mux 0.7"
	"dcache mux 0.5|-m dcache -i 10 --sim-mux 0.5"
	"llc mux 0.5|-m llc -i 10 --sim-mux 0.5"
	"topdown skl mux 0.5|-m topdown --sim-family skl -i 10 --sim-mux 0.5"
	"topdown2 skl rotation|-m topdown2 --sim-family skl -i 10"
	"topdown2 skl rotation + mux 0.6|-m topdown2 --sim-family skl -i 10 --sim-mux 0.6"
	"topdown2 zen4 rotation|-m topdown2 --sim-family zen4 -i 10"
	"cpi mux 0.5 sample 10ms|-m cpi -i 50 --sample 10ms --sim-mux 0.5"
	"cpi no multiplexing|-m cpi -i 10"
)
for c in "${cases[@]}"; do
	label=${c%%|*}
	read -ra args <<<"${c#*|}"
	"$BIN" "${SIM[@]}" "${args[@]}" 2>/dev/null | python3 "$ROOT/tests/errbar_check.py" --label "$label"
done

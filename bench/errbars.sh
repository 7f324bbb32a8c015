#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# errbars.sh: how often the 95 % error bars cover the simulated truth, per mode (docs/uncertainty.md).
# Usage: bench/errbars.sh [TICKS [CPUS]]   (default 1000 ticks on 4 simulated CPUs; env PMUTOP_BIN)
# One line of JSON per case: metric and count coverage (0.95 is the target) of the values that have
# an interval, each metric's coverage, the values checked. The top-down modes run on every family
# the sim models them for: level 1 and stall cycles kernel-multiplexed, level 2 rotated. The sim's
# noise shrinks with the tick (README: the sim backend), so the 1 s and 1 ms cases check the
# intervals at other spreads. --sim-unpaced: the ticks without waiting (each is still the interval).
set -u
TICKS=${1:-1000}
CPUS=${2:-4}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/lib.sh"
BIN=$(bench_bin)
SIM=(--backend sim --sim-cpus "$CPUS" --seed 11 -b -f json --sim-truth --error -n "$TICKS" --sim-unpaced)
cases=(
	"cpi mux 0.5|-m cpi -i 10 --sim-mux 0.5"
	"cpi mux 0.25|-m cpi -i 10 --sim-mux 0.25"
	"branch mux 0.7|-m branch -i 10 --sim-mux 0.7"
	"dcache mux 0.5|-m dcache -i 10 --sim-mux 0.5"
	"llc mux 0.5|-m llc -i 10 --sim-mux 0.5"
	"cpi mux 0.5 sample 10ms|-m cpi -i 50 --sample 10ms --sim-mux 0.5"
	"cpi no multiplexing|-m cpi -i 10"
	"cpi mux 0.5 at 1 s|-m cpi -i 1s --sim-mux 0.5"
	"cpi mux 0.25 at 1 s sample 100ms|-m cpi -i 1s --sample 100ms --sim-mux 0.25"
	"cpi mux 0.5 sample 1ms|-m cpi -i 10 --sample 1ms --sim-mux 0.5"
	"topdown skl mux 0.5 at 1 s|-m topdown --sim-family skl -i 1s --sim-mux 0.5"
	"topdown2 skl rotation at 1 s|-m topdown2 --sim-family skl -i 1s"
)
for fam in skl skl_smt icl spr slm glm tmt grt zen4 armv8 neoverse_v1; do
	cases+=("topdown $fam mux 0.5|-m topdown --sim-family $fam -i 10 --sim-mux 0.5")
done
for fam in armv8 cortex_a53; do
	cases+=("stallcycles $fam mux 0.5|-m stallcycles --sim-family $fam -i 10 --sim-mux 0.5")
done
for fam in skl skl_smt zen4; do
	cases+=("topdown2 $fam rotation|-m topdown2 --sim-family $fam -i 10")
	cases+=("topdown2 $fam rotation + mux 0.6|-m topdown2 --sim-family $fam -i 10 --sim-mux 0.6")
done
cases+=("topdown2 spr mux 0.5|-m topdown2 --sim-family spr -i 10 --sim-mux 0.5")
for c in "${cases[@]}"; do
	label=${c%%|*}
	read -ra args <<<"${c#*|}"
	"$BIN" "${SIM[@]}" "${args[@]}" 2>/dev/null | python3 "$ROOT/tests/errbar_check.py" --per-metric --label "$label"
done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_vendor.sh: --list-modes and --explain on the Arm and AMD sysfs trees say what the vendors'
# lists say: the family the MIDR or cpuinfo names (perf's mapfile.csv), table walks where the
# PMU's events/ lists them, refills labelled elsewhere, AMD I-cache misses off PMCx081 (AMD's
# 2025 erratum) and Zen 3's coalesced-4K ITLB umask (perf's amdzen3 cache.json).
source "$(dirname "$0")/lib.sh"
S=$T_SRC/tests/sysfs

lm() { run_cmd --list-modes --sysfs-root "$S/$1"; }
row() { grep -E "^$1 " "$T_TMP/out"; }
explain() { LIBPFM_ENCODE_INACTIVE=1 run_cmd --explain "$1" --sysfs-root "$S/$2"; }
enc() { # enc DESC ALIAS CONFIG
	if grep -Eq "^  $2 +[^ ]+ +type=[0-9]+ config=$3 " "$T_TMP/out"; then pass; else
		fail "$1: $2 is not config=$3: $(grep "^  $2 " "$T_TMP/out")"
	fi
}

# Neoverse V1 (MIDR 0x411fd401 -> part 0xd40; perf mapfile 0x410fd400 -> arm/neoverse-v1). Its
# events/ lists itlb_walk but not dtlb_walk.
lm arm-neoverse
check "arm-neoverse: family neoverse_v1 from the MIDR" grep -q '^# family: neoverse_v1 ' "$T_TMP/out"
check "arm-neoverse: itlb counts walks (no refill label)" bash -c "grep -E '^itlb +available' '$T_TMP/out' | grep -vq refills"
check "arm-neoverse: dtlb labelled as L1 refills (no dtlb_walk in events/)" bash -c "grep -E '^dtlb +available' '$T_TMP/out' | grep -q 'L1 DTLB refills'"
check "arm-neoverse: topdown with BR_MIS_PRED (6 counters)" bash -c "grep -Eq '^topdown +available +6/6' '$T_TMP/out'"
explain itlb arm-neoverse
enc "V1 ITLB_WALK = 0x35" itlb_miss 0x35
explain dtlb arm-neoverse
enc "V1 without dtlb_walk: L1D_TLB_REFILL = 0x05" dtlb_miss 0x5

# Cortex-A53: no walk events (Cortex-A53 TRM; perf's cortex-a53 lists none)
lm arm-a53
check "arm-a53: itlb labelled as L1 refills" bash -c "grep -E '^itlb +available' '$T_TMP/out' | grep -q 'L1 ITLB refills'"
check "arm-a53: dtlb labelled as L1 refills" bash -c "grep -E '^dtlb +available' '$T_TMP/out' | grep -q 'L1 DTLB refills'"

# V1 + N2 with their own formulas: one mode cannot run both on every CPU
lm arm-neoverse-mixed
check "arm-neoverse-mixed: topdown refused with the reason" bash -c "grep -E '^topdown +n/a' '$T_TMP/out' | grep -q 'core types need different events'"

# AMD: Zen 1/2 (Family 17h), Zen 3 (19h model 01h), Zen 4 (19h model 11h); perf 6.1 mapfile.csv
for t in "x86-zen1 zen" "x86-zen2 zen" "x86-zen3 zen3" "x86-zen4 zen4"; do
	set -- $t
	lm "$1"
	check "$1: family $2" grep -q "^# family: $2 " "$T_TMP/out"
	explain icache "$1"
	enc "$1 I-cache misses PMCx060 umask 0x10 (not PMCx081)" imiss 0x1060
done
explain itlb x86-zen1
enc "Zen 1/2 ITLB walks PMCx085 umask 0x07" itlb_miss 0x785
for t in x86-zen3 x86-zen4; do
	explain itlb $t
	enc "$t ITLB walks PMCx085 umask 0x0F (coalesced 4K included)" itlb_miss 0xf85
done
t_done

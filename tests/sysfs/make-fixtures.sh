#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make-fixtures.sh: regenerates the sysfs/procfs fixture trees used by tests/test_platform.c.
# Usage: bash tests/sysfs/make-fixtures.sh   (rewrites every tree next to this script)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

w() { # w FILE CONTENT...: writes one file (with a trailing newline), creating its directory
	mkdir -p "$(dirname "$1")"
	local f=$1
	shift
	printf '%s\n' "$@" >"$f"
}

cpus() { # cpus ROOT POSSIBLE ONLINE PRESENT
	local d=$1/sys/devices/system/cpu
	w "$d/possible" "$2"
	w "$d/online" "$3"
	w "$d/present" "$4"
}

cache() { # cache ROOT CPU INDEX LEVEL TYPE SIZE LINE
	local d=$1/sys/devices/system/cpu/cpu$2/cache/index$3
	w "$d/level" "$4"
	w "$d/type" "$5"
	w "$d/size" "$6"
	w "$d/coherency_line_size" "$7"
}

x86_caches() { # x86_caches ROOT CPU L1D L1I L2 [L3]
	cache "$1" "$2" 0 1 Data "$3" 64
	cache "$1" "$2" 1 1 Instruction "$4" 64
	cache "$1" "$2" 2 2 Unified "$5" 64
	[ -z "${6:-}" ] || cache "$1" "$2" 3 3 Unified "$6" 64
}

pmu() { # pmu ROOT NAME TYPE: type and mux interval
	local d=$1/sys/bus/event_source/devices/$2
	w "$d/type" "$3"
	w "$d/perf_event_mux_interval_ms" 4
}

sw_pmus() { # sw_pmus ROOT: the software PMUs every x86 kernel has
	pmu "$1" software 1
	pmu "$1" tracepoint 2
	pmu "$1" breakpoint 5
	pmu "$1" uprobe 8
	w "$1/sys/bus/event_source/devices/uprobe/format/retprobe" "config:0"
}

x86_core_pmu() { # x86_core_pmu ROOT NAME TYPE CAPS [CPUS]
	local d=$1/sys/bus/event_source/devices/$2
	pmu "$1" "$2" "$3"
	w "$d/caps/pmu_name" "$4"
	w "$d/caps/max_precise" 3
	[ -z "${5:-}" ] || w "$d/cpus" "$5"
	w "$d/format/event" "config:0-7"
	w "$d/format/umask" "config:8-15"
	w "$d/format/edge" "config:18"
	w "$d/format/inv" "config:23"
	w "$d/format/cmask" "config:24-31"
	w "$d/format/pc" "config:19"
	w "$d/format/any" "config:21"
	w "$d/format/offcore_rsp" "config1:0-63"
	w "$d/format/ldlat" "config1:0-15"
	w "$d/events/cpu-cycles" "event=0x3c"
	w "$d/events/cache-misses" "event=0x2e,umask=0x41"
	w "$d/events/mem-loads" "event=0xcd,umask=0x1,ldlat=3"
	w "$d/events/instructions" "event=0xc0"
	w "$d/events/branch-instructions" "event=0xc4"
	w "$d/events/branch-misses" "event=0xc5"
	w "$d/events/ref-cycles" "event=0x00,umask=0x03"
}

msr_pmu() { # msr_pmu ROOT TYPE [aperfmperf]: a bare-metal x86 also has APERF and MPERF
	local d=$1/sys/bus/event_source/devices/msr
	pmu "$1" msr "$2"
	w "$d/format/event" "config:0-63"
	w "$d/events/tsc" "event=0x00"
	w "$d/events/smi" "event=0x04"
	if [ "${3:-}" = aperfmperf ]; then
		w "$d/events/aperf" "event=0x01"
		w "$d/events/mperf" "event=0x02"
	fi
}

# ARMv8 common events by number, as the kernel names them in <pmu>/events/.
ARMV8_EVENTS=(sw_incr l1i_cache_refill l1i_tlb_refill l1d_cache_refill l1d_cache l1d_tlb_refill
	ld_retired st_retired inst_retired exc_taken exc_return cid_write_retired pc_write_retired
	br_immed_retired br_return_retired unaligned_ldst_retired br_mis_pred cpu_cycles br_pred
	mem_access l1i_cache l1d_cache_wb l2d_cache l2d_cache_refill l2d_cache_wb bus_access
	memory_error inst_spec ttbr_write_retired bus_cycles chain l1d_cache_allocate
	l2d_cache_allocate br_retired br_mis_pred_retired stall_frontend stall_backend l1d_tlb
	l1i_tlb l2i_cache l2i_cache_refill l3d_cache_allocate l3d_cache_refill l3d_cache
	l3d_cache_wb l2d_tlb_refill l2i_tlb_refill l2d_tlb l2i_tlb remote_access ll_cache
	ll_cache_miss dtlb_walk itlb_walk ll_cache_rd ll_cache_miss_rd remote_access_rd
	l1d_cache_lmiss_rd op_retired op_spec stall stall_slot_backend stall_slot_frontend stall_slot)
# PMCEID0/PMCEID1 reset values from the TRMs: the events/ directory lists the set bits
# (the kernel's armv8pmu_event_attr_is_visible). The cycle counter event is always there.
A53_PMCEID="0x67ffbfff 0x00000000"
A72_PMCEID="0x7fff0f3f 0x00000000"
A76_LIKE_PMCEID="0x7fff0f3f 0x00e0001f" # with STALL_FRONTEND/BACKEND and LL_CACHE_RD/MISS_RD
V1_LIKE_PMCEID="0x7fff0f3f 0xfce0001f" # PMUv3p4: plus OP_RETIRED, OP_SPEC, STALL, STALL_SLOT_*

armv8_pmu() { # armv8_pmu ROOT NAME TYPE CPUS PMCEID0 PMCEID1
	local d=$1/sys/bus/event_source/devices/$2 id0=$(($5)) id1=$(($6)) i
	pmu "$1" "$2" "$3"
	w "$d/cpus" "$4"
	w "$d/format/event" "config:0-15"
	w "$d/format/long" "config1:0"
	for i in "${!ARMV8_EVENTS[@]}"; do
		if { [ "$i" -lt 32 ] && (((id0 >> i) & 1)); } ||
			{ [ "$i" -ge 32 ] && (((id1 >> (i - 32)) & 1)); }; then
			w "$d/events/${ARMV8_EVENTS[$i]}" "$(printf 'event=0x%04x' "$i")"
		fi
	done
}

# The kernel's fixed ARMv7 PMUv1 list (perf_event_v7.c): shown for every ARMv7 core, whether
# the core implements the event or not (Cortex-A9 has no inst_retired).
armv7_pmu() { # armv7_pmu ROOT NAME TYPE CPUS
	local d=$1/sys/bus/event_source/devices/$2 e
	pmu "$1" "$2" "$3"
	w "$d/cpus" "$4"
	w "$d/format/event" "config:0-7"
	for e in sw_incr=0x00 l1i_cache_refill=0x01 l1i_tlb_refill=0x02 l1d_cache_refill=0x03 \
		l1d_cache=0x04 l1d_tlb_refill=0x05 ld_retired=0x06 st_retired=0x07 inst_retired=0x08 \
		exc_taken=0x09 exc_return=0x0A cid_write_retired=0x0B pc_write_retired=0x0C \
		br_immed_retired=0x0D br_return_retired=0x0E unaligned_ldst_retired=0x0F \
		br_mis_pred=0x10 cpu_cycles=0x11 br_pred=0x12; do
		w "$d/events/${e%%=*}" "event=${e#*=}"
	done
}

arm32_cpuinfo() { # arm32_cpuinfo ROOT NCPUS MODELNAME ARCH PART REV HARDWARE
	local f=$1/proc/cpuinfo c
	mkdir -p "$1/proc"
	: >"$f"
	for ((c = 0; c < $2; c++)); do
		printf 'processor\t: %d\nmodel name\t: %s\nBogoMIPS\t: 697.95\nFeatures\t: half thumb fastmult vfp edsp java tls\n' $c "$3" >>"$f"
		printf 'CPU implementer\t: 0x41\nCPU architecture: %s\nCPU variant\t: 0x0\nCPU part\t: %s\nCPU revision\t: %s\n\n' "$4" "$5" "$6" >>"$f"
	done
	printf 'Hardware\t: %s\nRevision\t: 0000\nSerial\t\t: 0000000000000000\n' "$7" >>"$f"
}

arm64_cpu() { # arm64_cpu ROOT CPU MAX_KHZ MIDR: cpufreq maximum, MIDR_EL1 and (but CPU 0) online
	w "$1/sys/devices/system/cpu/cpu$2/cpufreq/cpuinfo_max_freq" "$3"
	w "$1/sys/devices/system/cpu/cpu$2/regs/identification/midr_el1" "$4"
	[ "$2" -eq 0 ] || w "$1/sys/devices/system/cpu/cpu$2/online" 1
}
arm64_cpuinfo() { # arm64_cpuinfo ROOT CPU BOGOMIPS FEATURES VARIANT PART REV: CPU's /proc/cpuinfo
	local f=$1/proc/cpuinfo # block, appended (CPU 0 starts the file)
	mkdir -p "$1/proc"
	[ "$2" -ne 0 ] || : >"$f"
	printf 'processor\t: %d\nBogoMIPS\t: %s\nFeatures\t: %s\n' "$2" "$3" "$4" >>"$f"
	printf 'CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: %s\nCPU part\t: %s\nCPU revision\t: %s\n\n' \
		"$5" "$6" "$7" >>"$f"
}
kernel() { # kernel ROOT PARANOID WATCHDOG HOSTNAME OSRELEASE
	local d=$1/proc/sys/kernel
	w "$d/perf_event_paranoid" "$2"
	w "$d/nmi_watchdog" "$3"
	w "$d/hostname" "$4"
	w "$d/osrelease" "$5"
}

x86_cpuinfo() { # x86_cpuinfo ROOT NCPUS VENDOR FAMILY MODEL NAME FLAGS: one block per CPU
	local f=$1/proc/cpuinfo i
	mkdir -p "$1/proc"
	: >"$f"
	for ((i = 0; i < $2; i++)); do
		printf 'processor\t: %d\nvendor_id\t: %s\ncpu family\t: %d\nmodel\t\t: %d\n' \
			"$i" "$3" "$4" "$5" >>"$f"
		printf 'model name\t: %s\nstepping\t: 3\ncpu MHz\t\t: 2400.000\n' "$6" >>"$f"
		printf 'physical id\t: 0\ncore id\t\t: %d\ncpu cores\t: %d\n' "$i" "$2" >>"$f"
		printf 'flags\t\t: %s\nclflush size\t: 64\ncache_alignment\t: 64\n\n' "$7" >>"$f"
	done
}

X86_FLAGS="fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 monitor ds_cpl vmx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch"
VM_FLAGS="fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology nonstop_tsc cpuid tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch avx512f arat umip"

# --- x86-vm-nopmu: a VM without vPMU (like the development machine) ---
r=$here/x86-vm-nopmu
rm -rf "$r"
cpus "$r" 0-1 0-1 0-1
for c in 0 1; do x86_caches "$r" $c 48K 32K 2048K 107520K; done
w "$r/sys/devices/system/cpu/cpu1/online" 1
sw_pmus "$r"
msr_pmu "$r" 9
x86_cpuinfo "$r" 2 GenuineIntel 6 143 "Intel(R) Xeon(R) Platinum 8480+" "$VM_FLAGS"
kernel "$r" 2 0 vm 6.18.44-fc-v669

# --- x86-skylake: desktop Skylake, NMI watchdog on ---
r=$here/x86-skylake
rm -rf "$r"
cpus "$r" 0-3 0-3 0-3
for c in 0 1 2 3; do x86_caches "$r" $c 32K 32K 256K 6144K; done
for c in 1 2 3; do w "$r/sys/devices/system/cpu/cpu$c/online" 1; done
sw_pmus "$r"
x86_core_pmu "$r" cpu 4 skylake
msr_pmu "$r" 10 aperfmperf
x86_cpuinfo "$r" 4 GenuineIntel 6 94 "Intel(R) Core(TM) i5-6500 CPU @ 3.20GHz" "$X86_FLAGS"
kernel "$r" 2 1 skylake-desk 5.15.0-91-generic

# --- x86-hybrid: Alder Lake i3-1215U, 2 P-cores (4 threads) + 4 E-cores ---
r=$here/x86-hybrid
rm -rf "$r"
cpus "$r" 0-7 0-7 0-7
for c in 0 1 2 3; do x86_caches "$r" $c 48K 32K 1280K 10240K; done
for c in 4 5 6 7; do x86_caches "$r" $c 32K 64K 2048K 10240K; done
for c in 1 2 3 4 5 6 7; do w "$r/sys/devices/system/cpu/cpu$c/online" 1; done
sw_pmus "$r"
x86_core_pmu "$r" cpu_core 4 alderlake_hybrid 0-3
x86_core_pmu "$r" cpu_atom 10 alderlake_hybrid 4-7
# the P-cores' PERF_METRICS events, as the kernel lists them under cpu_core/events (adl_hybrid_events_attrs)
d=$r/sys/bus/event_source/devices/cpu_core/events
w "$d/slots" "event=0x00,umask=0x4"
w "$d/topdown-retiring" "event=0x00,umask=0x80"
w "$d/topdown-bad-spec" "event=0x00,umask=0x81"
w "$d/topdown-fe-bound" "event=0x00,umask=0x82"
w "$d/topdown-be-bound" "event=0x00,umask=0x83"
w "$d/topdown-heavy-ops" "event=0x00,umask=0x84"
w "$d/topdown-br-mispredict" "event=0x00,umask=0x85"
w "$d/topdown-fetch-lat" "event=0x00,umask=0x86"
w "$d/topdown-mem-bound" "event=0x00,umask=0x87"
msr_pmu "$r" 11 aperfmperf
x86_cpuinfo "$r" 8 GenuineIntel 6 154 "12th Gen Intel(R) Core(TM) i3-1215U" "$X86_FLAGS"
kernel "$r" -1 0 alder 6.5.0-14-generic

# --- x86-offline: 4 possible CPUs, CPU 2 offline, Haswell ---
r=$here/x86-offline
rm -rf "$r"
cpus "$r" 0-3 0-1,3 0-3
for c in 0 1 3; do x86_caches "$r" $c 32K 32K 256K 8192K; done
w "$r/sys/devices/system/cpu/cpu1/online" 1
w "$r/sys/devices/system/cpu/cpu2/online" 0
w "$r/sys/devices/system/cpu/cpu3/online" 1
sw_pmus "$r"
x86_core_pmu "$r" cpu 4 haswell
msr_pmu "$r" 9 aperfmperf
x86_cpuinfo "$r" 3 GenuineIntel 6 60 "Intel(R) Core(TM) i7-4770 CPU @ 3.40GHz" "$X86_FLAGS"
kernel "$r" 0 0 hotplug 6.1.0-17-amd64

# --- silvermont: Atom E3845 board ---
r=$here/silvermont
rm -rf "$r"
cpus "$r" 0-3 0-3 0-3
for c in 0 1 2 3; do
	cache "$r" $c 0 1 Data 24K 64
	cache "$r" $c 1 1 Instruction 32K 64
	cache "$r" $c 2 2 Unified 1024K 64
done
for c in 1 2 3; do w "$r/sys/devices/system/cpu/cpu$c/online" 1; done
sw_pmus "$r"
x86_core_pmu "$r" cpu 4 silvermont
msr_pmu "$r" 9 aperfmperf
x86_cpuinfo "$r" 4 GenuineIntel 6 55 "Intel(R) Atom(TM) CPU  E3845  @ 1.91GHz" "$X86_FLAGS"
kernel "$r" 3 0 baytrail 4.19.0-26-amd64

# --- arm-biglittle: RK3399-like, 4x Cortex-A53 (0-3) + 2x Cortex-A72 (4-5) ---
r=$here/arm-biglittle
rm -rf "$r"
cpus "$r" 0-5 0-5 0-5
for c in 0 1 2 3 4 5; do
	if [ $c -lt 4 ]; then l1=32K l2=512K midr=0x00000000410fd034; else l1=32K l2=1024K midr=0x00000000410fd082; fi
	cache "$r" $c 0 1 Data $l1 64
	cache "$r" $c 1 1 Instruction $l1 64
	cache "$r" $c 2 2 Unified $l2 64
	w "$r/sys/devices/system/cpu/cpu$c/regs/identification/midr_el1" $midr
	[ $c -eq 0 ] || w "$r/sys/devices/system/cpu/cpu$c/online" 1
done
pmu "$r" software 1
pmu "$r" tracepoint 2
pmu "$r" breakpoint 5
pmu "$r" kprobe 6
pmu "$r" uprobe 7
armv8_pmu "$r" armv8_cortex_a53 8 0-3 $A53_PMCEID
armv8_pmu "$r" armv8_cortex_a72 9 4-5 $A72_PMCEID
for c in 0 1 2 3; do w "$r/sys/devices/system/cpu/cpu$c/cpufreq/cpuinfo_max_freq" 1416000; done
for c in 4 5; do w "$r/sys/devices/system/cpu/cpu$c/cpufreq/cpuinfo_max_freq" 1800000; done
for c in 0 1 2 3 4 5; do
	if [ $c -lt 4 ]; then part=0xd03 rev=4; else part=0xd08 rev=2; fi
	arm64_cpuinfo "$r" $c 48.00 "fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid" 0x0 $part $rev
done
kernel "$r" 1 1 rockpro64 6.1.68-rockchip64

# --- xscale: IXP42x board whose kernel registers the xscale PMU ---
mk_xscale() { # mk_xscale ROOT WITH_PMU [PMU MODEL PART BOARD HOST KERNEL]
	local r=$1 pmu=${3:-armv5_xscale2} model=${4:-XScale-IXP42x Family rev 0 (v5b)}
	local part=${5:-0x41c} board=${6:-Linksys NSLU2} host=${7:-nslu2} rel=${8:-6.6.30-ixp4xx}
	rm -rf "$r"
	cpus "$r" 0 0 0
	pmu "$r" software 1
	pmu "$r" tracepoint 2
	if [ "$2" = 1 ]; then
		pmu "$r" "$pmu" 6
		w "$r/sys/bus/event_source/devices/$pmu/cpus" 0
	fi
	w "$r/proc/cpuinfo" \
		"$(printf 'processor\t: 0\nmodel name\t: %s\nBogoMIPS\t: 266.24\nFeatures\t: swp half fastmult edsp \nCPU implementer\t: 0x69\nCPU architecture: 5TE\nCPU variant\t: 0x0\nCPU part\t: %s\nCPU revision\t: 0\n\nHardware\t: %s\nRevision\t: 0000\nSerial\t\t: 0000000000000000' "$model" "$part" "$board")"
	kernel "$r" 1 -1 "$host" "$rel"
	# no nmi_watchdog on ARMv5
	rm -f "$r/proc/sys/kernel/nmi_watchdog"
}
mk_xscale "$here/xscale" 1
# --- xscale-nopmu: the same board on a kernel without an xscale-pmu device ---
mk_xscale "$here/xscale-nopmu" 0

# --- armv6: Raspberry Pi Zero, one ARM1176JZF-S; the ARMv6 PMU has no events/ or format/ ---
r=$here/armv6
rm -rf "$r"
cpus "$r" 0 0 0
pmu "$r" software 1
pmu "$r" tracepoint 2
pmu "$r" breakpoint 5
pmu "$r" armv6_1176 7
w "$r/sys/bus/event_source/devices/armv6_1176/cpus" 0
w "$r/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq" 1000000
arm32_cpuinfo "$r" 1 "ARMv6-compatible processor rev 7 (v6l)" 7 0xb76 7 "BCM2835"
kernel "$r" 1 -1 pizero 6.1.21+
rm -f "$r/proc/sys/kernel/nmi_watchdog"

# --- cortex-a9: i.MX6 Quad, 4x Cortex-A9; events/ is the kernel's fixed ARMv7 list ---
r=$here/cortex-a9
rm -rf "$r"
cpus "$r" 0-3 0-3 0-3
pmu "$r" software 1
pmu "$r" tracepoint 2
pmu "$r" breakpoint 5
armv7_pmu "$r" armv7_cortex_a9 7 0-3
for c in 0 1 2 3; do
	w "$r/sys/devices/system/cpu/cpu$c/cpufreq/cpuinfo_max_freq" 996000
	[ $c -eq 0 ] || w "$r/sys/devices/system/cpu/cpu$c/online" 1
done
arm32_cpuinfo "$r" 4 "ARMv7 Processor rev 10 (v7l)" 7 0xc09 10 "Freescale i.MX6 Quad/DualLite (Device Tree)"
kernel "$r" 1 -1 imx6q 6.1.55-imx6
rm -f "$r/proc/sys/kernel/nmi_watchdog"

# --- arm-a53: Raspberry Pi 3, 4x Cortex-A53; events/ has no stall_* or ll_cache_* ---
r=$here/arm-a53
rm -rf "$r"
cpus "$r" 0-3 0-3 0-3
pmu "$r" software 1
pmu "$r" tracepoint 2
pmu "$r" breakpoint 5
armv8_pmu "$r" armv8_cortex_a53 8 0-3 $A53_PMCEID
for c in 0 1 2 3; do
	arm64_cpu "$r" $c 1200000 0x00000000410fd034
	arm64_cpuinfo "$r" $c 38.40 "fp asimd evtstrm crc32 cpuid" 0x0 0xd03 4
done
kernel "$r" 1 0 rpi3 6.1.21-v8+
# --- xscale1: an 80219 board (XScale core v1: CCNT + 2 counters, the xscale1 PMU) ---
mk_xscale "$here/xscale1" 1 armv5_xscale1 "XScale-80219 rev 0 (v5l)" 0x2e3 "Thecus N2100" n2100 6.1.0-iop32x

# --- x86-icelake: Ice Lake client; the slots fixed counter and the PERF_METRICS events ---
icl_like() { # icl_like ROOT CAPS MODEL NAME HOST LEVEL2: cpu/events/ has slots and topdown-*
	local r=$1 d=$1/sys/bus/event_source/devices/cpu c
	rm -rf "$r"
	cpus "$r" 0-3 0-3 0-3
	for c in 0 1 2 3; do x86_caches "$r" $c 48K 32K 512K 8192K; done
	for c in 1 2 3; do w "$r/sys/devices/system/cpu/cpu$c/online" 1; done
	sw_pmus "$r"
	x86_core_pmu "$r" cpu 4 "$2"
	w "$d/events/slots" "event=0x00,umask=0x4"
	w "$d/events/topdown-retiring" "event=0x00,umask=0x80"
	w "$d/events/topdown-bad-spec" "event=0x00,umask=0x81"
	w "$d/events/topdown-fe-bound" "event=0x00,umask=0x82"
	w "$d/events/topdown-be-bound" "event=0x00,umask=0x83"
	if [ "$6" = 1 ]; then
		w "$d/events/topdown-heavy-ops" "event=0x00,umask=0x84"
		w "$d/events/topdown-br-mispredict" "event=0x00,umask=0x85"
		w "$d/events/topdown-fetch-lat" "event=0x00,umask=0x86"
		w "$d/events/topdown-mem-bound" "event=0x00,umask=0x87"
	fi
	msr_pmu "$r" 10 aperfmperf
	x86_cpuinfo "$r" 4 GenuineIntel 6 "$3" "$4" "$X86_FLAGS"
	kernel "$r" 0 0 "$5" 6.8.0-45-generic
}
icl_like "$here/x86-icelake" icelake 126 "Intel(R) Core(TM) i7-1065G7 CPU @ 1.30GHz" icl-laptop 0
# --- x86-sapphire: Sapphire Rapids; PERF_METRICS with the level-2 events ---
icl_like "$here/x86-sapphire" sapphire_rapids 143 "Intel(R) Xeon(R) Gold 6430" spr-server 1

# --- Intel trees named by CPU model: caps/pmu_name as linux 6.1's intel_pmu_init spells it ---
intel_tree() { # intel_tree ROOT CAPS MODEL NAME HOST SMT(0/1): 4 CPUs; SMT 1 = 2 cores x 2 threads
	local r=$1 c
	rm -rf "$r"
	cpus "$r" 0-3 0-3 0-3
	for c in 0 1 2 3; do x86_caches "$r" $c 32K 32K 1024K 8192K; done
	for c in 1 2 3; do w "$r/sys/devices/system/cpu/cpu$c/online" 1; done
	w "$r/sys/devices/system/cpu/smt/active" "$6"
	for c in 0 1 2 3; do
		w "$r/sys/devices/system/cpu/cpu$c/topology/physical_package_id" 0
		if [ "$6" = 1 ]; then
			w "$r/sys/devices/system/cpu/cpu$c/topology/core_id" $((c % 2))
			w "$r/sys/devices/system/cpu/cpu$c/topology/thread_siblings_list" "$((c % 2)),$((c % 2 + 2))"
		else
			w "$r/sys/devices/system/cpu/cpu$c/topology/core_id" $c
			w "$r/sys/devices/system/cpu/cpu$c/topology/thread_siblings_list" $c
		fi
	done
	sw_pmus "$r"
	x86_core_pmu "$r" cpu 4 "$2"
	msr_pmu "$r" 10 aperfmperf
	x86_cpuinfo "$r" 4 GenuineIntel 6 "$3" "$4" "$X86_FLAGS"
	kernel "$r" 0 0 "$5" 6.1.0-27-amd64
}
# Elkhart Lake (Tremont, model 0x96): the kernel writes "Tremont" with a capital T
intel_tree "$here/x86-tremont" Tremont 150 "Intel(R) Atom(TM) x6425E  @ 2.00GHz" ehl 0
# Apollo Lake (Goldmont, model 0x5c)
intel_tree "$here/x86-goldmont" goldmont 92 "Intel(R) Celeron(R) CPU J3455 @ 1.50GHz" apl 0
# Alder Lake-N (Gracemont only, model 0xbe): "gracemont", one core PMU named cpu
intel_tree "$here/x86-gracemont" gracemont 190 "Intel(R) N100" n100 0
# Skylake-SP/Cascade Lake (model 0x55): the kernel says "skylake" as for the client parts; SMT on
intel_tree "$here/x86-skylake-sp" skylake 85 "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz" clx 1
# Skylake client with SMT on (Kaby Lake i7, model 0x9e)
intel_tree "$here/x86-skylake-smt" skylake 158 "Intel(R) Core(TM) i7-7700 CPU @ 3.60GHz" kbl 1
# Haswell-EP (model 0x3f) with SMT on
intel_tree "$here/x86-haswell-ep" haswell 63 "Intel(R) Xeon(R) CPU E5-2680 v3 @ 2.50GHz" hsx 1
# Ice Lake-SP (model 0x6a): "icelake" as for the client parts
intel_tree "$here/x86-icelake-sp" icelake 106 "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz" icx 0
d=$here/x86-icelake-sp/sys/bus/event_source/devices/cpu/events
w "$d/slots" "event=0x00,umask=0x4"
w "$d/topdown-retiring" "event=0x00,umask=0x80"
w "$d/topdown-bad-spec" "event=0x00,umask=0x81"
w "$d/topdown-fe-bound" "event=0x00,umask=0x82"
w "$d/topdown-be-bound" "event=0x00,umask=0x83"

# --- x86-zen4: AMD Genoa (family 0x19 model 0x11); the AMD core PMU has no caps/pmu_name ---
r=$here/x86-zen4
rm -rf "$r"
cpus "$r" 0-3 0-3 0-3
for c in 0 1 2 3; do x86_caches "$r" $c 32K 32K 1024K 32768K; done
for c in 1 2 3; do w "$r/sys/devices/system/cpu/cpu$c/online" 1; done
sw_pmus "$r"
pmu "$r" cpu 4
d=$r/sys/bus/event_source/devices/cpu
w "$d/format/event" "config:0-7,32-35"
w "$d/format/umask" "config:8-15"
w "$d/format/edge" "config:18"
w "$d/format/inv" "config:23"
w "$d/format/cmask" "config:24-31"
w "$d/events/cpu-cycles" "event=0x76"
w "$d/events/instructions" "event=0xc0"
w "$d/events/branch-instructions" "event=0xc2"
w "$d/events/branch-misses" "event=0xc3"
msr_pmu "$r" 9 aperfmperf
x86_cpuinfo "$r" 4 AuthenticAMD 25 17 "AMD EPYC 9124 16-Core Processor" "$X86_FLAGS"
kernel "$r" 0 0 genoa 6.8.0-45-generic

# --- x86-zen1/zen2/zen3: AMD EPYC Naples (family 0x17 model 0x01), Rome (0x17/0x31), Milan
# (0x19/0x01); the same core PMU as Zen 4, told apart by family and model ---
zen_tree() { # zen_tree NAME MODEL-NAME FAMILY MODEL
	local r=$here/$1 d
	rm -rf "$r"
	cpus "$r" 0-3 0-3 0-3
	for c in 0 1 2 3; do x86_caches "$r" $c 32K 64K 512K 8192K; done
	for c in 1 2 3; do w "$r/sys/devices/system/cpu/cpu$c/online" 1; done
	sw_pmus "$r"
	pmu "$r" cpu 4
	d=$r/sys/bus/event_source/devices/cpu
	w "$d/format/event" "config:0-7,32-35"
	w "$d/format/umask" "config:8-15"
	w "$d/format/edge" "config:18"
	w "$d/format/inv" "config:23"
	w "$d/format/cmask" "config:24-31"
	w "$d/events/cpu-cycles" "event=0x76"
	w "$d/events/instructions" "event=0xc0"
	msr_pmu "$r" 9 aperfmperf
	x86_cpuinfo "$r" 4 AuthenticAMD "$3" "$4" "$2" "$X86_FLAGS"
	kernel "$r" 0 0 "${1#x86-}" 6.1.0-25-amd64
}
zen_tree x86-zen1 "AMD EPYC 7301 16-Core Processor" 23 1
zen_tree x86-zen2 "AMD EPYC 7302 16-Core Processor" 23 49
zen_tree x86-zen3 "AMD EPYC 7763 64-Core Processor" 25 1

# --- arm-neoverse: Neoverse V1 server (ACPI: one armv8_pmuv3_0 PMU), PMUv3p4 with caps/slots ---
r=$here/arm-neoverse
rm -rf "$r"
cpus "$r" 0-3 0-3 0-3
pmu "$r" software 1
pmu "$r" tracepoint 2
pmu "$r" breakpoint 5
armv8_pmu "$r" armv8_pmuv3_0 8 0-3 $V1_LIKE_PMCEID
w "$r/sys/bus/event_source/devices/armv8_pmuv3_0/caps/slots" 8
for c in 0 1 2 3; do
	arm64_cpu "$r" $c 2600000 0x00000000411fd401
	arm64_cpuinfo "$r" $c 2100.00 "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics cpuid sve" 0x1 0xd40 1
done
kernel "$r" 0 0 graviton3 6.8.0-1016-aws

# --- arm-neoverse-mixed: two core PMUs whose caps/slots differ (8 and 5) ---
r=$here/arm-neoverse-mixed
rm -rf "$r"
cpus "$r" 0-3 0-3 0-3
pmu "$r" software 1
pmu "$r" tracepoint 2
pmu "$r" breakpoint 5
armv8_pmu "$r" armv8_neoverse_v1 8 0-1 $V1_LIKE_PMCEID
armv8_pmu "$r" armv8_neoverse_n2 9 2-3 $V1_LIKE_PMCEID
w "$r/sys/bus/event_source/devices/armv8_neoverse_v1/caps/slots" 8
w "$r/sys/bus/event_source/devices/armv8_neoverse_n2/caps/slots" 5
for c in 1 2 3; do w "$r/sys/devices/system/cpu/cpu$c/online" 1; done
for c in 0 1 2 3; do
	if [ $c -lt 2 ]; then part=0xd40; else part=0xd49; fi
	arm64_cpuinfo "$r" $c 2100.00 "fp asimd cpuid" 0x1 $part 1
done
kernel "$r" 0 0 mixed 6.8.0

topo() { # topo ROOT CPU SOCKET DIE CLUSTER CORE SIBLINGS [CLUSTER_CPUS]: topology/ (DIE or
	# CLUSTER "-": the file is absent, as on kernels and architectures without it)
	local d=$1/sys/devices/system/cpu/cpu$2/topology
	w "$d/physical_package_id" "$3"
	[ "$4" = - ] || w "$d/die_id" "$4"
	[ "$5" = - ] || w "$d/cluster_id" "$5"
	w "$d/core_id" "$6"
	w "$d/core_cpus_list" "$7"
	w "$d/thread_siblings_list" "$7"
	[ -z "${8:-}" ] || w "$d/cluster_cpus_list" "$8"
}

cache_share() { # cache_share ROOT CPU INDEX ID SHARED_CPU_LIST: the cache's id and sharers
	local d=$1/sys/devices/system/cpu/cpu$2/cache/index$3
	w "$d/id" "$4"
	w "$d/shared_cpu_list" "$5"
}

# --- x86-2s-smt: two sockets x 2 cores x 2 threads (Xeon-like numbering: the second threads
# are CPUs 4-7), core ids 0 and 1 in each socket, an L2 per core (cluster_id) and an L3 per
# socket ---
r=$here/x86-2s-smt
rm -rf "$r"
cpus "$r" 0-7 0-7 0-7
for c in 0 1 2 3 4 5 6 7; do
	x86_caches "$r" $c 32K 32K 1024K 16384K
	[ $c -eq 0 ] || w "$r/sys/devices/system/cpu/cpu$c/online" 1
	socket=$(((c / 2) % 2)) core=$((c % 2)) first=$((c % 4))
	sib="$first,$((first + 4))"
	topo "$r" $c $socket 0 $((socket * 8 + core * 2)) $core "$sib" "$sib"
	cache_share "$r" $c 0 $((socket * 2 + core)) "$sib"
	cache_share "$r" $c 1 $((socket * 2 + core)) "$sib"
	cache_share "$r" $c 2 $((socket * 2 + core)) "$sib"
	cache_share "$r" $c 3 $socket "$((socket * 2)),$((socket * 2 + 1)),$((socket * 2 + 4)),$((socket * 2 + 5))"
done
sw_pmus "$r"
x86_core_pmu "$r" cpu 4 skylake
msr_pmu "$r" 10 aperfmperf
x86_cpuinfo "$r" 8 GenuineIntel 6 85 "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz" "$X86_FLAGS"
kernel "$r" 0 0 twosocket 6.1.0-17-amd64

# --- arm-biglittle-topo: the RK3399-like board with its topology: one package, no die_id, a
# cluster per core type (A53s cluster 0, A72s cluster 1), each cluster its own L2 ---
r=$here/arm-biglittle-topo
rm -rf "$r"
cp -r "$here/arm-biglittle" "$r"
for c in 0 1 2 3 4 5; do
	if [ $c -lt 4 ]; then cl=0 mates=0-3; else cl=1 mates=4-5; fi
	topo "$r" $c 0 - $cl $c $c "$mates"
	cache_share "$r" $c 2 $cl "$mates"
done

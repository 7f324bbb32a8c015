#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_metricnames.sh: -M as perf stat -M takes it: whole metric and metric group names in any
# case, comma lists, a metric preferred over a group of a longer name (tma_frontend_bound is the
# metric, tma_frontend_bound_group the group, as in perf's Intel files), invented prefixes
# refused, names longer than a mode name still chosen. The library is the test fixture with
# such names added; where the kernel's own files were extracted by the build, the real
# tma_frontend_bound of Skylake too.
source "$(dirname "$0")/lib.sh"

SKL=$T_SRC/tests/sysfs/x86-skylake
LIB=$T_TMP/pmu-events
cp -r "$T_SRC/tests/fixtures/pmu-events" "$LIB"
LONG=a_metric_name_far_longer_than_forty_three_characters_here
python3 - "$LIB/arch/x86/testlake/metrics.json" "$LONG" <<'PY'
import json, sys
p, long = sys.argv[1], sys.argv[2]
m = json.load(open(p))
m += [
    {"MetricName": "tma_frontend_bound", "MetricGroup": "TopdownL1;tma_L1_group",
     "MetricExpr": "CPU_CLK_UNHALTED.THREAD / (4 * CPU_CLK_UNHALTED.THREAD)",
     "BriefDescription": "the metric"},
    {"MetricName": "tma_fetch_latency", "MetricGroup": "tma_frontend_bound_group",
     "MetricExpr": "INST_RETIRED.ANY / (4 * CPU_CLK_UNHALTED.THREAD)",
     "BriefDescription": "a metric of the group of a longer name"},
    {"MetricName": long, "MetricGroup": "Exotic",
     "MetricExpr": "INST_RETIRED.ANY / CPU_CLK_UNHALTED.THREAD",
     "BriefDescription": "a long name"},
]
json.dump(m, open(p, "w"))
PY
# metrics_of ARGS...: the metric names of the first record's first row, sorted, comma-joined
metrics_of() {
	run_cmd --no-rc --sysfs-root "$SKL" --perf-events "$LIB" --backend sim -b -n 1 -i 100 -f json "$@"
	python3 -c 'import json,sys
try: print(",".join(sorted(json.loads(open(sys.argv[1]).readline())["cpus"][0]["metrics"])))
except Exception: print("")' "$T_TMP/out"
}
got=$(metrics_of -M tma_frontend_bound)
check "-M tma_frontend_bound runs the metric, not tma_frontend_bound_group ($got; $(head -c 160 "$T_TMP/err"))" \
	[ "$got" = "tma_frontend_bound" ]
got=$(metrics_of -M TMA_Frontend_Bound)
check "-M in another case finds it ($got)" [ "$got" = "tma_frontend_bound" ]
got=$(metrics_of -M tma_frontend_bound_group)
check "-M tma_frontend_bound_group runs the group ($got)" [ "$got" = "tma_fetch_latency" ]
got=$(metrics_of -M ipc,CPI)
check "-M ipc,CPI: a list, any case ($got)" [ "$got" = "CPI,IPC" ]
got=$(metrics_of -M basic)
check "-M basic: a group in another case ($got)" \
	[ "$got" = "Busy,CPI,IPC,Offcore_PKI,Stall_Pct" ]
got=$(metrics_of -M "$LONG")
check "-M of a name over 43 characters runs it ($got; $(head -c 160 "$T_TMP/err"))" [ "$got" = "$LONG" ]
for bad in Front tma_frontend Bas "IPC,Nope"; do
	metrics_of -M "$bad" >/dev/null
	check "-M $bad (not a whole name) is refused (rc $RC: $(head -c 120 "$T_TMP/err"))" \
		bash -c "[ $RC -eq 2 ] && grep -q 'no metric or metric group' '$T_TMP/err'"
done

# perf's own Skylake files (the kernel's tree, extracted into the build once)
kernel_pmu_events "the kernel's Skylake metrics"
REAL=$ARCH
if [ -d "$REAL/x86/skylake" ]; then
	run_cmd --no-rc --sysfs-root "$SKL" --perf-events "$REAL" --backend sim -b -n 1 -i 100 -f json -M tma_frontend_bound
	got=$(python3 -c 'import json,sys; print(",".join(sorted(json.loads(open(sys.argv[1]).readline())["cpus"][0]["metrics"])))' "$T_TMP/out" 2>/dev/null)
	check "real Skylake: -M tma_frontend_bound shows the metric ($got)" \
		bash -c "case ',$got,' in *,tma_frontend_bound,*) exit 0 ;; *) exit 1 ;; esac"
else
	skip "the kernel's pmu-events tree has no x86/skylake"
fi
t_done

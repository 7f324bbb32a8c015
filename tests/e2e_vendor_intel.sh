#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_vendor_intel.sh: --list-modes on a sysfs tree of each Intel family against Intel's event
# list for that CPU: the model picked the way perf does (mapfile.csv of linux 6.1's
# tools/perf/pmu-events/arch/x86), every hardware event of every mode --list-modes calls
# available (as --explain encodes it) must be an event of that list; the kernel's PERF_METRICS
# pseudo-events (topdown-*, not in the lists) against arch/x86/events/intel/core.c.
source "$(dirname "$0")/lib.sh"
S=$T_SRC/tests/sysfs

kernel_pmu_events "Intel's event lists"

# tree and the family pmutop must pick there (from the CPU model)
TREES="x86-skylake:skl x86-skylake-smt:skl_smt x86-skylake-sp:skx_smt x86-haswell-ep:hsw_smt
x86-offline:hsw x86-icelake:icl x86-icelake-sp:icx x86-sapphire:spr silvermont:slm
x86-goldmont:glm x86-tremont:tmt x86-gracemont:grt"

for t in $TREES; do
	tree=${t%%:*} fam=${t#*:}
	LIBPFM_ENCODE_INACTIVE=1 run_cmd --list-modes --sysfs-root "$S/$tree"
	check "$tree: --list-modes runs" [ "$RC" -eq 0 ]
	check "$tree: family $fam" grep -q "^# family: $fam " "$T_TMP/out"
	cp "$T_TMP/out" "$T_TMP/modes"
	: >"$T_TMP/explain"
	for m in $(awk '$2 == "available" && $7 == "built-in" { print $1 }' "$T_TMP/modes"); do
		LIBPFM_ENCODE_INACTIVE=1 run_cmd --explain "$m" --sysfs-root "$S/$tree"
		sed "s/^/$m /" "$T_TMP/out" >>"$T_TMP/explain"
	done
	python3 - "$ARCH/x86" "$S/$tree" "$T_TMP/explain" >"$T_TMP/result" <<'EOF'
import glob, json, os, re, sys

arch, tree, explain = sys.argv[1:4]
info = {}
for line in open(os.path.join(tree, "proc/cpuinfo")):
    k, _, v = line.partition(":")
    info.setdefault(k.strip(), v.strip())
cpuid = "%s-%s-%X-%s" % (info["vendor_id"], info["cpu family"], int(info["model"]), info["stepping"])
model = None
for line in open(os.path.join(arch, "mapfile.csv")):
    f = line.strip().split(",")
    if len(f) >= 4 and f[3] == "core" and re.match("^(" + f[0] + ")", cpuid):
        model = f[2]
        break
print("model %s %s" % (cpuid, model))
if model is None:
    sys.exit(0)

def num(v):
    return int(v, 0) if isinstance(v, str) and v.strip() else (v or 0)

events, offcore_bits = [], set()
for path in glob.glob(os.path.join(arch, model, "*.json")):
    if os.path.basename(path).startswith("uncore"):
        continue
    for e in json.load(open(path)):
        if "EventName" not in e or e.get("Unit", "cpu") not in ("cpu", "cpu_atom", "cpu_core"):
            continue
        codes = [num(c) for c in str(e.get("EventCode", "0")).split(",")]
        msr = num(e.get("MSRValue", "0"))
        if msr:
            req = msr & 0xffff
            if req and not req & (req - 1):
                offcore_bits.add((codes[0], req))
            continue
        for c in codes:
            events.append((c, num(e.get("UMask", "0")), num(e.get("CounterMask", "0")),
                           num(e.get("EdgeDetect", "0")), num(e.get("AnyThread", "0")),
                           num(e.get("Invert", "0")), e["EventName"]))

# the kernel's PERF_METRICS pseudo-events (arch/x86/events/intel/core.c, linux 6.1)
kernel = {0x80: "topdown-retiring", 0x81: "topdown-bad-spec", 0x82: "topdown-fe-bound",
          0x83: "topdown-be-bound", 0x84: "topdown-heavy-ops", 0x85: "topdown-br-mispredict",
          0x86: "topdown-fetch-lat", 0x87: "topdown-mem-bound"}
checked = bad = 0
for line in open(explain):
    tok = line.split()
    at = [i for i, t in enumerate(tok) if t.startswith("type=")]
    if not at or at[0] < 3 or len(tok) < at[0] + 3:
        continue
    i = at[0]
    mode, alias, spec = tok[0], tok[1], tok[i - 1]
    typ, config, config1 = tok[i][5:], tok[i + 1][7:], tok[i + 2][8:]
    if typ != "4":
        continue  # perf generic and software events: the kernel's, not a model event
    c, c1 = int(config, 16), int(config1, 16)
    code, umask, cmask = c & 0xff, (c >> 8) & 0xff, (c >> 24) & 0xff
    edge, anyt, inv = (c >> 18) & 1, (c >> 21) & 1, (c >> 23) & 1
    checked += 1
    if c1:
        ok = code in {k & 0xff for k, b in offcore_bits} and (c1 & 0xffff) in {b for k, b in offcore_bits}
        what = "offcore request %#x" % (c1 & 0xffff)
    elif code == 0 and umask in kernel:
        ok, what = True, kernel[umask]
    else:
        key = (code, umask, cmask, edge, anyt, inv)
        if code == 0xc0 and umask == 0:
            key = (0, 1, cmask, edge, anyt, inv)
        if code == 0x3c and umask == 0 and not cmask and not edge and not inv:
            key = (0, 2, 0, 0, anyt, 0)
        hit = [e[6] for e in events if e[:6] == key]
        mods = any(x in spec for x in (":c=", ":e=", ":i=", ":t="))
        if not hit and mods:
            hit = [e[6] for e in events if e[:2] == key[:2]]
        ok, what = bool(hit), hit[0] if hit else "event %#x umask %#x cmask %d edge %d any %d inv %d" % key
    print("%s %s %s %s %s" % ("ok" if ok else "BAD", mode, alias, spec, what))
    bad += not ok
print("checked %d bad %d" % (checked, bad))
EOF
	read -r _ cpuid model <"$T_TMP/result"
	check "$tree: the list for $cpuid is found ($model)" [ "$model" != None ]
	while read -r st mode alias spec what; do
		[ "$st" = BAD ] && fail "$tree ($model): available mode $mode: $alias = $spec: $what is not in Intel's list"
	done < <(grep -E '^(ok|BAD) ' "$T_TMP/result")
	read -r _ n _ nbad < <(tail -1 "$T_TMP/result")
	echo "$tree ($fam, $model): $n events of the available modes checked, $nbad not in Intel's list"
	check "$tree: events were checked" [ "${n:-0}" -gt 0 ]
	check "$tree: every event of the available modes is in Intel's list" [ "${nbad:-1}" -eq 0 ]
done

# Tremont's list has no FETCH_STALL and a bad-speculation umask of 0x06: what pmutop says there
LIBPFM_ENCODE_INACTIVE=1 run_cmd --list-modes --sysfs-root "$S/x86-tremont"
check "tremont: topdown available" grep -Eq '^topdown +available' "$T_TMP/out"
check "tremont: ifetch labelled as MEM_BOUND_STALLS.IFETCH" grep -Eq '^ifetch +available .*MEM_BOUND_STALLS.IFETCH' "$T_TMP/out"
t_done

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# rows_check.py: checks rows summed by a unit (--per-core, --per-socket, ...) against the per-CPU
# rows of the same run, with the CPU groups read straight from a sysfs tree and the metrics
# recomputed here from the sums.
# Usage: rows_check.py sums SYSFS_ROOT UNIT CPU_JSON UNIT_JSON
#        rows_check.py perf PERF_CSV PMUTOP_JSON   (labels and CPUs per row against perf stat)
import json
import os
import sys


def read(root, cpu, path):
    try:
        with open(os.path.join(root, "sys/devices/system/cpu/cpu%d" % cpu, path)) as f:
            return f.read().strip()
    except OSError:
        return None


def first_cpu(text):
    return int(text.split(",")[0].split("-")[0])


def label(root, unit, cpu):
    """perf stat's aggregation label of @cpu (tools/perf/util/stat-display.c), from sysfs."""
    t = lambda f: read(root, cpu, "topology/" + f)
    s, d, core = t("physical_package_id"), t("die_id") or "0", t("core_id")
    if s is None:
        return "CPU%d" % cpu
    if unit == "core":
        return "S%s-D%s-C%s" % (s, d, core)
    if unit == "die":
        return "S%s-D%s" % (s, d)
    if unit == "socket":
        return "S%s" % s
    if unit == "cluster":
        return "S%s-D%s-CLS%s" % (s, d, t("cluster_id") or "0")
    if unit == "cache":  # the last-level data or unified cache
        best = None
        for i in range(16):
            lvl = read(root, cpu, "cache/index%d/level" % i)
            typ = read(root, cpu, "cache/index%d/type" % i) or ""
            if lvl and typ != "Instruction" and (best is None or int(lvl) > best[0]):
                best = (int(lvl), i)
        cid = read(root, cpu, "cache/index%d/id" % best[1])
        if cid is None:
            cid = str(first_cpu(read(root, cpu, "cache/index%d/shared_cpu_list" % best[1])))
        return "S%s-D%s-L%d-ID%s" % (s, d, best[0], cid)
    raise SystemExit("unit " + unit)


def records(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def close(a, b, rel=2e-5):
    if a is None or b is None:
        return a is b
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def sums(root, unit, cpu_json, unit_json):
    per_cpu, per_unit = records(cpu_json), records(unit_json)
    bad = []
    if len(per_cpu) != len(per_unit) or not per_cpu:
        raise SystemExit("record counts differ: %d vs %d" % (len(per_cpu), len(per_unit)))
    ratio_matters = False
    for tick, (a, b) in enumerate(zip(per_cpu, per_unit)):
        if b.get("rows") != unit:
            bad.append("tick %d: rows %r, not %r" % (tick, b.get("rows"), unit))
        groups = {}
        for row in a["cpus"]:
            groups.setdefault(label(root, unit, row["cpu"]), []).append(row)
        got = {row[unit]: row for row in b["cpus"]}
        if sorted(got) != sorted(groups):
            bad.append("tick %d: rows %s, expected %s" % (tick, sorted(got), sorted(groups)))
            continue
        interval = a["interval_ms"] / 1000.0
        for key, members in groups.items():
            row = got[key]
            if row["ncpus"] != len(members):
                bad.append("%s: ncpus %d, expected %d" % (key, row["ncpus"], len(members)))
            ev = {}
            for name in members[0]["events"]:
                ev[name] = sum(m["events"][name]["value"] for m in members)
                if row["events"][name]["value"] != ev[name]:
                    bad.append("tick %d %s %s: %r != sum %r" % (
                        tick, key, name, row["events"][name]["value"], ev[name]))
            # the formulas of the cpi mode over the sums (modes/cpi.mode, not pmutop's values)
            want = {"cpi": ev["cycles"] / ev["instructions"],
                    "ipc": ev["instructions"] / ev["cycles"],
                    "ghz": ev["cycles"] / len(members) / interval / 1e9}
            for m, w in want.items():
                if not close(row["metrics"][m], w):
                    bad.append("tick %d %s %s: %r, formula(sum) %r" % (
                        tick, key, m, row["metrics"][m], w))
            mean = sum(x["metrics"]["cpi"] for x in members) / len(members)
            ratio_matters |= not close(mean, want["cpi"], 1e-3)
        if a["total"] != b["total"]:
            bad.append("tick %d: the all row differs" % tick)
    if not ratio_matters and unit != "cpu":
        bad.append("no group where the mean of the CPUs' cpi differs from cpi of the sums: "
                   "the check cannot tell them apart")
    for line in bad[:20]:
        print(line)
    return 1 if bad else 0


def perf(perf_csv, pmutop_json):
    """perf stat -x, --per-X lines are LABEL,NCPUS,value,...: the same labels and CPU counts."""
    want = {}
    for line in open(perf_csv):
        f = line.strip().split(",")
        if len(f) > 4 and f[1].isdigit():
            want[f[0]] = int(f[1])
    rec = records(pmutop_json)[-1]
    unit = rec["rows"]
    got = {row[unit]: row["ncpus"] for row in rec["cpus"]}
    if not want or got != want:
        print("perf stat rows %s, pmutop rows %s" % (want, got))
        return 1
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "sums":
        sys.exit(sums(*sys.argv[2:6]))
    sys.exit(perf(*sys.argv[2:4]))

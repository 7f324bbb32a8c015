#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# perfstat_units_check.py: compares pmutop's batch output of an imported perf stat --per-core,
# --per-socket, ... capture with the capture itself, parsed here on its own from perf's layout
# (tools/perf/util/stat-display.c): per interval and unit, every count, its running share and
# state, the tick's time and length, the unit's CPU count, and the all row's sums.
#
#   perfstat_units_check.py PERF_FILE PMUTOP_CSV PMUTOP_JSON
#
# Exit 0 when everything matches (one summary line), 1 with the differences.
import json
import re
import sys

UNIT = re.compile(r"^(S\d+-D\d+-C\d+|S\d+-D\d+-L\d+-ID\d+|S\d+-D\d+-CLS\d+|S\d+-D\d+|S\d+|N\d+)$")
KEYS = ("core", "cache", "cluster", "die", "socket", "node")


def noun(label):
    if re.match(r"^S\d+-D\d+-C\d+$", label):
        return "core"
    if "-L" in label:
        return "cache"
    if "-CLS" in label:
        return "cluster"
    if "-D" in label:
        return "die"
    return "socket" if label.startswith("S") else "node"


def perf_lines(path):
    """(time or None, unit, cpus, value text, unit text, event, run, pct) per counter line."""
    out = []
    for raw in open(path, encoding="utf-8"):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("{"):
            o = json.loads(line)
            key = [k for k in KEYS if k in o]
            assert len(key) == 1, line
            cpus = o.get("aggregate-number", o.get("counters"))
            t = o.get("interval")
            out.append((None if t is None else float(t), o[key[0]], int(cpus),
                        o["counter-value"], o.get("unit", ""), o["event"],
                        float(o["event-runtime"]), float(o["pcnt-running"])))
            continue
        sep = next(s for s in (",", ";", "\t", "|", ":") if line.count(s) >= 5)
        f = [x.strip() for x in line.split(sep)]
        t = None
        if not UNIT.match(f[0]):
            t = float(f.pop(0))
        assert UNIT.match(f[0]), line
        unit, cpus, value, vunit, event = f[0], int(f[1]), f[2], f[3], f[4]
        rest = f[5:]
        if rest and rest[0].endswith("%"):  # -r N: the variance
            rest = rest[1:]
        out.append((t, unit, cpus, value, vunit, event, float(rest[0]), float(rest[1])))
    return out


def name_of(event):
    return re.sub(r"[^0-9A-Za-z]+", "_", event).strip("_")


def main():
    perf_file, csv_file, json_file = sys.argv[1:4]
    lines = perf_lines(perf_file)
    errors = []
    untimed = lines[0][0] is None
    times = sorted({ln[0] for ln in lines}) if not untimed else []
    if untimed:  # the elapsed time: the longest enabled time of one CPU of a unit
        times = [max(ln[6] * 100 / ln[7] / ln[2] for ln in lines if ln[7] > 0) / 1e9]
    expect = {}  # (interval index, unit, name) -> (value or None, running, state)
    units = {}
    sums = {}
    for ln in lines:
        t, unit, cpus, value, vunit, event, run, pct = ln
        iv = 0 if untimed else times.index(t)
        units[unit] = max(units.get(unit, 0), cpus)
        name = name_of(event)
        if value == "<not supported>":
            expect[(iv, unit, name)] = (None, 0.0, "not_supported")
            continue
        if value == "<not counted>":
            expect[(iv, unit, name)] = (None, 0.0, "not_counted")
            sums.setdefault((iv, name), [0, 0, 0])[2] += 1
            continue
        v = float(value) * (1e6 if vunit == "msec" else 1)
        expect[(iv, unit, name)] = (round(v), min(pct, 100) / 100,
                                    "ok" if pct >= 100 else "scaled")
        s = sums.setdefault((iv, name), [0, 0, 0])
        s[0] += round(v)
        s[1] += 1
    # pmutop's CSV: time_s,interval_ms,<unit>,kind,name,value,running,state,...
    rows = [r.rstrip("\n").split(",") for r in open(csv_file, encoding="utf-8")]
    head, rows = rows[0], rows[1:]
    kinds = {noun(u) for u in units}
    if len(kinds) != 1 or head[2] != kinds.pop():
        errors.append(f"row column {head[2]!r} for units {sorted(units)}")
    seen = set()
    got_times = []
    for r in rows:
        if r[3] != "event":
            continue
        t, ms = float(r[0]), float(r[1])
        if not got_times or abs(got_times[-1] - t) > 1e-7:
            got_times.append(t)
        iv = len(got_times) - 1
        if r[2] == "all":
            s = sums.get((iv, r[4]))
            if s and s[1] and r[5] != str(s[0]):
                errors.append(f"interval {iv + 1} all {r[4]}: {r[5]}, units sum to {s[0]}")
            continue
        key = (iv, r[2], r[4])
        seen.add(key)
        if key not in expect:
            errors.append(f"interval {iv + 1} {r[2]} {r[4]}: not in perf's file")
            continue
        v, running, state = expect[key]
        if r[7] != state:
            errors.append(f"interval {iv + 1} {r[2]} {r[4]}: state {r[7]}, perf: {state}")
        if v is not None and r[5] != str(v):
            errors.append(f"interval {iv + 1} {r[2]} {r[4]}: {r[5]}, perf printed {v}")
        if v is not None and abs(float(r[6]) - running) > 0.01:
            errors.append(f"interval {iv + 1} {r[2]} {r[4]}: running {r[6]}, perf {running}")
    missing = sorted(set(expect) - seen)
    if missing:
        errors.append(f"{len(missing)} counts of perf's file not in the output, e.g. {missing[0]}")
    if len(got_times) != len(times):
        errors.append(f"{len(got_times)} ticks, perf's file has {len(times)} intervals")
    for i, (g, w) in enumerate(zip(got_times, times)):
        if abs(g - w) > 2e-6:
            errors.append(f"tick {i + 1} at {g} s, perf's interval ends at {w:.6f} s")
    # pmutop's JSON: each unit row once per tick, with perf's CPU count
    nticks = 0
    for raw in open(json_file, encoding="utf-8"):
        o = json.loads(raw)
        if "cpus" not in o:
            continue
        nticks += 1
        labels = {}
        for row in o["cpus"]:
            key = [k for k in KEYS if k in row]
            if len(key) != 1:
                errors.append(f"JSON tick {nticks}: a row without a unit: {sorted(row)[:4]}")
                continue
            labels[row[key[0]]] = row.get("ncpus")
        if labels != units:
            errors.append(f"JSON tick {nticks}: units and CPUs {labels}, perf: {units}")
    if nticks != len(times):
        errors.append(f"JSON: {nticks} ticks, perf's file has {len(times)} intervals")
    if errors:
        print("\n".join(errors[:20]))
        return 1
    print(f"{len(units)} units x {len(times)} intervals, {len(expect)} counts as perf printed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# hybrid_check.py: a perf: mode of one core type of a hybrid part against perf's own JSON.
# perf's metrics (adl-metrics.json) are keyed by (Unit, MetricName) and its events by (Unit,
# EventName); this script evaluates a metric exactly as that JSON writes it (references to other
# metrics resolved within the Unit) on the counts pmutop printed, and compares with pmutop's
# value. It also checks the events pmutop opened are that Unit's encodings (Intel's
# PERFEVTSEL layout: event 0-7, umask 8-15, edge 18, any 21, inv 23, cmask 24-31), that every
# row is a CPU of the core type's PMU (its sysfs cpus file), and that no JSON object repeats a key.
# Values are compared to 5e-6 relative: batch JSON prints 6 significant digits.
# usage: hybrid_check.py MODELDIR UNIT GROUP CPUS-FILE EXPLAIN-OUT BATCH-JSON
import glob
import json
import math
import re
import sys

model, unit, group, cpus_file, explain, batch = sys.argv[1:7]
fails = []


def fail(msg):
    fails.append(msg)


def cpulist(text):
    out = []
    for part in text.strip().split(","):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out


want_cpus = cpulist(open(cpus_file).read())

metrics = {}
for m in json.load(open(f"{model}/adl-metrics.json")):
    metrics[(m.get("Unit"), m["MetricName"])] = m
events = {}
for f in glob.glob(f"{model}/*.json"):
    if f.endswith("metrics.json"):
        continue
    for e in json.load(open(f)):
        events[(e.get("Unit"), e["EventName"])] = e


def metric(name):
    return metrics.get((unit, name)) or metrics.get((None, name))


def spec(name):
    """The encoding of event @name of this Unit, as perf's JSON describes it."""
    if "-" in name:  # the kernel's sysfs events of the core PMU (topdown-fe-bound, slots)
        return f"{unit}/{name}/"
    e = events.get((unit, name))
    if e is None:
        return None
    num = lambda k: int(str(e.get(k, "0")).split(",")[0], 0)
    code, umask = num("EventCode"), num("UMask")
    cmask, edge, inv, anyt = num("CounterMask"), num("EdgeDetect"), num("Invert"), num("AnyThread")
    if code == 0 and umask in (1, 2, 3) and not (cmask or edge or inv or anyt):
        return {1: "perf::INSTRUCTIONS", 2: "perf::CYCLES", 3: "perf::REF-CYCLES"}[umask]
    return "r%x" % (code | umask << 8 | edge << 18 | anyt << 21 | inv << 23 | cmask << 24)


TOKEN = re.compile(r"(?:[A-Za-z_#]|\\.)(?:[A-Za-z0-9_.]|\\.)*")
WORDS = {"if", "else", "min", "max", "d_ratio", "and", "or", "not"}


def evaluate(name, counts, used, depth=0):
    """perf's value of metric @name: a reference reads the other metric unscaled (perf applies
    ScaleUnit when it prints), the metric printed is scaled."""
    m = metric(name)
    if depth > 16:
        raise ValueError("nesting")
    expr = m["MetricExpr"]

    def sub(tok):
        t = tok.group(0)
        if t in WORDS:
            return t
        plain = t.replace("\\", "")
        if metric(plain):
            return "(%r)" % evaluate(plain, counts, used, depth + 1)[0]
        s = spec(plain)
        if s is None:
            raise KeyError(f"{plain}: no event of Unit {unit}")
        used.add(s)
        return "(%r)" % counts[s]

    py = TOKEN.sub(sub, expr)
    d_ratio = lambda a, b: 0 if b == 0 else a / b
    v = eval(py, {"__builtins__": {}}, {"min": min, "max": max, "d_ratio": d_ratio})
    su = m.get("ScaleUnit", "")
    scale = float(re.match(r"[0-9.e+-]*", su).group(0) or 1) if su else 1
    return v, v * scale


# --explain: alias -> spec, and the core types the events open on
alias_spec, opens_on = {}, set()
in_events = False
for line in open(explain):
    if line.startswith("  events for family"):
        in_events = True
        continue
    if line.startswith("  metrics:"):
        in_events = False
    if not in_events:
        continue
    on = re.search(r"on (\S+) \(CPUs ([0-9,-]+)\)", line)
    if on:
        opens_on.add((on.group(1), on.group(2)))
    elif line.startswith("  ") and not line.startswith("   "):
        parts = line.split()
        alias_spec[parts[0]] = parts[1]
if not alias_spec:
    fail("--explain lists no events")
if opens_on != {(unit, open(cpus_file).read().strip())}:
    fail(f"--explain: the events open on {sorted(opens_on)}, not on {unit} alone")

group_metrics = [
    n for (u, n), m in metrics.items()
    if u == unit and group in (m.get("MetricGroup") or "").split(";")
]


def no_dupes(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        fail("a JSON object repeats keys: %s" % sorted({k for k in keys if keys.count(k) > 1}))
    return dict(pairs)


lines = [l for l in open(batch) if l.strip()]
if not lines:
    fail("no batch JSON lines")
compared = 0
for n, line in enumerate(lines):
    rec = json.loads(line, object_pairs_hook=no_dupes)
    rows = [c["cpu"] for c in rec["cpus"] if isinstance(c.get("cpu"), int)]
    if sorted(rows) != want_cpus:
        fail(f"line {n + 1}: rows are CPUs {rows}, the {unit} PMU's CPUs are {want_cpus}")
    for c in rec["cpus"]:
        if not isinstance(c.get("cpu"), int):
            continue
        counts = {alias_spec[a]: v["value"] for a, v in c["events"].items() if a in alias_spec}
        for name in group_metrics:
            used = set()
            try:
                theirs = evaluate(name, counts, used)[1]
            except ZeroDivisionError:
                continue
            except KeyError as e:
                fail(f"CPU {c['cpu']}: {name}: {e}")
                continue
            ours = c["metrics"].get(name)
            if ours is None or not math.isclose(ours, theirs, rel_tol=5e-6, abs_tol=1e-9):
                fail(f"CPU {c['cpu']}: {unit} {name} = {ours}, perf's formula gives {theirs}")
            compared += 1
            if n == 0 and c["cpu"] == want_cpus[0]:
                print(f"  CPU {c['cpu']} {unit} {name:24s} pmutop {ours:12.6g}  perf {theirs:12.6g}")
if not group_metrics or compared == 0:
    fail(f"nothing compared ({unit} {group}: {len(group_metrics)} metrics)")
for f in fails[:20]:
    print("FAIL:", f)
sys.exit(1 if fails else 0)

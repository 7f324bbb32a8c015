#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""openmetrics_check.py: checks pmutop's OpenMetrics text against its JSON records.

  openmetrics_check.py parse FILE           every exposition in FILE parses as OpenMetrics 1.0
  openmetrics_check.py match SCRAPE JSONL   the scrape is one of the frames in JSONL: its
                                            counters are the sums of the records up to that
                                            frame, its gauges that frame's metrics
  openmetrics_check.py prom QUERY.json JSONL a Prometheus query result for pmutop_metric_cpi
                                            holds values of frames in JSONL
Prints the first difference and exits 1 when a check fails.
"""
import glob
import json
import math
import os
import re
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families


def expositions(text):
    parts = text.split("# EOF\n")
    if parts[-1].strip():
        sys.exit("text after the last # EOF: %r" % parts[-1][:80])
    return [p + "# EOF\n" for p in parts[:-1]]


def parse(text):
    """{(family, sample name, labels tuple): value} of one exposition (strict parser)."""
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(fam.name, s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def mode_units():
    """{metric name: unit} from the mode files (modes/*.mode) beside this script."""
    units = {}
    here = os.path.dirname(os.path.abspath(__file__))
    for path in glob.glob(os.path.join(here, "..", "modes", "*.mode")):
        metric = None
        for line in open(path):
            m = re.match(r"\[metric (\S+)\]", line)
            if m:
                metric = m.group(1)
            elif line.startswith("[") :
                metric = None
            m = re.match(r"unit\s*=\s*(\S+)", line)
            if metric and m:
                units[metric] = m.group(1)
    return units


# Prometheus's conventions (https://prometheus.io/docs/practices/naming/): base units, rates per
# second, no abbreviated unit in a name: (unit, name ending that abbreviates it, family ending,
# name when nothing is left, factor to the base unit)
CONVENTIONS = [
    ("%", "pct", "percent", "share", 1), ("%", "percent", "percent", "share", 1),
    ("s", "s", "seconds", "time", 1), ("ms", "ms", "seconds", "time", 1e-3),
    ("us", "us", "seconds", "time", 1e-6), ("ns", "ns", "seconds", "time", 1e-9),
    ("GHz", "ghz", "hertz", "clock", 1e9), ("MHz", "mhz", "hertz", "clock", 1e6),
    ("B", "b", "bytes", "size", 1), ("/s", "per_s", "per_second", "events", 1),
    ("k/s", "per_s", "per_second", "kevents", 1), ("k/s", "ks", "per_second", "events", 1e3),
    ("M/s", "per_s", "per_second", "mevents", 1), ("M/s", "ms", "per_second", "events", 1e6),
]


def family(metric, unit):
    """(family without pmutop_metric_, factor) of a metric in a unit."""
    rows = [r for r in CONVENTIONS if r[0] == unit]
    for u, abbrev, suffix, bare, scale in rows:
        if metric == abbrev:
            return bare + "_" + suffix, scale
        if metric.endswith("_" + abbrev):
            return metric[: -len(abbrev) - 1] + "_" + suffix, scale
    if rows:
        return metric + "_" + rows[0][2], rows[0][4]
    return metric, 1


def close(a, b, rel=1e-5):
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b))


def frames(jsonl):
    return [json.loads(l) for l in open(jsonl) if l.strip()]


def expected(records, k):
    """What the exposition of frame k (0-based) must hold: counters summed up to k, gauges of k."""
    counters, gauges = {}, {}
    for rec in records[: k + 1]:
        for row in rec["cpus"]:
            for ev, c in row["events"].items():
                key = (str(row["cpu"]), ev)
                if c["state"] in ("ok", "scaled"):
                    counters[key] = counters.get(key, 0) + c["value"]
    rec = records[k]
    units = mode_units()
    for row in rec["cpus"]:
        for m, v in row["metrics"].items():
            fam, scale = family(m, units.get(m, ""))
            gauges[(str(row["cpu"]), fam)] = None if v is None else v * scale
    for m, v in rec["total"]["metrics"].items():
        fam, scale = family(m, units.get(m, ""))
        gauges[("all", fam)] = None if v is None else v * scale
    return counters, gauges


def compare(samples, records, k):
    counters, gauges = expected(records, k)
    got_c, got_g = {}, {}
    for (fam, name, labels), v in samples.items():
        lab = dict(labels)
        if name == "pmutop_event_total":
            got_c[(lab["cpu"], lab["event"])] = v
        elif name == "pmutop_all_cpus_event_total":
            got_c[("all", lab["event"])] = v
        elif fam.startswith("pmutop_metric_"):
            got_g[(lab["cpu"], fam[len("pmutop_metric_"):])] = v
        elif fam.startswith("pmutop_all_cpus_metric_"):
            if "cpu" in lab:
                return "frame %d: %s has a cpu label" % (k + 1, fam)
            got_g[("all", fam[len("pmutop_all_cpus_metric_"):])] = v
    for key, v in counters.items():
        if key not in got_c or not close(got_c[key], v, 1e-9):
            return "frame %d: counter %s = %s, want %s" % (k + 1, key, got_c.get(key), v)
    for key, v in gauges.items():
        if v is None:
            if key in got_g:
                return "frame %d: gauge %s is n/a but exposed as %s" % (k + 1, key, got_g[key])
        elif key not in got_g or not close(got_g[key], v):
            return "frame %d: gauge %s = %s, want %s" % (k + 1, key, got_g.get(key), v)
    return None


def main():
    cmd = sys.argv[1]
    if cmd == "parse":
        n = 0
        for e in expositions(open(sys.argv[2]).read()):
            parse(e)
            n += 1
        print("%d expositions parse" % n)
        return 0 if n else 1
    if cmd == "match":
        samples = parse(open(sys.argv[2]).read())
        records = frames(sys.argv[3])
        why = []
        for k in range(len(records)):
            w = compare(samples, records, k)
            if w is None:
                print("the scrape is frame %d" % (k + 1))
                return 0
            why.append(w)
        print("the scrape matches no frame; closest: %s" % (why[-1] if why else "no frames"))
        return 1
    if cmd == "prom":
        result = json.load(open(sys.argv[2]))["data"]["result"]
        records = frames(sys.argv[3])
        if not result:
            print("no pmutop_metric_cpi series in Prometheus")
            return 1
        for series in result:
            cpu = series["metric"].get("cpu", "all")  # pmutop_all_cpus_metric_cpi: no cpu
            v = float(series["value"][1])
            want = [
                (r["total"]["metrics"]["cpi"] if cpu == "all" else
                 next(row["metrics"]["cpi"] for row in r["cpus"] if str(row["cpu"]) == cpu))
                for r in records
            ]
            if not any(w is not None and close(v, w) for w in want):
                print("Prometheus has cpi{cpu=%s} = %s, which no frame printed" % (cpu, v))
                return 1
        print("%d series match printed frames" % len(result))
        return 0
    sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    sys.exit(main())

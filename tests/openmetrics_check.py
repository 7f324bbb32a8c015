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
import json
import math
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
    for row in rec["cpus"]:
        for m, v in row["metrics"].items():
            gauges[(str(row["cpu"]), m)] = v
    for m, v in rec["total"]["metrics"].items():
        gauges[("all", m)] = v
    return counters, gauges


def compare(samples, records, k):
    counters, gauges = expected(records, k)
    got_c, got_g = {}, {}
    for (fam, name, labels), v in samples.items():
        lab = dict(labels)
        if name == "pmutop_event_total":
            got_c[(lab["cpu"], lab["event"])] = v
        elif fam.startswith("pmutop_metric_"):
            metric = fam[len("pmutop_metric_"):]
            for unit in ("_percent", "_gigahertz", "_seconds"):
                if metric.endswith(unit) and metric[: -len(unit)] in records[k]["total"]["metrics"]:
                    metric = metric[: -len(unit)]
            got_g[(lab["cpu"], metric)] = v
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
            cpu = series["metric"]["cpu"]
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

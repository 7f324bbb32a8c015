#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# errbar_check.py: how often each value's 95 % interval (JSON err) covers the simulated truth.
# Reads pmutop -f json lines of a --sim-truth run on stdin; prints the coverage of metrics and
# counts, and with --expect LO:HI exits 1 when the metrics' coverage is outside [LO, HI] or
# --zero when any interval is not 0.
import json
import sys


def main():
    args = sys.argv[1:]
    warm, lo, hi, zero, label = 20, None, None, False, ""
    while args:
        a = args.pop(0)
        if a == "--warm":
            warm = int(args.pop(0))
        elif a == "--expect":
            lo, hi = (float(x) for x in args.pop(0).split(":"))
        elif a == "--zero":
            zero = True
        elif a == "--label":
            label = args.pop(0)
    n = {"metric": 0, "count": 0}
    cov = {"metric": 0, "count": 0}
    nonzero = 0
    recs = 0
    for line in sys.stdin:
        line = line.strip()
        if not line.startswith("{"):
            continue
        rec = json.loads(line)
        recs += 1
        if recs <= warm:
            continue
        rows = [(r, 1) for r in rec["cpus"]] + [(rec["total"], max(1, len(rec["cpus"])))]
        for row, whole in rows:
            for name, ev in row["events"].items():
                if ev.get("err") is None or ev.get("truth") is None or ev["value"] is None:
                    continue
                n["count"] += 1
                nonzero += ev["err"] != 0
                # a count is whole, the truth is not: one count of rounding per CPU
                cov["count"] += abs(ev["value"] - ev["truth"]) <= ev["err"] + whole
            errs, truth = row.get("metrics_err", {}), row.get("metrics_truth", {})
            for name, v in row["metrics"].items():
                e, t = errs.get(name), truth.get(name)
                if v is None or e is None or t is None:
                    continue
                n["metric"] += 1
                nonzero += e != 0
                # the JSON keeps 6 significant digits: allow that rounding
                cov["metric"] += abs(v - t) <= e + 1e-5 * abs(t)
    out = {"label": label, "records": recs}
    for k in n:
        out[k + "_values"] = n[k]
        out[k + "_coverage"] = round(cov[k] / n[k], 4) if n[k] else None
    out["nonzero_intervals"] = nonzero
    print(json.dumps(out))
    if zero and (nonzero or not n["metric"]):
        sys.exit(1)
    if lo is not None:
        c = out["metric_coverage"]
        if c is None or not lo <= c <= hi:
            sys.exit(1)


main()

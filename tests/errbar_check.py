#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# errbar_check.py: how often each value's 95 % interval (JSON err) covers the simulated truth.
# Reads pmutop -f json lines of a --sim-truth run on stdin; prints the coverage of metrics and
# counts, and with --expect LO:HI exits 1 when the metrics' coverage or the counts' (where some
# count has an interval) is outside [LO, HI] or
# --zero when any interval is not 0. --per-metric adds each metric's coverage (metric_NAME), and
# --expect-metric LO:HI checks each of those. Values with an interval of 0 (counted whole) are not
# in the coverage: they must equal the truth, up to the counts' rounding, or it exits 1.
import json
import sys


def main():
    args = sys.argv[1:]
    warm, lo, hi, zero, label, per = 20, None, None, False, "", False
    mlo = mhi = None
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
        elif a == "--per-metric":
            per = True
        elif a == "--expect-metric":
            per = True
            mlo, mhi = (float(x) for x in args.pop(0).split(":"))
    n = {"metric": 0, "count": 0}
    cov = {"metric": 0, "count": 0}
    nonzero = 0
    recs = 0
    # values counted whole (interval 0) are not part of the coverage: they must equal the truth
    exact, exact_ok = 0, 0
    mn, mc = {}, {}
    for line in sys.stdin:
        line = line.strip()
        if not line.startswith("{"):
            continue
        rec = json.loads(line)
        recs += 1
        if recs <= warm:
            continue
        # a summed row (a core, a socket) rounds once per CPU
        rows = [(r, r.get("ncpus") or 1) for r in rec["cpus"]]
        rows.append((rec["total"], max(1, sum(w for _, w in rows))))
        for row, whole in rows:
            for name, ev in row["events"].items():
                if ev.get("err") is None or ev.get("truth") is None or ev["value"] is None:
                    continue
                # a count is whole, the truth is not: one count of rounding per CPU
                hit = abs(ev["value"] - ev["truth"]) <= ev["err"] + whole
                if ev["err"] == 0:
                    exact += 1
                    exact_ok += hit
                    continue
                n["count"] += 1
                nonzero += 1
                cov["count"] += hit
            errs, truth = row.get("metrics_err", {}), row.get("metrics_truth", {})
            # a metric of whole counts against fractional true ones: each input is off by
            # less than one count (per CPU), a relative error of at most sum 1/count
            vals = [abs(ev["value"]) for ev in row["events"].values() if ev["value"]]
            rounding = sum(whole / x for x in vals)
            for name, v in row["metrics"].items():
                e, t = errs.get(name), truth.get(name)
                if v is None or e is None or t is None:
                    continue
                # the JSON keeps 6 significant digits: allow that rounding
                hit = abs(v - t) <= e + 1e-5 * abs(t)
                if e == 0:
                    # exact but for the counts' rounding; a difference of counts near 0
                    # (heavy_ops) on the scale 1
                    hit = abs(v - t) <= (1e-5 + rounding) * max(abs(t), 1)
                    exact += 1
                    exact_ok += hit
                    continue
                n["metric"] += 1
                nonzero += 1
                cov["metric"] += hit
                mn[name] = mn.get(name, 0) + 1
                mc[name] = mc.get(name, 0) + hit
    out = {"label": label, "records": recs}
    for k in n:
        out[k + "_values"] = n[k]
        out[k + "_coverage"] = round(cov[k] / n[k], 4) if n[k] else None
    out["nonzero_intervals"] = nonzero
    out["exact_values"] = exact
    out["exact_equal_truth"] = exact_ok
    if per:
        for name in mn:
            out["metric_" + name] = round(mc[name] / mn[name], 4)
    print(json.dumps(out))
    if zero and (nonzero or not exact or exact_ok != exact):
        sys.exit(1)
    if exact_ok != exact:
        sys.exit(1)
    if lo is not None:
        c = out["metric_coverage"]
        if c is None or not lo <= c <= hi:
            sys.exit(1)
        c = out["count_coverage"]
        if c is not None and not lo <= c <= hi:
            sys.exit(1)
    if mlo is not None and (not mn or any(not mlo <= mc[k] / mn[k] <= mhi for k in mn)):
        sys.exit(1)


main()

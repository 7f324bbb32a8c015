#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# baseline_rows_check.py: a baseline comparison on summed rows, recomputed from the recordings'
# raw counts. Usage: baseline_rows_check.py NEW BASE OUTPUT UNIT SEQ [METRIC]
# NEW and BASE are recordings (cumulative counts per CPU or per thread row), OUTPUT pmutop's
# -R NEW --baseline BASE -f json with rows of UNIT (core, socket, task, cgroup). For each row of
# the record SEQ: the rows' counts summed per tick (cores and sockets by the header's topology,
# tasks and cgroups by its row_keys; a task of another run matched by its name), METRIC
# (ipc = instructions / cycles) per tick, the last 30 ticks of NEW against all of BASE by
# Welch's test with effective sizes n (1 - r) / (1 + r) (r the lag-1 autocorrelation pooled
# over both, taken in [0, 0.9]), the p-value by integrating Student's t density (Simpson).
# The rows' p-values adjusted together by Holm's step-down method (sorted, times m - j, a
# running maximum, at most 1) against pmutop's p_adj.
# Exit 1 unless every row's change, p and p_adj match pmutop's and at least one row was compared.
import json
import math
import sys

RECENT = 30


def groups(header, unit):
    """{row index in the file: group label}"""
    out = {}
    for i, cpu in enumerate(header["cpus"]):
        if unit in ("task", "cgroup"):
            out[i] = header["row_keys"][i]
        else:
            s, d, _cl, c = header["topology"][str(cpu)][:4]
            out[i] = "S%d-D%d-C%d" % (s, d, c) if unit == "core" else "S%d" % s
    return out


def per_tick(path, unit):
    """{label: [(cycles, instructions) per tick]}, deltas of the cumulative counts"""
    recs = [json.loads(line) for line in open(path)]
    header = recs[0]
    names = [e["name"] for e in recs[1]["events"]]
    ci, ii = names.index("cycles"), names.index("instructions")
    g = groups(header, unit)
    ticks = [r for r in recs if r.get("type") == "tick"]
    out = {}
    for prev, cur in zip(ticks, ticks[1:]):
        sums = {}
        pc = {row["cpu"]: row["c"] for row in prev["cpus"]}
        for i, row in enumerate(cur["cpus"]):
            lab = g[header["cpus"].index(row["cpu"])]
            c = sums.setdefault(lab, [0, 0])
            c[0] += row["c"][ci][0] - pc[row["cpu"]][ci][0]
            c[1] += row["c"][ii][0] - pc[row["cpu"]][ii][0]
        for lab, c in sums.items():
            out.setdefault(lab, []).append(c)
    return out


def lag1_parts(x):
    m = sum(x) / len(x)
    ss = sum((v - m) ** 2 for v in x)
    num = sum((x[i] - m) * (x[i - 1] - m) for i in range(1, len(x)))
    return (num, ss) if len(x) >= 4 else (0, 0)


def t_p(t, df):
    """two-sided p of Student's t: 1 - 2 * integral of the density from 0 to |t|"""
    t = abs(t)
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    n = 4000
    h = t / n
    f = [c * (1 + (k * h) ** 2 / df) ** (-(df + 1) / 2) for k in range(n + 1)]
    area = h / 3 * (f[0] + f[-1] + 4 * sum(f[1:-1:2]) + 2 * sum(f[2:-1:2]))
    return max(0.0, 1 - 2 * area)


def welch(now, ref):
    n1, s1 = lag1_parts(now)
    n2, s2 = lag1_parts(ref)
    r = min(0.9, max(0.0, (n1 + n2) / (s1 + s2))) if s1 + s2 > 0 else 0
    e1 = max(2, len(now) * (1 - r) / (1 + r))
    e2 = max(2, len(ref) * (1 - r) / (1 + r))
    m1, m2 = sum(now) / len(now), sum(ref) / len(ref)
    v1 = sum((v - m1) ** 2 for v in now) / (len(now) - 1)
    v2 = sum((v - m2) ** 2 for v in ref) / (len(ref) - 1)
    a, b = v1 / e1, v2 / e2
    df = (a + b) ** 2 / (a * a / (e1 - 1) + b * b / (e2 - 1))
    return (m1 - m2) / abs(m2) * 100, t_p((m1 - m2) / math.sqrt(a + b), df)


def holm(ps):
    """Holm's adjusted p-values of ps (a list), in its order."""
    out, run, m = [0.0] * len(ps), 0.0, len(ps)
    for j, k in enumerate(sorted(range(m), key=lambda k: ps[k])):
        run = max(run, min(1.0, (m - j) * ps[k]))
        out[k] = run
    return out


def name(label):
    return label.split("[")[0] if label.endswith("]") else label


def main():
    new, base, output, unit, seq = sys.argv[1:6]
    seq = int(seq)
    now_t, ref_t = per_tick(new, unit), per_tick(base, unit)
    rec = [json.loads(line) for line in open(output) if line.startswith("{")][seq - 1]
    compared, ok, family = 0, True, []
    for row in rec["cpus"]:
        lab = row[unit]
        b = (row.get("baseline") or {}).get("ipc")
        ref_lab = lab if lab in ref_t else next(
            (k for k in ref_t if name(k) == name(lab) and name(lab) != lab), None)
        if ref_lab is None:
            print("%s: no such row in the baseline; pmutop %s" % (lab, b))
            ok = ok and (b is None or b["p"] is None)
            continue
        now = [i / c for c, i in now_t[lab][seq - RECENT:seq]]
        ref = [i / c for c, i in ref_t[ref_lab]]
        change, p = welch(now, ref)
        good = (b is not None and abs(b["change"] - change) <= 1e-3 * max(1, abs(change))
                and abs(b["p"] - p) <= 2e-3 + 0.01 * p)
        print("%s (baseline %s): change %.4f %% p %.5f; pmutop %s %s" % (
            lab, ref_lab, change, p, b and b["change"], b and b["p"]))
        ok = ok and good
        compared += 1
        family.append((lab, p, b))
    for (lab, p, b), adj in zip(family, holm([p for _, p, _ in family])):
        tol = len(family) * 2e-3 + 0.01 * adj
        good = b is not None and b.get("p_adj") is not None and abs(b["p_adj"] - adj) <= tol
        print("%s: Holm %.5f; pmutop %s" % (lab, adj, b and b.get("p_adj")))
        ok = ok and good
    sys.exit(0 if ok and compared else 1)


main()

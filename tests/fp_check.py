#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# fp_check.py: a baseline comparison's false-positive rate and detection over many runs (one
# pmutop -f json output per seed, each against its own reference).
# A cell is flagged when its p_adj (Holm's step-down over the refresh's CPUs, as pmutop adjusts
# them) is below ALPHA; --raw: when its raw p is (each cell judged alone).
#   --plain FILE...: runs where nothing changed: the share of METRIC cells flagged, over all
#     refreshes and over refreshes WINDOW apart (they share no window: independent tests), with
#     the one-sided 95 % binomial upper bound of the nominal rate ALPHA for that many tests; and
#     the share of those refreshes with any CPU flagged (the family-wise rate, ALPHA at most with
#     Holm's correction) with its bound
#   --shift CPU:TICK:WITHIN FILE...: runs with a change on CPU from TICK: in how many METRIC is
#     flagged on CPU WITHIN refreshes after TICK, and in how many no other CPU is flagged then
#   --max-fp: exit 1 when the independent share or the family-wise one is above its bound (with
#     --raw: the independent share only); --min-found N: exit 1 when
#     fewer runs than N found the change; --min-both N: ... fewer than N found it with no other
#     CPU flagged; --max-first K: exit 1 when a run first flags the change later than K
#     refreshes after it (or never)
import json
import math
import sys

METRIC, ALPHA, WINDOW = "ipc", 0.05, 30


RAW = False


def cells(path):
    """(seq, {cpu: significant}) of METRIC per refresh, tested cells only."""
    for line in open(path):
        if not line.startswith("{"):
            continue
        rec = json.loads(line)
        pvals = {}
        for c in rec["cpus"]:
            b = (c.get("baseline") or {}).get(METRIC)
            key = "p" if RAW else "p_adj"
            if b is not None and b[key] is not None:
                pvals[c["cpu"]] = b[key]  # the p-value, not pmutop's own flag
        if pvals:
            yield rec["seq"], {k: p < ALPHA for k, p in pvals.items()}


def main():
    args, files, mode = sys.argv[1:], {"plain": [], "shift": []}, None
    global RAW
    shift, max_fp, min_found, min_both, max_first = None, False, 0, 0, float("inf")
    while args:
        a = args.pop(0)
        if a == "--plain":
            mode = "plain"
        elif a == "--shift":
            mode, shift = "shift", [int(x) for x in args.pop(0).split(":")]
        elif a == "--max-fp":
            max_fp = True
        elif a == "--min-found":
            min_found = int(args.pop(0))
        elif a == "--min-both":
            min_both = int(args.pop(0))
        elif a == "--max-first":
            max_first = int(args.pop(0))
        elif a == "--raw":
            RAW = True
        else:
            files[mode].append(a)
    ok = True
    if files["plain"]:
        every, apart, fam = [], [], []
        for f in files["plain"]:
            first = None
            for seq, row in cells(f):
                first = first or seq
                every += row.values()
                if (seq - first) % WINDOW == 0:
                    apart += row.values()
                    fam.append(any(row.values()))
        n, nf = len(apart), len(fam)
        bound = ALPHA + 1.645 * math.sqrt(ALPHA * (1 - ALPHA) / n) if n else 0
        fbound = ALPHA + 1.645 * math.sqrt(ALPHA * (1 - ALPHA) / nf) if nf else 0
        share = sum(apart) / n if n else float("nan")
        fshare = sum(fam) / nf if nf else float("nan")
        print("no change%s: %s cells flagged %.2f %% of %d (every refresh); %.2f %% of %d "
              "(refreshes %d apart; 95 %% bound of %.0f %%: %.2f %%); refreshes with any cpu "
              "flagged %.2f %% of %d (bound %.2f %%)"
              % (" (raw p)" if RAW else "", METRIC, 100 * sum(every) / max(1, len(every)),
                 len(every), 100 * share, n, WINDOW, 100 * ALPHA, 100 * bound, 100 * fshare, nf,
                 100 * fbound))
        ok = ok and n > 0 and (not max_fp or (share <= bound and (RAW or fshare <= fbound)))
    if files["shift"]:
        cpu, tick, within = shift
        found = clean = both = 0
        first = []  # refreshes after TICK to the first one that flags CPU
        for f in files["shift"]:
            rows = dict(cells(f))
            row = rows.get(tick + within, {})
            hit = row.get(cpu) is True
            others = [k for k, v in row.items() if k != cpu and v]
            found += hit
            clean += not others
            both += hit and not others
            first += [min([s - tick for s, r in rows.items() if s > tick and r.get(cpu)] or
                          [float("inf")])]
        n = len(files["shift"])
        first.sort()
        print("change on cpu %d from refresh %d%s: flagged at refresh %d in %d of %d runs; no "
              "other cpu flagged then in %d; both in %d; first flagged %s-%s refreshes after "
              "the change (median %s)"
              % (cpu, tick, " (raw p)" if RAW else "", tick + within, found, n, clean, both,
                 first[0], first[-1], first[len(first) // 2]))
        ok = ok and found >= min_found and both >= min_both and first[-1] <= max_first
    sys.exit(0 if ok else 1)


main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# fp_check.py: a baseline comparison's false-positive rate and detection over many runs (one
# pmutop -f json output per seed, each against its own reference).
#   --plain FILE...: runs where nothing changed: the share of METRIC cells flagged, over all
#     refreshes and over refreshes WINDOW apart (they share no window: independent tests), with
#     the one-sided 95 % binomial upper bound of the nominal rate ALPHA for that many tests
#   --shift CPU:TICK:WITHIN FILE...: runs with a change on CPU from TICK: in how many METRIC is
#     flagged on CPU WITHIN refreshes after TICK, and in how many no other CPU is flagged then
#   --max-fp: exit 1 when the independent share is above the bound; --min-found N: exit 1 when
#     fewer runs than N found the change
import json
import math
import sys

METRIC, ALPHA, WINDOW = "ipc", 0.05, 30


def cells(path):
    """(seq, {cpu: significant}) of METRIC per refresh, tested cells only."""
    for line in open(path):
        if not line.startswith("{"):
            continue
        rec = json.loads(line)
        row = {}
        for c in rec["cpus"]:
            b = (c.get("baseline") or {}).get(METRIC)
            if b is not None and b["p"] is not None:
                row[c["cpu"]] = b["p"] < ALPHA  # the p-value, not pmutop's own flag
        if row:
            yield rec["seq"], row


def main():
    args, files, mode = sys.argv[1:], {"plain": [], "shift": []}, None
    shift, max_fp, min_found = None, False, 0
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
        else:
            files[mode].append(a)
    ok = True
    if files["plain"]:
        every, apart = [], []
        for f in files["plain"]:
            first = None
            for seq, row in cells(f):
                first = first or seq
                every += row.values()
                if (seq - first) % WINDOW == 0:
                    apart += row.values()
        n = len(apart)
        bound = ALPHA + 1.645 * math.sqrt(ALPHA * (1 - ALPHA) / n) if n else 0
        share = sum(apart) / n if n else float("nan")
        print("no change: %s cells flagged %.2f %% of %d (every refresh); %.2f %% of %d "
              "(refreshes %d apart; 95 %% bound of %.0f %%: %.2f %%)"
              % (METRIC, 100 * sum(every) / max(1, len(every)), len(every), 100 * share, n,
                 WINDOW, 100 * ALPHA, 100 * bound))
        ok = ok and n > 0 and (not max_fp or share <= bound)
    if files["shift"]:
        cpu, tick, within = shift
        found = clean = both = 0
        for f in files["shift"]:
            row = dict(cells(f)).get(tick + within, {})
            hit = row.get(cpu) is True
            others = [k for k, v in row.items() if k != cpu and v]
            found += hit
            clean += not others
            both += hit and not others
        n = len(files["shift"])
        print("change on cpu %d from refresh %d: flagged at refresh %d in %d of %d runs; no "
              "other cpu flagged then in %d; both in %d"
              % (cpu, tick, tick + within, found, n, clean, both))
        ok = ok and found >= min_found
    sys.exit(0 if ok else 1)


main()

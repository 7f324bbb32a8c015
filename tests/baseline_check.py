#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# baseline_check.py: what a run against a baseline flagged. Reads pmutop -f json lines (with
# "baseline" members) on stdin and prints, per CPU, the share of frames where METRIC's change
# was significant and the first frame (seq) from which it stayed significant; and the share of
# all (frame, CPU, metric) tests that were significant.
#   --self: exit 1 when more than 5 % of all tests were significant (a recording against itself)
#   --shift CPU:TICK:WITHIN: exit 1 unless, WITHIN frames after TICK, METRIC is significant on
#     CPU and on no other CPU
import json
import sys


def main():
    args = sys.argv[1:]
    metric, self_test, shift = "ipc", False, None
    while args:
        a = args.pop(0)
        if a == "--metric":
            metric = args.pop(0)
        elif a == "--self":
            self_test = True
        elif a == "--shift":
            shift = [int(x) for x in args.pop(0).split(":")]
    tests = flagged = 0
    per_cpu = {}
    at = {}
    for line in sys.stdin:
        if not line.startswith("{"):
            continue
        rec = json.loads(line)
        for row in rec["cpus"]:
            base = row.get("baseline")
            if base is None:
                continue
            for name, b in base.items():
                if b["p"] is None:
                    continue
                tests += 1
                flagged += b["significant"]
            b = base.get(metric)
            if b is not None and b["p"] is not None:
                per_cpu.setdefault(row["cpu"], []).append((rec["seq"], b["significant"]))
                if shift and rec["seq"] == shift[1] + shift[2]:
                    at[row["cpu"]] = b["significant"]
    out = {"tests": tests, "significant_share": round(flagged / tests, 4) if tests else None,
           "cpus": {}}
    for cpu, seq in sorted(per_cpu.items()):
        stay = None
        for s, sig in reversed(seq):
            if not sig:
                break
            stay = s
        out["cpus"][cpu] = {"share": round(sum(x for _, x in seq) / len(seq), 4),
                            "significant_from": stay}
    print(json.dumps(out))
    ok = tests > 0
    if self_test:
        ok = ok and flagged / tests <= 0.05
    if shift:
        cpu, tick, within = shift
        out["significant_at_%d" % (tick + within)] = at
        ok = ok and at.get(cpu) is True
        ok = ok and len(at) > 1 and not any(v for k, v in at.items() if k != cpu)
        print(json.dumps(at))
    sys.exit(0 if ok else 1)


main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# share_check.py: holds a task's CPU share drawn on the screen, frame by frame, against the
# kernel's count of its CPU time (/proc/PID/schedstat) over the same frames.
# Usage: share_check.py POLLS TOL SKIP
# POLLS: one line per poll of the screen, "tA cpu tB tC frame last_ms value [more]": the clock
# (s) before and after reading schedstat's CPU time (ns), the clock after the screen capture, the
# frame number and its measured interval from the header, and the value drawn (% of a core).
# The frames' ticks are not seen, only when the screen showed them: a frame k drawn by tC ticked
# before tC, and frames tick their measured interval apart, so T_k = base + C_k (C_k the sum of
# the intervals since the first frame). base is at most min(tC_k - C_k); pmutop's delay from its
# read to the screen (and the poll's own) is allowed up to DRAW_S below that. The CPU time is
# monotonic: between two reads it is bracketed by them. The check passes when, for some base in
# that range, the screen's share over the frames (interval-weighted) is within TOL of the
# kernel's (or 1 % of a core), whatever the load did to the polls' timing.
import sys

DRAW_S = 0.25  # s: a counter read to the frame on the screen, plus a poll's latency
STEP_S = 0.005  # s: the search step for base


def main():
    path, tol, skip = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    samples = []  # (tA, cpu_ns, tB): CPU(tA) <= cpu_ns <= CPU(tB)
    frames = []  # [frame, tC of the first poll showing it, last_ms, value]
    for line in open(path):
        f = line.split()
        if len(f) < 4:
            continue
        samples.append((float(f[0]), int(f[1]), float(f[2])))
        if len(f) < 7 or not f[4].isdigit():
            continue
        try:
            fr, last, val = int(f[4]), float(f[5]), float(f[6])
        except ValueError:
            continue
        if not frames or fr != frames[-1][0]:
            frames.append([fr, float(f[3]), last, val])
    # the last run of consecutive frames; its first SKIP frames only anchor the window's start
    run = []
    for fr in frames:
        if run and fr[0] != run[-1][0] + 1:
            run = []
        run.append(fr)
    if len(run) < skip + 2:
        print("only %d consecutive frames seen (%s)" % (len(run), [f[0] for f in frames]))
        return 1
    c, cum = 0.0, []
    for i, fr in enumerate(run):
        if i:
            c += fr[2] / 1000
        cum.append(c)
    hi = min(fr[1] - ck for fr, ck in zip(run, cum))
    used = run[skip:]
    t_from = cum[skip - 1]  # the window starts at the tick of the frame before the first used
    t_to = cum[-1]
    width = t_to - t_from
    screen = sum(fr[3] / 100 * fr[2] / 1000 for fr in used) / width

    def cpu_lo(t):  # the most the CPU time at t is known to be at least
        return max([s for a, s, b in samples if b <= t], default=None)

    def cpu_hi(t):
        return min([s for a, s, b in samples if a >= t], default=None)

    best = None
    n = int(DRAW_S / STEP_S) + 1
    for i in range(n):
        base = hi - i * STEP_S
        x, y = base + t_from, base + t_to
        lx, hx, ly, hy = cpu_lo(x), cpu_hi(x), cpu_lo(y), cpu_hi(y)
        if None in (lx, hx, ly, hy):
            continue
        lo_share, hi_share = (ly - hx) / 1e9 / width, (hy - lx) / 1e9 / width
        mid = (lo_share + hi_share) / 2
        off = max(lo_share - screen, screen - hi_share, 0)
        if best is None or off < best[0]:
            best = (off, lo_share, hi_share, mid, base - hi)
        if off <= max(tol * mid, 0.01):
            print("screen %.4f of a core over frames #%d-#%d (%.2f s), the kernel's %.4f..%.4f "
                  "(the ticks %.3f s before the screen showed them)" %
                  (screen, used[0][0], used[-1][0], width, lo_share, hi_share, hi - base))
            return 0
    if best is None:
        print("the polls do not cover frames #%d-#%d" % (used[0][0], used[-1][0]))
        return 1
    print("screen %.4f of a core over frames #%d-#%d (%.2f s), the kernel's at best %.4f..%.4f "
          "(ticks %.3f s before the screen)" %
          (screen, used[0][0], used[-1][0], width, best[1], best[2], -best[4]))
    return 1


if __name__ == "__main__":
    sys.exit(main())

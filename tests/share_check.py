#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# share_check.py: holds a task's CPU share drawn on the screen, frame by frame, against the
# kernel's count of its CPU time (/proc/PID/schedstat) over the same frames.
# Usage: share_check.py POLLS TOL
# POLLS: a line per poll of the screen, "tA cpu tB tC frame last_ms value [more]": the clock (s)
# before and after reading schedstat's CPU time (ns), the clock after the screen capture, the
# frame number and its measured interval from the header, and the value drawn (% of a core); a
# line "tA cpu tB tB" is a read of the CPU time alone.
# The frames' ticks are not seen, only when the screen showed them. A frame k first seen in a
# capture that ended at tC ticked before tC; the poll before it still showed an older frame, so
# frame k was drawn after that poll began (tB), and ticked at most DRAW_S before its drawing
# (pmutop's read, then the screen). Frames in a run of consecutive numbers tick their measured
# intervals apart, T_k = base + C_k, so each run has one unknown, base, in the range those
# bounds leave. Frame k counted over [T_k - last_k, T_k]; the CPU time is monotonic, so between
# two reads it is bracketed by them. The check passes when the screen's share over the frames
# (interval-weighted) is within TOL (or 1 % of a core) of the kernel's for some base of each
# run: however slowly a loaded machine let the test poll, only the bounds widen.
import sys

DRAW_S = 0.25  # s: pmutop's counter read to its frame on the screen
STEP_S = 0.005  # s: the search step for base


def main():
    path, tol = sys.argv[1], float(sys.argv[2])
    samples = []  # (tA, cpu_ns, tB): CPU(tA) <= cpu_ns <= CPU(tB)
    frames = []  # [frame, P (tB of the poll before), S (tC of the first poll showing it), last_s, value]
    prev_tb = None
    for line in open(path):
        f = line.split()
        if len(f) < 4:
            continue
        ta, cpu, tb, tc = float(f[0]), int(f[1]), float(f[2]), float(f[3])
        samples.append((ta, cpu, tb))
        if len(f) == 4:  # a read of the time alone
            continue
        try:
            fr, last, val = int(f[4]), float(f[5]) / 1000, float(f[6])
        except (IndexError, ValueError):
            continue  # no frame on this capture: it says nothing of when one was drawn
        if (not frames or fr != frames[-1][0]) and prev_tb is not None:
            frames.append([fr, prev_tb, tc, last, val])
        prev_tb = tb
    if not frames:
        print("no frame seen")
        return 1

    def cpu_lo(t):  # what the CPU time at t is known to be at least
        return max([s for a, s, b in samples if b <= t], default=None)

    def cpu_hi(t):
        return min([s for a, s, b in samples if a >= t], default=None)

    # runs of consecutive frame numbers, each with its base range
    runs, run = [], []
    for fr in frames:
        if run and fr[0] != run[-1][0] + 1:
            runs.append(run)
            run = []
        run.append(fr)
    runs.append(run)
    screen = width = lo_sum = hi_sum = 0.0
    used = []
    for run in runs:
        c, cum = 0.0, []
        for i, fr in enumerate(run):
            if i:
                c += fr[3]
            cum.append(c)
        hi = min(fr[2] - ck for fr, ck in zip(run, cum))
        lo = min(max(fr[1] - ck for fr, ck in zip(run, cum)), hi) - DRAW_S
        # a frame counts when its window is bracketed for every base of the range (the first
        # frames of the polls and the last may not be: those kept are consecutive)
        keep = []
        for fr, ck in zip(run, cum):
            ends = (lo + ck - fr[3], hi + ck)
            if cpu_lo(ends[0]) is not None and cpu_hi(ends[1]) is not None:
                keep.append((fr, ck))
        if not keep:
            continue
        best_lo = best_hi = None
        n = int((hi - lo) / STEP_S) + 1
        for i in range(n + 1):
            base = hi - min(i * STEP_S, hi - lo)
            # the frames kept are consecutive: their windows make one span
            x, y = base + keep[0][1] - keep[0][0][3], base + keep[-1][1]
            a, b = cpu_lo(y) - cpu_hi(x), cpu_hi(y) - cpu_lo(x)
            best_lo = a if best_lo is None else min(best_lo, a)
            best_hi = b if best_hi is None else max(best_hi, b)
        lo_sum += best_lo / 1e9
        hi_sum += best_hi / 1e9
        for fr, ck in keep:
            screen += fr[4] / 100 * fr[3]
            width += fr[3]
            used.append(fr[0])
    if width < 2:
        print("frames %s: too few bracketed by the polls (%.2f s)" % ([f[0] for f in frames], width))
        return 1
    s, lo_share, hi_share = screen / width, lo_sum / width, hi_sum / width
    mid = (lo_share + hi_share) / 2
    off = max(lo_share - s, s - hi_share, 0)
    ok = off <= max(tol * mid, 0.01)
    print("screen %.4f of a core over frames %s (%.2f s), the kernel's %.4f..%.4f" %
          (s, ",".join("#%d" % u for u in used), width, lo_share, hi_share))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

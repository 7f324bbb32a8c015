#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# tick_touch.py: the memory one tick touches, from a `valgrind --tool=lackey --trace-mem=yes`
# log of a pmutop run: distinct 64-byte cache lines and 4 KiB pages of code and of data per
# tick (median of the last ticks), data split by where it lies (pmutop's .data/.bss symbols,
# the heap, the stack, shared libraries) and code split by function.
# usage: tick_touch.py LOG MAPS BINARY TICKS [TOP]
#   TICK_TOUCH_FUNCS=FILE   also writes the names of pmutop's functions the steady ticks run,
#                           one a line, in the order a tick first runs them (bench/hot_functions.sh)
# MAPS is /proc/PID/maps of the valgrind process copied during the run (the client's mappings).
# A tick is the stretch between two entries of loop_wait (one a tick in batch and on the
# screen); the first half of the ticks are start-up and are not counted.
import bisect
import collections
import os
import subprocess
import sys


def symbols(binary, kinds):
    """(offset, size, name) of BINARY's symbols of the nm KINDS (letters), sorted by offset."""
    out = subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True,
                         text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2].lower() in kinds:
            syms.append((int(f[0], 16), int(f[1], 16), f[3]))
    return sorted(syms)


def writer_code(binary):
    """The start offsets of BINARY's functions that write the batch formats (their source in
    src/output/ or textutil.c, by the debug information)."""
    out = subprocess.run(["nm", "-l", "--defined-only", binary], capture_output=True,
                         text=True, check=True).stdout
    starts = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 4 and f[1].lower() in "tw" and ("/src/output/" in f[3] or
                                                       "/textutil.c:" in f[3]):
            starts.add(int(f[0], 16))
    return starts


def locate(syms, starts, off):
    i = bisect.bisect_right(starts, off) - 1
    if i >= 0 and off < syms[i][0] + max(syms[i][1], 1):
        return syms[i][2]
    return None


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    log, maps_file, binary, ticks = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    top = int(sys.argv[5]) if len(sys.argv) > 5 else 12
    maps = []  # (start, end, name)
    image_base = None  # where the binary's first page (file offset 0) is mapped
    real = os.path.realpath(binary)
    with open(maps_file) as f:
        for line in f:
            fl = line.split()
            lo, hi = (int(x, 16) for x in fl[0].split("-"))
            name = fl[5] if len(fl) > 5 else ""
            if name == real and int(fl[2], 16) == 0 and image_base is None:
                image_base = lo
            maps.append((lo, hi, name.rsplit("/", 1)[-1] if name else ""))
    maps.sort()
    mstarts = [m[0] for m in maps]
    code = symbols(binary, "tw")
    data = symbols(binary, "bdvr")
    wait_off = next(o for o, _, n in code if n == "loop_wait")
    # pass 1: loop_wait's address is the one with its offset's low 12 bits met once a tick
    counts = collections.Counter()
    with open(log, errors="replace") as f:
        for line in f:
            if line[0] == "I":
                a = int(line[3:].split(",")[0], 16)
                if (a & 0xFFF) == (wait_off & 0xFFF):
                    counts[a] += 1
    mark = max((a for a, n in counts.items() if abs(n - ticks) <= 2),
               key=lambda a: counts[a], default=None)
    if image_base is not None and abs(counts[image_base + wait_off] - ticks) <= 2:
        mark = image_base + wait_off  # the maps say where it is (another address may match)
    if mark is None:
        sys.exit("tick_touch: loop_wait's entry was not found %d times in the log" % ticks)
    base = mark - wait_off
    cstarts = [s[0] for s in code]
    dstarts = [s[0] for s in data]
    image_end = max(o + s for o, s, _ in code + data)
    stack_lo = None
    # pass 2: per tick, the distinct lines of code and data; each data line also by who touched
    # it: a writer's function (or a library function a writer called) or the engine's
    writers = writer_code(binary)
    owner_of = {}  # code address -> True for a writer's
    writer = False
    per_tick = []
    per_tick_w = []
    cur_c, cur_d = set(), set()
    cur_w, cur_e = set(), set()
    cur_i, ins_tick = {}, []  # a dict: the instructions in the order the tick ran them
    funcs_file = os.environ.get("TICK_TOUCH_FUNCS")
    with open(log, errors="replace") as f:
        for line in f:
            c = line[0]
            if c == "I":
                a = int(line[3:].split(",")[0], 16)
                if a == mark:
                    per_tick.append((cur_c, cur_d))
                    per_tick_w.append((cur_w, cur_e))
                    cur_c, cur_d = set(), set()
                    cur_w, cur_e = set(), set()
                    ins_tick.append(cur_i)
                    cur_i = {}
                cur_c.add(a >> 6)
                if funcs_file:
                    cur_i.setdefault(a)
                if base <= a < base + image_end:
                    # a library function (and the PLT's stub to it) works for its caller
                    w = owner_of.get(a)
                    if w is None:
                        i = bisect.bisect_right(cstarts, a - base) - 1
                        if i >= 0 and a - base < code[i][0] + max(code[i][1], 1):
                            w = owner_of[a] = code[i][0] in writers
                        else:
                            w = writer
                    writer = w
            elif c == " " and line[1] in "LSM":
                a = int(line[3:].split(",")[0], 16)
                cur_d.add(a >> 6)
                (cur_w if writer else cur_e).add(a >> 6)
    steady = per_tick[len(per_tick) // 2 + 1:]
    steady_w = per_tick_w[len(per_tick_w) // 2 + 1:]
    if not steady:
        sys.exit("tick_touch: too few ticks in the log")

    def mapping(a):
        i = bisect.bisect_right(mstarts, a) - 1
        if i >= 0 and a < maps[i][1]:
            lo, hi, name = maps[i]
            return name or "anonymous %#x (%d KiB)" % (lo, (hi - lo) // 1024)
        return "not mapped at the last copy of the maps (%#x)" % (a >> 16 << 16)

    def where_data(line):
        a = line << 6
        if base <= a < base + image_end:
            return "pmutop " + (locate(data, dstarts, a - base) or "(other)")
        return mapping(a)

    def where_code(line):
        a = line << 6
        if base <= a < base + image_end:
            return locate(code, cstarts, a - base) or "pmutop (other)"
        return mapping(a)

    if funcs_file:
        # first run order within the last steady tick, then any other steady tick's functions
        order = {}
        ins_steady = ins_tick[len(ins_tick) // 2 + 1:]
        for ins in [ins_steady[-1]] + ins_steady[:-1]:
            for a in ins:
                if base <= a < base + image_end:
                    name = locate(code, cstarts, a - base)
                    if name and name not in order:
                        order[name] = len(order)
        with open(funcs_file, "w") as f:
            f.writelines(n + "\n" for n in order)

    rows = []
    for cl, dl in steady:
        rows.append((len(cl), len({x >> 6 for x in cl}), len(dl), len({x >> 6 for x in dl})))
    cl, cp, dl, dp = (median([r[i] for r in rows]) for i in range(4))
    print("per tick (median of %d): code %d lines (%d KiB) on %d pages; data %d lines (%d KiB)"
          " on %d pages; %d lines in all" % (len(steady), cl, cl * 64 // 1024, cp, dl,
                                             dl * 64 // 1024, dp, cl + dl))
    split = [(len(e - w), len(w - e), len(w & e), len({x >> 6 for x in e}),
              len({x >> 6 for x in w})) for w, e in steady_w]
    eo, wo, both, ep, wp = (median([r[i] for r in split]) for i in range(5))
    print("data lines per tick by who touches them (median): engine only %d, writers only %d,"
          " both %d; pages: the engine's %d, the writers' %d (the writers: src/output/ and"
          " textutil.c, with the library calls they make)" % (eo, wo, both, ep, wp))
    cl_set, dl_set = steady[-1]
    by = collections.Counter(where_data(x) for x in dl_set)
    print("data lines of the last tick by place (pmutop's .data/.bss by symbol, else by mapping):")
    for name, n in by.most_common(top):
        print("  %5d  %s" % (n, name))
    by = collections.Counter(where_code(x) for x in cl_set)
    print("code lines of the last tick by function:")
    for name, n in by.most_common(top):
        print("  %5d  %s" % (n, name))


main()

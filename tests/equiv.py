#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# equiv.py: comparisons for e2e_equiv.sh: batch JSON against batch JSON (live, replay, flight,
# remote), and the screen (a tmux capture or a canvas golden) against batch JSON.
# Every command exits 0 when the check holds, 1 with the first difference on stdout.
import json
import math
import re
import sys

REL = 1e-9  # relative tolerance between two numbers that should be the same
# record members that differ by nature between two ways of producing the same frames
NOT_COMPARED = ("self", "backend", "replay", "spikes", "flight", "remote", "source", "timestamp")
NA_MARKS = ("n/a", "n/c", "n/s", "off", "?")


def load(path):
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except ValueError as e:
                raise SystemExit("%s:%d: not JSON (%s): %.120s" % (path, n, e, line))
    return out


def fmt(v):
    return "null" if v is None else json.dumps(v)


def near(a, b):
    return a == b or abs(a - b) <= REL * max(abs(a), abs(b))


def diff(a, b, path, out, exact=()):
    """Appends (path, a, b) for every leaf where a and b differ."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None or isinstance(a, str) or isinstance(b, str):
        if a != b or type(a) is not type(b):
            out.append((path, a, b))
        return
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        leaf = path.rsplit(".", 1)[-1]
        if (leaf in exact and a != b) or not near(a, b):
            out.append((path, a, b))
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                out.append((path + "." + k, a.get(k, "<absent>"), b.get(k, "<absent>")))
            else:
                diff(a[k], b[k], path + "." + k, out, exact)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append((path + " (length)", len(a), len(b)))
            return
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, "%s[%d]" % (path, i), out, exact)
        return
    out.append((path, a, b))


def rows_by_cpu(rec):
    return {c.get("cpu"): c for c in rec.get("cpus", [])}


def record_diffs(a, b, stats, seq):
    """Differences between two records: header fields, then per CPU, then the all row."""
    out = []
    for k in ("time", "interval_ms", "mode", "simulated", "samples", "split_metrics") + (("seq",) if seq else ()):
        if k in a or k in b:
            diff(a.get(k, "<absent>"), b.get(k, "<absent>"), k, out)
    ra, rb = rows_by_cpu(a), rows_by_cpu(b)
    if sorted(ra, key=str) != sorted(rb, key=str):
        out.append(("cpus (CPU numbers)", sorted(ra, key=str), sorted(rb, key=str)))
    keys = ["offline", "events", "metrics"] + (["stats"] if stats else [])
    for cpu in [c for c in ra if c in rb]:
        for k in keys:
            # events: state and running exactly, values to the tolerance
            diff(ra[cpu].get(k, "<absent>" if k != "offline" else False),
                 rb[cpu].get(k, "<absent>" if k != "offline" else False),
                 "cpu %s.%s" % (cpu, k), out, exact=("running",))
    for k in ("events", "metrics"):
        diff(a.get("total", {}).get(k), b.get("total", {}).get(k), "all." + k, out, exact=("running",))
    return out


def cmd_same(args):
    """same A B NAME_A NAME_B [--window MIN] [--no-stats] [--no-seq]
    B equals A record for record; with --window, B may be a contiguous part of A (at least MIN
    records) and records are matched by time."""
    a_path, b_path, na, nb = args[:4]
    opts = args[4:]
    window = None
    if "--window" in opts:
        window = int(opts[opts.index("--window") + 1])
    stats = "--no-stats" not in opts
    seq = "--no-seq" not in opts and window is None
    A, B = load(a_path), load(b_path)
    if not A:
        print("%s: no records" % na)
        return 1
    if window is None and len(A) != len(B):
        print("%s has %d records, %s %d" % (na, len(A), nb, len(B)))
        if not B:
            return 1
    if window is not None and len(B) < window:
        print("%s has %d records, want at least %d (the window covers the whole run of %d)" %
              (nb, len(B), window, len(A)))
        if not B:
            return 1
    bad = len(A) != len(B) if window is None else len(B) < window
    first = None
    ndiff = 0
    for i, rb in enumerate(B):
        if window is None:
            if i >= len(A):
                break
            ra = A[i]
        else:
            t = rb.get("time", -1)
            ra = min(A, key=lambda r: abs(r.get("time", 0) - t))
            if abs(ra.get("time", 0) - t) > 0.3 * ra.get("interval_ms", 0) / 1000:
                print("%s record %d at t=%s has no %s record at that time" % (nb, i + 1, t, na))
                bad = True
                continue
        d = record_diffs(ra, rb, stats, seq)
        if d:
            bad = True
            ndiff += len(d)
            if first is None:
                first = (i, ra, rb, d)
    if first:
        i, ra, rb, d = first
        p, x, y = d[0]
        print("first difference: %s record %d (seq %s, t=%s): %s: %s %s, %s %s" %
              (nb, i + 1, ra.get("seq"), ra.get("time"), p, na, fmt(x), nb, fmt(y)))
        m = [e for e in d if ".metrics." in e[0]]
        if m and m[0] is not d[0]:
            print("  first metric difference there: %s: %s %s, %s %s" % (m[0][0], na, fmt(m[0][1]), nb, fmt(m[0][2])))
        print("  %d fields differ in all" % ndiff)
    return 1 if bad else 0


# --- the screen --------------------------------------------------------------------------------

def screen_format(v):
    """ui: output_format_value(), the screen's number format."""
    if v == math.floor(v) or abs(v) >= 1e7:  # counts in full (below 1e15, where SI starts)
        return "%.0f" % v
    if v != 0 and abs(v) < 1e-3:
        return "%.3g" % v
    if abs(v) >= 1000:
        return "%.0f" % v
    return "%.3f" % v


def half_unit(text):
    """Half a unit in the last place of a printed number."""
    m = re.match(r"^-?(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$", text)
    if not m:
        return 0.0
    dec = len(m.group(2) or "")
    exp = int(m.group(3) or 0)
    return 0.5 * 10.0 ** (exp - dec)


def json_half_unit(v):
    """JSON metrics carry 6 significant digits (%.6g)."""
    if v == 0:
        return 0.0
    return 0.5 * 10.0 ** (math.floor(math.log10(abs(v))) - 5)


def number_matches(text, v):
    """Is the screen's @text what the screen prints for the value JSON printed as @v?"""
    try:
        s = float(text)
    except ValueError:
        return False
    # the format is the value's: JSON's 6 digits may round a value the screen printed with its
    # decimals to a whole number (99.99997: screen "100.000", JSON 100.0)
    h = 0.999 * json_half_unit(v)
    if screen_format(s) != text and all(screen_format(c) != text for c in (v, v - h, v + h)):
        return False  # not in the screen's format
    return abs(s - v) <= half_unit(text) + json_half_unit(v) + 1e-12 * abs(v)


def header_labels(line, names):
    """Maps the column header line onto metric names in order; returns how many matched."""
    toks = line.split()
    if toks and toks[0] == "CPU":
        toks = toks[1:]
    n = 0
    i = 0
    for name in names:
        found = False
        for j in range(i, min(i + 2, len(toks))):  # a unit token may sit before the next name
            t = toks[j]
            if t == name or (t.endswith("…") and len(t) > 1 and name.startswith(t[:-1])):
                i = j + 1
                found = True
                break
        if not found:
            break
        n += 1
    return n


def parse_table(lines):
    """The table of a screen: (tick, header line, [(cpu or 'all', [cells] or 'offline')])."""
    tick = None
    for l in lines[:4]:
        m = re.search(r"\| #(\d+)\b", l)
        if m:
            tick = int(m.group(1))
            break
    hdr = None
    rows = []
    for k, l in enumerate(lines):
        if hdr is None:
            if l.startswith("CPU "):
                hdr = l
            continue
        m = re.match(r"^\s*(\d+|all)\s+(.*)$", l)
        if not m:
            break
        who = m.group(1)
        rest = m.group(2).split()
        if rest[-2:-1] and re.match(r"^\^?\s*\d+$", rest[-1]) and rest[-2] == "more":
            rest = rest[:-2]
        rows.append((who if who == "all" else int(who), "offline" if rest == ["offline"] else rest))
        if who == "all":
            break
    return tick, hdr, rows


def check_cell(text, rec_row, name, split):
    """One table cell against JSON; returns None or the reason it differs."""
    v = rec_row["metrics"].get(name, "<absent>")
    if v == "<absent>":
        return "no metric %s in JSON" % name
    if v is None:
        if text not in NA_MARKS:
            return "screen %r, JSON null" % text
        ev = rec_row.get("events", {}).get(name)
        if ev and ev.get("state") == "not_counted" and text != "n/c":
            return "screen %r, JSON event %s is not_counted (n/c)" % (text, name)
        return None
    mark = text[-1] if text[-1:] in ("~", "*") else ""
    num = text[:-1] if mark else text
    if not number_matches(num, v):
        return "screen %r, JSON %s (screen format %r)" % (text, fmt(v), screen_format(v))
    states = [e.get("state") for e in rec_row.get("events", {}).values() if e.get("state") in ("ok", "scaled")]
    if name in split and mark != "*":
        return "screen %r: a split metric (JSON split_metrics) needs the * mark" % text
    if name not in split and states and all(s == "scaled" for s in states) and mark != "~":
        return "screen %r: every event of the row is scaled in JSON, the cell lacks ~" % text
    if states and all(s == "ok" for s in states) and mark == "~":
        return "screen %r: nothing is scaled in JSON, the cell has ~" % text
    return None


def cmd_table(args):
    """table SCREEN.txt JSON [MINCOLS]: every number of the screen's table is JSON's at that tick."""
    lines = open(args[0], encoding="utf-8").read().split("\n")
    mincols = int(args[2]) if len(args) > 2 else 2
    recs = load(args[1])
    tick, hdr, rows = parse_table(lines)
    if tick is None or hdr is None or not rows:
        print("no table with a tick number on the screen:\n" + "\n".join(lines[:12]))
        return 1
    rec = [r for r in recs if r.get("seq") == tick]
    if not rec:
        print("the screen shows tick #%d; the batch JSON has seq %s..%s" %
              (tick, recs[0].get("seq") if recs else "-", recs[-1].get("seq") if recs else "-"))
        return 1
    rec = rec[0]
    names = list(rec["total"]["metrics"].keys())
    ncols = max((len(c) for _, c in rows if c != "offline"), default=0)
    nh = header_labels(hdr, names)
    if nh < ncols or ncols < mincols:
        print("#%d: the header does not name the metrics in JSON order (%d of %d columns matched, want >= %d):\n  %s\n  JSON: %s" %
              (tick, nh, ncols, mincols, hdr, " ".join(names)))
        return 1
    split = set(rec.get("split_metrics", []))
    byc = rows_by_cpu(rec)
    seen = set()
    cells = 0
    for who, cells_ in rows:
        jr = rec["total"] if who == "all" else byc.get(who)
        if jr is None:
            print("#%d: CPU %s is on the screen, not in JSON" % (tick, who))
            return 1
        seen.add(who)
        if cells_ == "offline" or (who != "all" and jr.get("offline")):
            if not (cells_ == "offline" and jr.get("offline")):
                print("#%d: CPU %s: screen %s, JSON offline=%s" % (tick, who, cells_, jr.get("offline", False)))
                return 1
            continue
        if len(cells_) != ncols:
            print("#%d: CPU %s has %d cells, the header %d" % (tick, who, len(cells_), ncols))
            return 1
        for text, name in zip(cells_, names):
            why = check_cell(text, jr, name, split)
            cells += 1
            if why:
                print("#%d: %s %s: %s" % (tick, "all" if who == "all" else "CPU %s" % who, name, why))
                return 1
    missing = [c for c in byc if c not in seen]
    if missing or "all" not in seen:
        print("#%d: rows missing on the screen: %s" % (tick, missing + ([] if "all" in seen else ["all"])))
        return 1
    print("  screen #%d: %d cells of %d columns match batch JSON seq %d" % (tick, cells, ncols, tick))
    return 0


def si_text(v):
    """ui: output_format_si()."""
    suffix = " kMGTPE"
    k = 0
    a = abs(v)
    while a >= 999.5 and k < 6:
        a /= 1000
        v /= 1000
        k += 1
    s = ("%.0f" if a >= 100 else "%.3g") % v
    return s if k == 0 else s + suffix[k]


def cmd_offcore(args):
    """offcore SCREEN.txt JSON: the offcore view's legend is the all row of batch JSON: each bit's
    rate, share ("-" where JSON has none: the ANY bit, a bit not measured yet) and age."""
    lines = open(args[0], encoding="utf-8").read().split("\n")
    recs = load(args[1])
    tick = None
    for l in lines[:4]:
        m = re.search(r"\| #(\d+)\b", l)
        if m:
            tick = int(m.group(1))
    rec = [r for r in recs if r.get("seq") == tick]
    if not rec:
        print("offcore view shows tick #%s; not in the batch JSON" % tick)
        return 1
    rec = rec[0]
    legend = []
    for l in lines:
        legend += re.findall(r"(?:^|  )\S (\S+)\s+(\S+)/s\s+([\d.]+%|-)\s+(never|\d+t ago)", l)
    if not legend:
        print("no offcore legend on the screen:\n" + "\n".join(lines[:12]))
        return 1
    n = 0
    off = rec["total"].get("offcore", {})
    for name, rate, share, age in legend:
        j = off.get(name)
        if j is None:
            print("#%d: offcore view bit %s is not in JSON total.offcore" % (tick, name))
            return 1
        if share == "-":
            if j["share"] is not None:
                print("#%d: offcore view %s has no share, JSON %s" % (tick, name, fmt(j["share"])))
                return 1
        elif j["share"] is None or abs(float(share[:-1]) - j["share"]) > 0.05 + json_half_unit(j["share"]) + 1e-9:
            print("#%d: offcore view %s share %s, JSON all row %s" % (tick, name, share, fmt(j["share"])))
            return 1
        else:
            n += 1
        want = "n/a" if j["rate"] is None else si_text(j["rate"])
        near_ = [want] if j["rate"] is None else [want, si_text(j["rate"] * (1 - 1e-6)), si_text(j["rate"] * (1 + 1e-6))]
        if rate not in near_:
            print("#%d: offcore view %s rate %s/s, JSON all row %s/s" % (tick, name, rate, fmt(j["rate"])))
            return 1
        want_age = "never" if j["age"] is None else "%dt ago" % j["age"]
        if age != want_age:
            print("#%d: offcore view %s %s, JSON age %s" % (tick, name, age, fmt(j["age"])))
            return 1
    if n < 2:
        print("#%d: only %d offcore shares could be compared" % (tick, n))
        return 1
    print("  offcore view #%d: %d bits, %d shares match batch JSON" % (tick, len(legend), n))
    return 0


def offcore_text_records(path):
    """The offcore lines of each batch text record: [{bit: (rate, share, age)}]."""
    recs, cur = [], None
    for l in open(path, encoding="utf-8"):
        if l.startswith("time "):
            cur = {}
            recs.append(cur)
        m = re.match(r"^offcore (\S+)\s+rate\s+(\S+)\s+share\s+(\S+)\s+age (\S+)$", l.rstrip("\n"))
        if m and cur is not None:
            cur[m.group(1)] = m.groups()[1:]
    return recs


def cmd_offcore_text(args):
    """offcore-text TEXT JSON: each batch text record's offcore lines are the JSON record's
    total.offcore: rate, share ("-" = null) and age ("-" = null), bit for bit."""
    texts, recs = offcore_text_records(args[0]), load(args[1])
    if len(texts) != len(recs) or not recs:
        print("%d text records, %d JSON records" % (len(texts), len(recs)))
        return 1
    n = 0
    for t, r in zip(texts, recs):
        off = r["total"].get("offcore")
        if not off or list(off) != list(t):
            print("seq %s: text bits %s, JSON %s" % (r["seq"], list(t), list(off or {})))
            return 1
        for bit, (rate, share, age) in t.items():
            j = off[bit]
            for what, text, v, unit in (("rate", rate, j["rate"], "/s"), ("share", share, j["share"], "%")):
                if v is None:
                    ok = text == ("n/a" if what == "rate" else "-")
                else:
                    ok = text.endswith(unit) and number_matches(text[: -len(unit)], v)
                if not ok:
                    print("seq %s: %s %s text %s, JSON %s" % (r["seq"], bit, what, text, fmt(v)))
                    return 1
            if age != ("-" if j["age"] is None else str(j["age"])):
                print("seq %s: %s age text %s, JSON %s" % (r["seq"], bit, age, fmt(j["age"])))
                return 1
            n += 1
    print("  batch text = batch JSON: %d offcore bits in %d records" % (n, len(recs)))
    return 0


def cmd_offcore_json(args):
    """offcore-json JSON [SUPERSET]: per CPU and in total each bit's rate is its event per second,
    its share its share metric, its age null exactly when it was never measured; the SUPERSET bit
    (the ANY request type) never has a share; in the first sweep every bit already measured has a
    rate and (but SUPERSET) a share - in the first record at least the first slice."""
    recs = load(args[0])
    sup = args[1] if len(args) > 1 else None
    seen_sup = False
    for r in recs:
        iv = r["interval_ms"] / 1000
        for who, row in [(c["cpu"], c) for c in r["cpus"] if not c.get("offline")] + [("all", r["total"])]:
            off = row.get("offcore")
            if not off:
                print("seq %s cpu %s: no offcore member" % (r["seq"], who))
                return 1
            for bit, j in off.items():
                ev = row["events"].get(bit, {})
                measured = ev.get("state") in ("ok", "scaled") and ev.get("value") is not None
                want_rate = ev["value"] / iv if measured else None
                if (want_rate is None) != (j["rate"] is None) or (want_rate is not None and
                                                                  abs(j["rate"] - want_rate) > 5e-6 * abs(want_rate) + 1e-9):
                    print("seq %s cpu %s %s: rate %s, event %s in %s s" % (r["seq"], who, bit, fmt(j["rate"]), fmt(ev.get("value")), iv))
                    return 1
                want_share = None if bit == sup or not measured else row["metrics"].get(bit)
                if (want_share is None) != (j["share"] is None) or (want_share is not None and
                                                                    abs(j["share"] - want_share) > 5e-6 * abs(want_share) + 1e-9):
                    print("seq %s cpu %s %s: share %s, metric %s" % (r["seq"], who, bit, fmt(j["share"]), fmt(want_share)))
                    return 1
                if (j["age"] is None) != (j["rate"] is None) or (j["age"] is not None and j["age"] < 0):
                    print("seq %s cpu %s %s: age %s with rate %s" % (r["seq"], who, bit, fmt(j["age"]), fmt(j["rate"])))
                    return 1
                if bit == sup and j["rate"] is not None:
                    seen_sup = True
    first = recs[0]["total"]["offcore"] if recs else {}
    fresh = [b for b, j in first.items() if j["age"] == 0]
    # the first slice (the first bits of the selection) counts from the open into the first tick
    if not fresh or list(first)[0] not in fresh or any(first[b]["share"] is None for b in fresh if b != sup):
        print("seq 1: bits measured in the first tick %s, shares %s" % (fresh, [fmt(first[b]["share"]) for b in fresh]))
        return 1
    if sup and not seen_sup:
        print("the %s bit was never measured" % sup)
        return 1
    print("  batch JSON offcore: rate, share, age consistent in %d records; first tick measured %s" % (len(recs), " ".join(fresh)))
    return 0


def cmd_offcore_csv(args):
    """offcore-csv CSV JSON: the CSV's offcore_rate/offcore_share/offcore_age lines are the JSON
    offcore members, per CPU and for all, record by record (empty with state n/a = null)."""
    import csv
    recs = load(args[1])
    got = {}
    with open(args[0], newline="") as f:
        for row in csv.DictReader(f):
            if row["kind"].startswith("offcore_"):
                key = (row["time_s"], row["cpu"], row["name"], row["kind"][8:])
                got[key] = None if row["state"] == "n/a" else float(row["value"])
    n = 0
    for r in recs:
        t = "%.6f" % r["time"]
        for who, row in [(str(c["cpu"]), c) for c in r["cpus"] if "offcore" in c] + [("all", r["total"])]:
            for bit, j in row.get("offcore", {}).items():
                for what in ("rate", "share", "age"):
                    key = (t, who, bit, what)
                    if key not in got:
                        print("t %s cpu %s: no CSV line offcore_%s for %s" % (t, who, what, bit))
                        return 1
                    a, b = got[key], j[what]
                    if (a is None) != (b is None) or (a is not None and abs(a - b) > 5e-6 * abs(b) + 1e-9):
                        print("t %s cpu %s %s %s: CSV %s, JSON %s" % (t, who, bit, what, fmt(a), fmt(b)))
                        return 1
                    n += 1
    if n == 0 or n != len(got):
        print("%d CSV offcore values, %d compared with JSON" % (len(got), n))
        return 1
    print("  batch CSV = batch JSON: %d offcore values" % n)
    return 0


# --- seams -------------------------------------------------------------------------------------

def strings(o):
    if isinstance(o, str):
        yield o
    elif isinstance(o, dict):
        for k, v in o.items():
            yield from strings(v)
    elif isinstance(o, list):
        for v in o:
            yield from strings(v)


def cmd_has_strings(args):
    """has-strings JSON WANT...: the first record holds each WANT as a string value
    (a WANT of the form a|b|c: any one of them, as a value or inside one)."""
    recs = load(args[0])
    if not recs:
        print("no records")
        return 1
    have = list(strings(recs[0]))
    bad = 0
    for w in args[1:]:
        alts = w.split("|")
        if not any(s == a or (len(a) > 3 and a in s) for s in have for a in alts):
            print("the first record has no string %s (its strings: %s)" % (" or ".join(map(repr, alts)),
                  ", ".join(sorted(set(have)))[:300]))
            bad = 1
    return bad


MIG = re.compile(r"^mig([_/].*)?$")


def cmd_mig(args):
    """mig JSON present|absent: an event "mig" and a metric mig/mig_* in every record (or in none)."""
    recs = load(args[0])
    want = args[1] == "present"
    if not recs:
        print("no records")
        return 1
    for r in recs:
        ev = "mig" in r["total"]["events"]
        met = [m for m in r["total"]["metrics"] if MIG.match(m)]
        if want and not (ev and met):
            print("seq %s: event mig %s, rate metric %s; events %s, metrics %s" %
                  (r.get("seq"), "present" if ev else "absent", met or "absent",
                   list(r["total"]["events"]), list(r["total"]["metrics"])))
            return 1
        if not want and (ev or met):
            print("seq %s: mig still there: events %s, metrics %s" % (r.get("seq"), list(r["total"]["events"]),
                                                                      list(r["total"]["metrics"])))
            return 1
    return 0


def cmd_no_event(args):
    """no-event JSON NAME: no record counts event NAME."""
    recs = load(args[0])
    if not recs:
        print("no records")
        return 1
    for r in recs:
        if args[1] in r["total"]["events"]:
            print("seq %s: event %s still counted: %s" % (r.get("seq"), args[1], list(r["total"]["events"])))
            return 1
    return 0


def cmd_util_bound(args):
    """util-bound JSON HZ [LIVE]: no util value (per CPU or all) above 100 % plus one /proc/stat
    clock tick (1/HZ s) of the record's interval; with LIVE (the batch JSON of the live run), a
    value above that bound passes only where the live run showed the same value at that time."""
    recs = load(args[0])
    hz = float(args[1])
    live = load(args[2]) if len(args) > 2 else []
    if not recs:
        print("no records")
        return 1
    n = 0
    for r in recs:
        iv = r.get("interval_ms", 0) / 1000
        if iv <= 0:
            print("t=%s: interval_ms %s" % (r.get("time"), fmt(r.get("interval_ms"))))
            return 1
        bound = 100 * (iv + 1 / hz) / iv
        lr = min(live, key=lambda x: abs(x.get("time", 0) - r.get("time", 0))) if live else None
        if lr and abs(lr.get("time", 0) - r.get("time", 0)) > 0.3 * iv:
            lr = None
        for who, row in [(c.get("cpu"), c) for c in r["cpus"]] + [("all", r["total"])]:
            u = row["metrics"].get("util")
            if u is None:
                continue
            n += 1
            if u <= bound:
                continue
            lu = None
            if lr:
                lrow = lr["total"] if who == "all" else rows_by_cpu(lr).get(who)
                lu = lrow["metrics"].get("util") if lrow else None
            if lu is not None and abs(u - lu) <= 1e-4 * abs(lu):
                continue  # the live run measured it so (/proc/stat): not the recording's doing
            print("t=%s %s: util %s %% (bound %.2f %%: 100 %% + one clock tick of %.1f ms%s)" %
                  (r.get("time"), "all" if who == "all" else "CPU %s" % who, fmt(u), bound, iv * 1000,
                   "; live run at that time: %s %%" % fmt(lu) if lr else ""))
            return 1
    if not n:
        print("no util values")
        return 1
    return 0


def cmd_interval(args):
    """interval JSON MS: every record's interval_ms is MS and its time a multiple of it (sim)."""
    recs = load(args[0])
    ms = float(args[1])
    if not recs:
        print("no records")
        return 1
    for i, r in enumerate(recs):
        if not near(r.get("interval_ms", 0), ms) or not near(r.get("time", 0), (i + 1) * ms / 1000):
            print("record %d: interval_ms %s, time %s; want %s ms, %s s" % (i + 1, fmt(r.get("interval_ms")),
                  fmt(r.get("time")), ms, (i + 1) * ms / 1000))
            return 1
    return 0


def cmd_modes(args):
    """modes JSON MODE: every record is in MODE."""
    recs = load(args[0])
    for r in recs:
        if r.get("mode") != args[1]:
            print("seq %s: mode %s, want %s" % (r.get("seq"), r.get("mode"), args[1]))
            return 1
    return 0


def monotonic(recs, keys=("time", "seq", "timestamp")):
    """The first of @keys that does not grow strictly from record to record, as text, or None."""
    for k in keys:
        v = [r.get(k) for r in recs]
        for i, (a, b) in enumerate(zip(v, v[1:])):
            if a is None or b is None or not b > a:
                return "%s goes from %s to %s at record %d" % (k, fmt(a), fmt(b), i + 2)
    return None


def cmd_hotplug(args):
    """hotplug JSON: the run the hotplug steps drive: CPU 1 has no row at first and one later;
    CPU 0 is offline for some records, then not counted for one (deltas restart), then counted;
    time, seq and timestamp grow strictly."""
    recs = load(args[0])
    if not recs:
        print("no records")
        return 1
    why = []
    m = monotonic(recs)
    if m:
        why.append(m)
    has1 = [any(c["cpu"] == 1 for c in r["cpus"]) for r in recs]
    if has1[0] or not any(has1):
        why.append("CPU 1's row: %s" % "".join("1" if h else "-" for h in has1))
    st = []
    for r in recs:
        c = rows_by_cpu(r).get(0)
        st.append("-" if c is None else "o" if c.get("offline") else
                  {"ok": "k", "scaled": "k", "not_counted": "n"}.get(c["events"]["clock"]["state"], "?"))
    s = "".join(st)
    if not re.search(r"k+o+n?k", s):
        why.append("CPU 0 (k counted, o offline, n not counted): %s" % s)
    if why:
        print("; ".join(why))
        return 1
    print("CPU 1 from record %d; CPU 0: %s" % (has1.index(True) + 1, s))
    return 0


def cmd_pieces(args):
    """pieces CLIENT BOARD...: the client's records are the boards' (the replays of each
    connection's stream), in order: each connection's records in turn, everything the same but
    seq (which goes on, never repeating) and time (shifted by one offset per connection, later
    connections past the outage); the last connection may have sent more than the client
    took."""
    client = load(args[0])
    boards = [load(p) for p in args[1:]]
    m = monotonic(client)
    if m:
        print(m)
        return 1
    seqs = [r["seq"] for r in client]
    if seqs != list(range(seqs[0], seqs[0] + len(seqs))):
        print("seq %s" % seqs)
        return 1
    i = 0
    last_off = None
    for k, b in enumerate(boards):
        take = b if k < len(boards) - 1 else b[: len(client) - i]
        if not take or i + len(take) > len(client):
            print("connection %d: %d records, the client has %d left" % (k + 1, len(b), len(client) - i))
            return 1
        off = client[i]["time"] - take[0]["time"]
        if last_off is not None and not off > last_off:
            print("connection %d: time offset %.3f s, not past the one before (%.3f s)" % (k + 1, off, last_off))
            return 1
        for j, rb in enumerate(take):
            rc = client[i + j]
            t = rb["time"] + off  # both printed to 6 digits: the shift is as near as that
            if abs(rc["time"] - t) > 2e-5 * max(1.0, abs(t)):
                print("connection %d record %d: time %s, board time %s + %.6f" % (k + 1, j + 1, fmt(rc["time"]), fmt(rb["time"]), off))
                return 1
            rb = dict(rb, time=rc["time"])
            d = record_diffs(rb, rc, True, False)
            if d:
                p, x, y = d[0]
                print("connection %d record %d (client seq %s): %s: board %s, client %s" %
                      (k + 1, j + 1, rc["seq"], p, fmt(x), fmt(y)))
                return 1
        i += len(take)
        last_off = off
    if i != len(client):
        print("%d client records, %d from the boards" % (len(client), i))
        return 1
    print("%d records from %d connections" % (i, len(boards)))
    return 0


COMMANDS = {"same": cmd_same, "table": cmd_table, "offcore": cmd_offcore, "offcore-text": cmd_offcore_text,
            "offcore-json": cmd_offcore_json, "offcore-csv": cmd_offcore_csv, "has-strings": cmd_has_strings,
            "mig": cmd_mig, "no-event": cmd_no_event, "util-bound": cmd_util_bound,
            "interval": cmd_interval, "modes": cmd_modes, "hotplug": cmd_hotplug,
            "pieces": cmd_pieces}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit("usage: equiv.py %s ..." % "|".join(COMMANDS))
    sys.exit(COMMANDS[sys.argv[1]](sys.argv[2:]))

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# probe_bench.sh: runs the full cache probe N times idle and N times with its CPU busy (a `yes`
# loop on the same CPU) and prints, per level, how often it matched sysfs (hits/N).
# Usage: bench/probe_bench.sh [N] [extra probe options...]   (env PMUTOP_BIN, BUILD_DIR, CPU,
#        KEEP=DIR keeps each run's raw curve as DIR/{idle,busy}-I.curve)
# A hit: L1 within 15% of sysfs, L2 and deeper within 30%, the line size exactly; "flagged" counts
# the runs that said "disagrees with sysfs (evidence: ...)" instead. Not a test: timing varies.
set -u
N=${1:-5}
shift || true
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build}
BIN=${PMUTOP_BIN:-$BUILD/pmutop}
CPU=${CPU:-0}
TMP=$(mktemp -d)
YES=
cleanup() {
	[ -n "$YES" ] && kill "$YES" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
[ -x "$BIN" ] || { echo "build first: bash scripts/build.sh (no $BIN)" >&2; exit 1; }

# One run's JSON -> one line of figures; appends "mode level hit|flagged|miss" rows to $TMP/hits.
summary() {
	python3 - "$1" "$2" "$TMP/hits" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
mode, out = sys.argv[2], open(sys.argv[3], "a")
def sz(v):
    if not v: return "-"
    for u in ("B", "K", "M", "G"):
        if v < 1024: return ("%.0f" % v if abs(v - round(v)) < 0.05 else "%.1f" % v) + u
        v /= 1024
sysline = next((s["line"] for s in d["sysfs"] if s["level"] == 1), 0)
words = []
for l in d["levels"]:
    if not l["sysfs_size"]:
        continue
    tol = 0.15 if l["level"] == 1 else 0.30
    got, want = l["size"] or 0, l["sysfs_size"]
    ok = got > 0 and max(got / want, want / got) <= 1 + tol
    verdict = "hit" if ok else "flagged" if l["evidence"].startswith("disagrees") else "miss"
    out.write("%s L%d %s\n" % (mode, l["level"], verdict))
    words.append("L%d=%s/%s:%s%s" % (l["level"], sz(got), sz(want), verdict,
                                     ",unstable" if l["unstable"] else ""))
line_ok = d["line"] == sysline
out.write("%s line %s\n" % (mode, "hit" if line_ok else "miss"))
out.write("%s time %s\n" % (mode, "hit" if d["elapsed_s"] <= 15 else "miss"))
words.append("line=%s/%s:%s%s" % (d["line"], sysline, "hit" if line_ok else "miss",
                                  ",unstable" if d["line_unstable"] else ""))
print("%s again=%d probe=%.1fs" % (" ".join(words), d["remeasured_rounds"], d["elapsed_s"]))
EOF
}

for mode in idle busy; do
	if [ "$mode" = busy ]; then
		if command -v taskset >/dev/null; then
			taskset -c "$CPU" yes >/dev/null &
		else
			yes >/dev/null &
		fi
		YES=$!
	fi
	for i in $(seq 1 "$N"); do
		t0=$(date +%s.%N)
		dump=()
		[ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && dump=(--dump "$KEEP/$mode-$i.curve")
		"$BIN" probe cache --cpu "$CPU" --json "${dump[@]}" "$@" >"$TMP/out.json" 2>"$TMP/err" ||
			{ echo "$mode #$i failed: $(cat "$TMP/err")"; echo "$mode run miss" >>"$TMP/hits"; continue; }
		t1=$(date +%s.%N)
		printf '%-4s #%d wall %5.2fs  %s\n' "$mode" "$i" "$(echo "$t1 - $t0" | bc)" \
			"$(summary "$TMP/out.json" "$mode")"
	done
	[ -n "$YES" ] && kill "$YES" && wait "$YES" 2>/dev/null
	YES=
done

echo
echo "hits/$N (L1 within 15%, L2+ within 30%, line exact, probe <= 15 s; flagged = disagreement reported with evidence):"
python3 - "$TMP/hits" "$N" <<'EOF'
import collections, sys
rows = [l.split() for l in open(sys.argv[1])]
n = int(sys.argv[2])
keys = []
for _, k, _ in rows:
    if k not in keys and k != "run":
        keys.append(k)
print("%-5s" % "" + "".join("%16s" % k for k in keys))
for mode in ("idle", "busy"):
    c = collections.Counter((k, v) for m, k, v in rows if m == mode)
    cells = []
    for k in keys:
        cell = "%d/%d" % (c[(k, "hit")], n)
        if c[(k, "flagged")]:
            cell += " +%d flagged" % c[(k, "flagged")]
        cells.append("%16s" % cell)
    print("%-5s" % mode + "".join(cells))
EOF

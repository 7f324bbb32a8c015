#!/bin/bash
# probe_bench.sh: runs `pmutop probe cache` quick and full N times; prints the sizes found and wall times.
# Usage: bench/probe_bench.sh [N] [extra probe options...]   (env PMUTOP_BIN, BUILD_DIR)
set -u
N=${1:-3}
shift || true
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build}
BIN=${PMUTOP_BIN:-$BUILD/pmutop}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Use `pmutop probe cache` when main.c dispatches it; otherwise link a two-line driver to pmucore.
if [ -x "$BIN" ] && "$BIN" probe cache --help 2>/dev/null | grep -q 'usage: pmutop probe cache'; then
	RUN=("$BIN" probe cache)
else
	[ -f "$BUILD/libpmucore.a" ] || { echo "build first: cmake -S . -B build && cmake --build build" >&2; exit 1; }
	printf '#include "probe.h"\nint main(int c, char **v) { return probe_cli(c - 1, v + 1, stdout, stderr); }\n' >"$TMP/d.c"
	cc -O2 -D_GNU_SOURCE -I"$ROOT/include" "$TMP/d.c" "$BUILD/libpmucore.a" -lpfm -ljansson -lm -o "$TMP/probe" || exit 1
	RUN=("$TMP/probe" cache)
fi

summary() { # JSON on stdin -> one line of figures
	python3 -c '
import json, sys
d = json.load(sys.stdin)
def sz(v):
    if v is None: return "not found"
    for u in ("B", "K", "M", "G"):
        if v < 1024: return ("%.0f" % v if abs(v - round(v)) < 0.05 * v else "%.1f" % v) + u
        v /= 1024
lv = " ".join("L%d=%s(%s,%.2f)" % (l["level"], sz(l["size"]), l["sysfs"], l["confidence"]) for l in d["levels"])
tlb = "/".join("%s" % ("-" if t["entries"] is None else "%.0f" % t["entries"]) for t in d["tlb"])
mem = "-" if d["memory_ns"] is None else "%.0fns" % d["memory_ns"]
print("%s line=%s tlb=%s mem=%s probe=%.1fs%s" % (lv, d["line"], tlb, mem, d["elapsed_s"],
      "  WARN: " + d["warning"] if d["warning"] else ""))
'
}

for mode in quick full; do
	for i in $(seq 1 "$N"); do
		args=(--json "$@")
		[ "$mode" = quick ] && args+=(--quick)
		t0=$(date +%s.%N)
		"${RUN[@]}" "${args[@]}" >"$TMP/out.json" 2>"$TMP/err" || { echo "$mode #$i failed: $(cat "$TMP/err")"; continue; }
		t1=$(date +%s.%N)
		printf '%-5s #%d wall %5.2fs  %s\n' "$mode" "$i" "$(echo "$t1 - $t0" | bc)" "$(summary <"$TMP/out.json")"
	done
done

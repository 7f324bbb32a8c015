#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_likwid_real.sh: every group of every arch directory of the installed likwid package
# (/usr/share/likwid/perfgroups; scripts/deps.sh test installs it): how many load, how many map
# every event for their arch, how many evaluate (every metric a number) on sim data, against
# floors measured with likwid 5.2.2. Skips when the groups are not installed.
source "$(dirname "$0")/lib.sh"
ROOT=${PMUTOP_LIKWID_GROUPS:-/usr/share/likwid/perfgroups}
[ -d "$ROOT" ] || { echo "SKIP: $ROOT is absent (apt-get install likwid)"; exit 77; }
# the pmutop family whose events each likwid arch directory names (generic: none fits)
family_of() {
	case $1 in
	nehalem | nehalemEX) echo nhm ;; westmere | westmereEX) echo wsm ;;
	sandybridge | sandybridgeEP) echo snb ;; ivybridge | ivybridgeEP) echo ivb ;;
	haswell | haswellEP) echo hsw ;; broadwell | broadwellD | broadwellEP) echo bdw ;;
	skylake) echo skl ;; skylakeX | CLX) echo skx ;; ICL | icelake | RKL | TGL) echo icl ;;
	ICX | icelakeX) echo icx ;; SPR | sapphirerapids) echo spr ;; atom) echo atom ;;
	silvermont) echo slm ;; goldmont) echo glm ;; zen | zen2 | zen3 | zen4) echo zen ;;
	arm8 | arm8_n1 | arm8_tx2 | arm64fx | a64fx | neon) echo armv8 ;; *) echo generic ;;
	esac
}
# the tree gives a nominal clock (3.2 GHz), so inverseClock has a value
TREE=$T_SRC/tests/sysfs/x86-skylake
files=0 loaded=0 complete=0 ndirs=0
: >"$T_TMP/table"
: >"$T_TMP/jobs"
for d in "$ROOT"/*/; do
	arch=$(basename "$d")
	fam=$(family_of "$arch")
	ndirs=$((ndirs + 1))
	run_cmd --backend sim --sim-family "$fam" --sysfs-root "$TREE" --likwid-groups "$d" --list-modes
	summary=$(grep -oE 'likwid groups: [0-9]+ of [0-9]+ loaded .* [0-9]+ with every event mapped' "$T_TMP/err")
	if [ -z "$summary" ]; then
		fail "$arch: no load summary (exit $RC): $(head -c 300 "$T_TMP/err")"
		continue
	fi
	read -r l f c < <(sed -E 's/likwid groups: ([0-9]+) of ([0-9]+) loaded .*, ([0-9]+) with every.*/\1 \2 \3/' <<<"$summary")
	[ "$f" -eq "$(ls "$d" | grep -c '\.txt$')" ] || fail "$arch: $f files read, $(ls "$d" | grep -c '\.txt$') there"
	mkdir -p "$T_TMP/runs/$arch"
	for mode in $(grep -oE '^likwid:[A-Za-z0-9_.+-]+' "$T_TMP/out"); do
		# one group per run: a directory holding just its file (the runs start below)
		g=${mode#likwid:} one=$T_TMP/one/$arch/${mode#likwid:}
		mkdir -p "$one" && cp "$d/$g.txt" "$one/"
		echo "$arch $fam $mode $g $one" >>"$T_TMP/jobs"
	done
	echo "$arch $fam $f $l $c" >>"$T_TMP/table"
	files=$((files + f)) loaded=$((loaded + l)) complete=$((complete + c))
done
# run_group ARCH FAMILY MODE GROUP DIR: a run of the group alone, two ticks of 10 ms without
# waiting for them (--sim-unpaced), its JSON in runs/ARCH/GROUP.json; a failure's message in fails
run_group() {
	timeout 30 "$BIN" --backend sim --sim-family "$2" --sysfs-root "$TREE" --sim-cpus 1 \
		--likwid-groups "$5" -m "$3" -b -n 2 -i 10ms --sim-unpaced -f json \
		>"$T_TMP/runs/$1/$4.json" 2>"$T_TMP/runs/$1/$4.err" </dev/null ||
		echo "$1 $3: exit $?: $(head -c 300 "$T_TMP/runs/$1/$4.err")" >>"$T_TMP/fails"
	rm -f "$T_TMP/runs/$1/$4.err"
}
# the runs are independent: as many at a time as there are CPUs (each is mostly a process start)
export -f run_group
export BIN TREE T_TMP
: >"$T_TMP/fails"
[ -s "$T_TMP/jobs" ] && xargs -P "$(nproc)" -L 1 bash -c 'run_group "$@"' _ <"$T_TMP/jobs"
while IFS= read -r line; do fail "$line"; done <"$T_TMP/fails"
# evaluated: every metric of the last record's total row is a number
evaluated=$(python3 - "$T_TMP/table" "$T_TMP/runs" <<'PY'
import json, os, sys
rows = [l.split() for l in open(sys.argv[1])]
total = 0
print("%-20s %-8s %6s %6s %8s %9s" % ("ARCH", "FAMILY", "GROUPS", "LOADED", "MAPPED", "EVALUATED"), file=sys.stderr)
for arch, fam, f, l, c in rows:
    d = os.path.join(sys.argv[2], arch)
    e = 0
    for name in os.listdir(d):
        try:
            recs = [json.loads(x) for x in open(os.path.join(d, name))]
            m = recs[-1]["total"]["metrics"]
            e += bool(m) and all(v is not None for v in m.values())
        except (ValueError, IndexError, KeyError):
            pass
    total += e
    print("%-20s %-8s %6s %6s %8s %9d" % (arch, fam, f, l, c, e), file=sys.stderr)
print(total)
PY
)
printf '%-20s %-8s %6d %6d %8d %9d\n' "all ($ndirs)" "" "$files" "$loaded" "$complete" "$evaluated"
# floors measured with likwid 5.2.2 (Debian 12): 717 groups in 42 directories
if [ "$files" -ge 700 ]; then
	check "groups loaded: $loaded, at least 580" [ "$loaded" -ge 580 ]
	check "groups with every event mapped: $complete, at least 250" [ "$complete" -ge 250 ]
	check "groups evaluated on sim data: $evaluated, at least 580" [ "$evaluated" -ge 580 ]
else
	skip "only $files groups installed (floors measured on likwid 5.2.2's 717)"
fi
check "no more groups evaluate than load" [ "$evaluated" -le "$loaded" ]
t_done

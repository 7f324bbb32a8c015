# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_symlink.sh: pmutop never writes through a symbolic link someone planted: -r and :export
# refuse one unless --force (exit 2, the same rule for every output); flight recordings skip a name that exists, a link included.
source "$(dirname "$0")/lib.sh"

cd "$T_TMP" || exit 1
SIM=(-b --backend sim --sim-cpus 2 -i 100)
# plant NAME TARGET: a link NAME -> TARGET, TARGET holding "precious"
plant() {
	rm -f "$1" "$2"
	echo precious >"$2"
	ln -s "$2" "$1"
}
untouched() { [ "$(cat "$1")" = precious ]; }
still_link() { [ -L "$1" ]; }

# --- -r FILE that is a link ---------------------------------------------------------------------
plant rec.jsonl target
run_cmd "${SIM[@]}" -n 2 -r rec.jsonl
check "-r link: refused as -o is, exit 2 ($RC)" [ "$RC" = 2 ]
check "-r link: refused with a message naming --force" \
	grep -q 'cannot create recording rec.jsonl: it is a symbolic link, not written through (--force' \
	"$T_TMP/err"
check "-r link: the target is untouched" untouched target
check "-r link: the link stays" still_link rec.jsonl
run_cmd "${SIM[@]}" -n 2 -r rec.jsonl --force
check "-r link --force: exit 0 ($RC)" [ "$RC" = 0 ]
check "-r link --force: the recording goes where the link points" \
	grep -q '"type":"header"' target
check "-r link --force: no refusal" bash -c "! grep -q 'symbolic link' '$T_TMP/err'"
# a dangling link: the file it names is not created either
rm -f rec.jsonl nowhere
ln -s nowhere rec.jsonl
run_cmd "${SIM[@]}" -n 2 -r rec.jsonl
check "-r dangling link: refused" grep -q 'symbolic link' "$T_TMP/err"
check "-r dangling link: nothing created where it points" [ ! -e nowhere ]
# a plain file is still rewritten
echo old >plain.jsonl
run_cmd "${SIM[@]}" -n 2 -r plain.jsonl
check "-r plain file: rewritten" grep -q '"type":"header"' plain.jsonl

# --- :export spikes FILE that is a link ---------------------------------------------------------
plant spikes.csv target
run_cmd "${SIM[@]}" -n 1 -c "export spikes spikes.csv"
check "export link: a bad -c line, exit 2 ($RC)" [ "$RC" = 2 ]
check "export link: refused with a message" grep -q 'spikes.csv: it is a symbolic link' "$T_TMP/err"
check "export link: the target is untouched" untouched target
run_cmd "${SIM[@]}" -n 1 -c "export spikes spikes.csv" --force
check "export link --force: exit 0 ($RC)" [ "$RC" = 0 ]
check "export link --force: written where it points" bash -c "! grep -q precious target"

# --- flight recordings: names that exist are skipped --------------------------------------------
rm -f fl-* nowhere
echo precious >target
ln -s nowhere fl-1.jsonl
ln -s target fl-2.jsonl
run_cmd -b -n 12 --sample 10 --refresh 100 --backend sim --sim-cpus 4 -m cpi \
	--sim-spike 1:50:6 --alert "cpi > 3 on 1" --flight 1.5 --flight-out fl
check "flight: exit 0 ($RC)" [ "$RC" = 0 ]
check "flight: written to the first free name" grep -q 'flight recording fl-3.jsonl' "$T_TMP/err"
check "flight: fl-3.jsonl is a new regular file" bash -c "[ -f fl-3.jsonl ] && [ ! -L fl-3.jsonl ]"
check "flight: the linked file is untouched" untouched target
check "flight: nothing created where the dangling link points" [ ! -e nowhere ]
check "flight: both links stay" bash -c "[ -L fl-1.jsonl ] && [ -L fl-2.jsonl ]"
check "flight: the recording replays" "$BIN" -b -R fl-3.jsonl -n 1 -f json >/dev/null 2>&1

t_done

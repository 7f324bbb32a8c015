# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_hot_functions.sh: the code layout's list (src/hot-functions.txt): every name in it is still
# a function of pmutop (nm; or, inlined into every caller, in its debug information), so a
# rename cannot leave the list silently stale; and where the build links the list together
# (CMakeLists.txt, "Code layout"), each listed function pmutop and pmutop-agent have lies in
# their .text.tick section (readelf), with nothing else there.
source "$(dirname "$0")/lib.sh"
LIST=$T_SRC/src/hot-functions.txt
AGENT=${PMUTOP_AGENT_BIN:-$(dirname "$BIN")/pmutop-agent}
command -v nm >/dev/null && command -v readelf >/dev/null || {
	echo "SKIP: nm and readelf (binutils) are needed to read the binaries' symbols"
	exit 77
}
grep -v '^#' "$LIST" >"$T_TMP/names"
check "the list names functions" test -s "$T_TMP/names"
# a name the build would not take (CMakeLists.txt reads only C identifiers)
bad=$(grep -vE '^[A-Za-z_][A-Za-z0-9_]*$' "$T_TMP/names" | head -3)
check "hot-functions.txt holds only function names, one a line (not: ${bad:-})" test -z "$bad"

# NAME ADDR SYMBOL of a binary's defined functions: NAME is SYMBOL without GCC's clone suffixes
# (.constprop.0, .isra.0, .part.0, .cold)
functions() {
	nm -S --defined-only "$1" | awk 'NF == 4 && $3 ~ /^[TtWw]$/ { n = $4; sub(/\..*/, "", n); print n, $1, $4 }'
}
functions "$BIN" >"$T_TMP/pmutop.syms"
missing=$(awk 'NR == FNR { have[$1] = 1; next } !($1 in have)' "$T_TMP/pmutop.syms" "$T_TMP/names")
# a function another compiler or target inlines into all its callers has no symbol; its debug
# information (an abstract instance: DW_TAG_subprogram with DW_AT_inline) still names it
readelf --debug-dump=info "$BIN" 2>/dev/null | awk '
	/DW_TAG_subprogram/ { s = 1; n = ""; next }
	/DW_TAG_|Abbrev Number: 0/ { s = 0 }
	s && /DW_AT_name/ { n = $NF }
	s && /DW_AT_inline/ && n != "" { print n }' | sort -u >"$T_TMP/inlined"
for name in $missing; do
	if grep -qxF "$name" "$T_TMP/inlined"; then
		echo "note: $name is inlined into all its callers in this build"
		pass
		continue
	fi
	fail "src/hot-functions.txt names $name, which is no function of pmutop any more (renamed" \
		"or removed?): run bench/hot_functions.sh or edit the list"
done
[ -n "$missing" ] || pass

# the layout: on when the build's linker took the script (its CMake cache says so)
cache=$(dirname "$BIN")/CMakeCache.txt
layout=$(sed -n 's/^PMUTOP_HAVE_CODE_LAYOUT:INTERNAL=//p' "$cache" 2>/dev/null)
layout_on=$(sed -n 's/^PMUTOP_CODE_LAYOUT:BOOL=//p' "$cache" 2>/dev/null)
for bin in "$BIN" "$AGENT"; do
	# the section's first address and its end, 16 hex digits each (awk compares them as strings)
	sec=$(readelf -SW "$bin" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".text.tick" { print $3, $5 }')
	[ -z "$sec" ] || sec=$(printf '%016x %016x' $((16#${sec% *})) $((16#${sec% *} + 16#${sec#* })))
	if [ "$layout" != 1 ] || [ "$layout_on" = OFF ]; then
		check "$(basename "$bin") has no .text.tick section when the build does not link the list" test -z "$sec"
		continue
	fi
	if [ -z "$sec" ]; then
		fail "$(basename "$bin") has no .text.tick section although the build links the list"
		continue
	fi
	functions "$bin" | awk -v sec="$sec" -v who="$(basename "$bin")" '
		function hex16(x) { x = sprintf("%16s", tolower(x)); gsub(/ /, "0", x); return x }
		BEGIN { split(sec, s, " "); lo = s[1]; hi = s[2] } # 16 hex digits each
		NR == FNR { listed[$1] = 1; next }
		$3 ~ /\.cold/ { next } # the cold parts of functions stay with the other cold code
		{ a = hex16($2); inside = a >= lo && a < hi }
		($1 in listed) && !inside { print "FAIL: " who ": the listed " $1 " lies outside .text.tick"; bad = 1 }
		!($1 in listed) && inside { print "FAIL: " who ": " $1 ", not listed, lies in .text.tick"; bad = 1 }
		($1 in listed) && inside { n++ }
		END { if (!n) { print "FAIL: " who ": no listed function in .text.tick"; bad = 1 } exit bad }
	' "$T_TMP/names" - && pass || fail "$(basename "$bin")'s .text.tick holds the listed functions and no other"
done
t_done

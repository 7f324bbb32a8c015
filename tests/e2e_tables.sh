# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_tables.sh: what the option table generates agrees: every option README's option table names
# is in --help, the man page and bash completion (and every --help option in the other two, for
# both programs); every format README names completes after -f and runs; every setting README
# names is in the man page; the same for the backends.
source "$(dirname "$0")/lib.sh"
AGENT=${PMUTOP_AGENT_BIN:-$T_SRC/build/pmutop-agent}

# README's options table: the "| option | meaning |" rows up to the first blank line
awk '/^\| option \| meaning \|/ { on = 1; next } on && !NF { exit } on' "$T_SRC/README.md" \
	>"$T_TMP/readme.rows"
check "README has an option table" test -s "$T_TMP/readme.rows"
# the first column's options: -x and --long-name
cut -d'|' -f2 "$T_TMP/readme.rows" | grep -oE -- '(^|[^a-z-])--?[a-zA-Z][a-z0-9-]*' |
	grep -oE -- '--?[a-zA-Z][a-z0-9-]*' | sort -u >"$T_TMP/readme.opts"

# completion: the words offered for "-" (every option), and after an option
complete_words() { # PROGRAM SCRIPT WORD...: the completions of the last word
	local prog=$1 script=$2
	shift 2
	bash -c 'source "$1"; fn=_${2//-/_}; shift 2
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); $fn; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$script" "$prog" "$prog" "$@"
}

for prog in pmutop pmutop-agent; do
	bin=$BIN
	[ $prog = pmutop-agent ] && bin=$AGENT
	"$bin" --help >"$T_TMP/$prog.help"
	"$bin" --help-roff "$T_SRC/docs/man/$prog.1.in" >"$T_TMP/$prog.1"
	"$bin" --completion bash >"$T_TMP/$prog.bash"
	check "$prog --completion bash is valid bash" bash -n "$T_TMP/$prog.bash"
	complete_words $prog "$T_TMP/$prog.bash" - | sort -u >"$T_TMP/$prog.complete"
	grep -oE -- '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' "$T_TMP/$prog.help" |
		grep -oE -- '--?[a-zA-Z][a-z0-9-]*' | sort -u >"$T_TMP/$prog.opts"
	# the man page spells - as \-
	sed -n 's/^\.BR //p' "$T_TMP/$prog.1" | sed 's/\\-/-/g' |
		grep -oE -- '(^| )--?[a-zA-Z][a-z0-9-]*' | tr -d ' ' | sort -u >"$T_TMP/$prog.man"
	check "$prog --help lists options ($(wc -l <"$T_TMP/$prog.opts"))" \
		test "$(wc -l <"$T_TMP/$prog.opts")" -gt 40
	missing=$(comm -23 "$T_TMP/$prog.opts" "$T_TMP/$prog.man" | tr '\n' ' ')
	check "$prog: every --help option is in the man page (missing: $missing)" test -z "$missing"
	missing=$(comm -23 "$T_TMP/$prog.opts" "$T_TMP/$prog.complete" | tr '\n' ' ')
	check "$prog: every --help option completes (missing: $missing)" test -z "$missing"
	extra=$(comm -13 "$T_TMP/$prog.opts" "$T_TMP/$prog.complete" | tr '\n' ' ')
	check "$prog: completion offers no option --help lacks (extra: $extra)" test -z "$extra"
done

# README's options against pmutop (the agent leaves out the screen's)
for what in help man complete; do
	missing=$(comm -23 "$T_TMP/readme.opts" "$T_TMP/pmutop.$( [ $what = help ] && echo opts || echo $what)" |
		tr '\n' ' ')
	check "every option README names is in pmutop's $what (missing: $missing)" test -z "$missing"
done

# and back: every option of pmutop --help, by its short or its long name, is in README's table
# (the sim's in the --backend row's text)
grep -oE -- '(^|[^a-zA-Z0-9-])--?[a-zA-Z][a-z0-9-]*' "$T_TMP/readme.rows" |
	grep -oE -- '--?[a-zA-Z][a-z0-9-]*' | sort -u >"$T_TMP/readme.all"
missing=$(grep -oE -- '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' "$T_TMP/pmutop.help" | while read -r a b; do
	short=${a%,} long=${b:-$a}
	[ -n "$b" ] || short=
	grep -qx -- "$long" "$T_TMP/readme.all" ||
		{ [ -n "$short" ] && grep -qx -- "$short" "$T_TMP/readme.all"; } || echo "$long"
done | tr '\n' ' ')
check "every pmutop --help option is in README's option table (missing: $missing)" test -z "$missing"

# formats: README's -f row names them; each completes after -f and runs
formats=$(grep -oE -- '^\| `-f [a-z|\\]+`' "$T_TMP/readme.rows" | sed 's/.*-f //; s/[`\\]//g; s/|/ /g')
check "README names the formats ($formats)" test -n "$formats"
for f in $formats; do
	check "-f ${f:0:1} offers $f" bash -c "$(declare -f complete_words); complete_words pmutop '$T_TMP/pmutop.bash' -f ${f:0:1} | grep -qx $f"
	run_cmd -b --backend sim -n 1 -i 10ms -f "$f"
	check "-f $f runs (rc $RC)" bash -c "[ $RC -eq 0 ] && [ -s '$T_TMP/out' ]"
done

# backends: README's --backend row names them; each completes, and --help names each
backends=$(grep -oE -- '^\| `--backend [a-z|\\]+`' "$T_TMP/readme.rows" | sed 's/.*--backend //; s/[`\\]//g; s/|/ /g')
check "README names the backends ($backends)" test -n "$backends"
for b in $backends; do
	check "--backend ${b:0:1} offers $b" bash -c "$(declare -f complete_words); complete_words pmutop '$T_TMP/pmutop.bash' --backend ${b:0:1} | grep -qx $b"
	check "--help names backend $b" grep -qE -- "--backend NAME .*\b$b\b" "$T_TMP/pmutop.help"
done

# settings: README's set/show row names them; each is a setting of the man page
settings=$(grep -E '^\| `set OPTION VALUE`' "$T_SRC/README.md" | sed 's/.*runtime settings: //; s/on the screen also//; s/[;,|]/ /g')
check "README names the settings ($settings)" test -n "$settings"
sed -n '/^\.SH SETTINGS/,/^\.SH [^S]/p' "$T_TMP/pmutop.1" | sed -n '/^\.B /s/^\.B //p' |
	sed 's/\\-/-/g' >"$T_TMP/settings.man"
for s in $settings; do
	check "setting $s is in pmutop(1)" grep -qx "$s" "$T_TMP/settings.man"
done
# and the other way: every setting of the man page is in README's row
sed -n '/^\.SH SETTINGS/,/^\.SH [^S]/p' "$T_TMP/pmutop.1" | sed -n '/^\.TP/{n;s/^\.B //p}' |
	sed 's/\\-/-/g' >"$T_TMP/settings.tp"
check "pmutop(1) lists settings" test -s "$T_TMP/settings.tp"
while read -r s; do
	check "setting $s of pmutop(1) is in README's set/show row ($settings)" \
		grep -qw -- "$s" <<<"$settings"
done <"$T_TMP/settings.tp"
t_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_words.sh: the README, --help, the man page, :help (tmux, 80x24), probe cache --help and the
# bash completion say the same: exit statuses, --remote/--agent, -f formats, :offcore's
# response=, the views, Esc and the replay keys, the probe's largest working set.
source "$(dirname "$0")/lib.sh"
README=$T_SRC/README.md
"$BIN" --help >"$T_TMP/help" 2>&1
"$BIN" --help-roff "$T_SRC/docs/man/pmutop.1.in" >"$T_TMP/man" 2>&1 || fail "--help-roff"
# the man page's words without roff: no fonts, quotes or escapes, one blank between words
sed 's/\\f[IRB]//g; s/\\-/-/g; s/\\&//g; s/^\.BR //; s/"//g; s/  */ /g' "$T_TMP/man" >"$T_TMP/man.txt"
"$BIN" probe cache --help >"$T_TMP/probe" 2>&1

# exit statuses: the README's list (its "Exit status:" paragraph) is in --help and the man page
codes=$(sed -n '/^Exit status:/,/^$/p' "$README" | grep -oE '(: |, )[0-9] ' | grep -oE '[0-9]' | tr '\n' ' ')
check "README exit statuses: '$codes'" test "$codes" = "0 1 2 3 "
for c in $codes; do
	check "--help lacks exit status $c" grep -qE "(Exit status: |, |^)$c [a-z]" "$T_TMP/help"
	check "man page lacks exit status $c" \
		python3 -c 'import sys; s=open(sys.argv[1]).read(); sec=s.split(".SH EXIT STATUS")[1].split(".SH")[0]
sys.exit(".TP\n.B %s\n" % sys.argv[2] not in sec)' "$T_TMP/man" "$c"
done

# --remote and --agent: the README's table row and --help name the same arguments
row=$(grep -E '^\| `--remote ' "$README")
for opt in remote agent transport; do
	r=$(grep -oE -- "--$opt [^\`]+" <<<"$row")
	h=$(grep -oE -- "--$opt [^ ]+" "$T_TMP/help" | head -1)
	check "--$opt: README '$r', --help '$h'" test -n "$r" -a "$r" = "$h"
	check "--$opt: man page lacks '$r'" grep -qF -- "$r" "$T_TMP/man.txt"
done
grep -qE -- '--agent PATH' "$README" && fail "README still says --agent PATH"

# -f: the README's formats are what completion offers
formats=$(grep -oE '^\| `-f [a-z|\\]+`' "$README" | sed 's/^| `-f //; s/`$//; s/\\//g' | tr '|' '\n' | sort | tr '\n' ' ')
"$BIN" --completion bash >"$T_TMP/completion.bash"
comp=$(bash -c 'source "$1"; COMP_WORDS=(pmutop -f ""); COMP_CWORD=2; _pmutop; printf "%s\n" "${COMPREPLY[@]}"' \
	_ "$T_TMP/completion.bash" | sort | tr '\n' ' ')
check "-f: README '$formats', completion '$comp'" test -n "$formats" -a "$formats" = "$comp"
for f in $formats; do
	check "--help -f lacks $f" grep -qE -- "--format FMT .*\b$f\b" "$T_TMP/help"
done

# Esc and the replay keys (README's key table) are in the man page's KEYS
keysec=$(python3 -c 'import sys; print(open(sys.argv[1]).read().split(".SH KEYS")[1].split(".SH")[0])' "$T_TMP/man.txt")
check "man KEYS lacks Esc" grep -qE '^\.B esc$' <<<"$keysec"
rkeys=$(grep -E "^\| \`\.\` " "$README" | sed 's/ | replay.*//' | grep -oE '`[^`]+`' | tr -d '`')
check "README replay keys: '$(echo $rkeys)'" test "$(echo $rkeys)" = ". , [ ] g G '"
for k in $rkeys; do
	check "man KEYS lacks the replay key $k" grep -qxF ".B $k" <<<"$keysec"
done

# the probe's largest working set: the same words in the README and probe cache --help
for w in "default 8M quick, 64M full" "a quarter of memory and of the address space"; do
	check "README lacks '$w'" grep -qF "$w" <(tr '\n' ' ' <"$README" | sed 's/  */ /g')
	check "probe cache --help lacks '$w'" grep -qF "$w" <(tr '\n' ' ' <"$T_TMP/probe" | sed 's/  */ /g')
done

# --error: --help and the man page say what a summed row gets, as README's Error bars do (its CPUs'
# variances added, the CPUs taken as independent)
check "README: summed rows' intervals" grep -q "the CPUs' estimates are taken as independent" "$README"
check "--help: --error on a summed row" grep -qE -- "--error .*a summed row .* adds its CPUs' variances, taken as independent" "$T_TMP/help"
check "man page: --error on a summed row" grep -qF -- "a summed row (--per-core, --per-socket, ..., a task, a cgroup, the all row) adds its CPUs' variances, taken as independent" "$T_TMP/man.txt"

# :help on the screen: :offcore's response= and the views of the README's ":view NAME" row
views=$(grep -E '^\| `view NAME` ' "$README" | sed 's/^| `view NAME` | //; s/ |$//')
source "$(dirname "$0")/tmuxlib.sh"
tmux_open 80 24
start --no-rc --backend sim --sim-cpus 2 -i 200
keys ":help offcore" Enter
check ":help offcore lacks response=NAME" wait_for 'offcore \[BIT\.\.\.\] \[response=NAME\]' 5
keys Escape
keys ":help view" Enter
check ":help view: the README's views ($views)" wait_for "\\($views\\)" 5
keys Escape
keys q
quit_check "words"
t_done

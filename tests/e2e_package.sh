#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_package.sh: the Debian packages (cpack -G DEB) and the installed layout: dependencies, file
# lists, a scratch-root install that runs, data found relative to the binary, rc order, the
# manual pages against --help, and bash completion.
source "$(dirname "$0")/lib.sh"

BUILD=$(dirname "$BIN")
for tool in cpack dpkg-deb dpkg-shlibdeps man; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: $tool is not installed (scripts/deps.sh installs it)"
		exit 77
	fi
done

# --- build the packages from this build tree --------------------------------------------------
DEBS=$T_TMP/debs
if ! (cd "$BUILD" && cpack -G DEB -B "$DEBS" >"$T_TMP/cpack.log" 2>&1); then
	fail "cpack -G DEB failed:"
	tail -20 "$T_TMP/cpack.log"
	t_done
fi
main_deb=$(ls "$DEBS"/pmutop_*.deb 2>/dev/null | head -1)
agent_deb=$(ls "$DEBS"/pmutop-agent_*.deb 2>/dev/null | head -1)
check "cpack made pmutop_*.deb" [ -f "$main_deb" ]
check "cpack made pmutop-agent_*.deb" [ -f "$agent_deb" ]
[ -f "$main_deb" ] && [ -f "$agent_deb" ] || t_done

# --- dependencies: the agent needs neither ncurses nor libedit ---------------------------------
main_dep=$(dpkg-deb -f "$main_deb" Depends)
agent_dep=$(dpkg-deb -f "$agent_deb" Depends)
check "pmutop depends on ncurses ($main_dep)" grep -q 'libncursesw6' <<<"$main_dep"
check "pmutop depends on libedit ($main_dep)" grep -q 'libedit2' <<<"$main_dep"
check "pmutop depends on libpfm4 ($main_dep)" grep -q 'libpfm4' <<<"$main_dep"
check "pmutop-agent depends on libpfm4 ($agent_dep)" grep -q 'libpfm4' <<<"$agent_dep"
check "pmutop-agent depends on neither ncurses nor libedit ($agent_dep)" \
	bash -c "! grep -Eq 'ncurses|tinfo|libedit' <<<'$agent_dep'"

# --- file lists ----------------------------------------------------------------------------------
dpkg-deb -c "$main_deb" | awk '{print $6}' >"$T_TMP/main.list"
dpkg-deb -c "$agent_deb" | awk '{print $6}' >"$T_TMP/agent.list"
for f in ./usr/bin/pmutop ./usr/share/man/man1/pmutop.1.gz \
	./usr/share/bash-completion/completions/pmutop ./usr/share/doc/pmutop/copyright \
	./usr/share/doc/pmutop/README.md ./usr/share/doc/pmutop/topdown.md \
	./usr/share/doc/pmutop/metric-libraries.md ./usr/share/pmutop/modes/sw.mode \
	./usr/share/pmutop/modes/topdown.mode ./usr/share/pmutop/themes/mono.theme; do
	check "pmutop package has $f" grep -qxF "$f" "$T_TMP/main.list"
done
for f in ./usr/bin/pmutop-agent ./usr/share/man/man1/pmutop-agent.1.gz \
	./usr/share/doc/pmutop-agent/copyright; do
	check "pmutop-agent package has $f" grep -qxF "$f" "$T_TMP/agent.list"
done
check "the packages share no file" \
	bash -c "! comm -12 <(grep -v '/\$' '$T_TMP/main.list' | sort) <(grep -v '/\$' '$T_TMP/agent.list' | sort) | grep -q ."
for m in "$T_SRC"/modes/*.mode; do
	check "installed mode $(basename "$m")" grep -qxF "./usr/share/pmutop/modes/$(basename "$m")" "$T_TMP/main.list"
done

# --- a scratch root: the installed binaries run and find their data -----------------------------
ROOT=$T_TMP/root
mkdir -p "$ROOT"
dpkg-deb -x "$main_deb" "$ROOT"
dpkg-deb -x "$agent_deb" "$ROOT"
P=$ROOT/usr/bin/pmutop
A=$ROOT/usr/bin/pmutop-agent
unset PMUTOP_DATADIR
export PMUTOP_SYSCONFDIR=$T_TMP/etc
mkdir -p "$PMUTOP_SYSCONFDIR"

check "installed pmutop --version names the licence" bash -c "'$P' --version | grep -q 'GPL-2.0-or-later'"
check "installed pmutop-agent --version" bash -c "'$A' --version | grep -q '^pmutop-agent '"
timeout 30 "$P" -b -n 2 -i 100 --backend sim >"$T_TMP/out" 2>"$T_TMP/err"
check "installed pmutop runs a sim batch (rc $?)" [ "$(grep -c '^time ' "$T_TMP/out")" -eq 2 ]
timeout 30 "$A" -b -n 2 -i 100 --backend sim -f json >"$T_TMP/out" 2>"$T_TMP/err"
check "installed pmutop-agent runs a sim batch" [ "$(wc -l <"$T_TMP/out")" -eq 2 ]

# An installed mode file is read; the user's file of the same name replaces it.
cat >"$ROOT/usr/share/pmutop/modes/pkgcheck.mode" <<'MODE'
[mode]
name  = pkgcheck
title = Installed-copy title
[events *]
cs = perf::CONTEXT-SWITCHES
[metric cs_per_s]
expr = cs / ncpus / interval
unit = /s
MODE
"$P" --list-modes --backend sim >"$T_TMP/modes" 2>&1
check "an installed mode file is read ($(grep pkgcheck "$T_TMP/modes"))" grep -q 'Installed-copy title' "$T_TMP/modes"
mkdir -p "$XDG_CONFIG_HOME/pmutop/modes"
sed 's/Installed-copy title/User-copy title/' "$ROOT/usr/share/pmutop/modes/pkgcheck.mode" \
	>"$XDG_CONFIG_HOME/pmutop/modes/pkgcheck.mode"
"$P" --list-modes --backend sim >"$T_TMP/modes" 2>&1
check "the user's mode replaces the installed one of the same name" \
	bash -c "grep -q 'User-copy title' '$T_TMP/modes' && ! grep -q 'Installed-copy title' '$T_TMP/modes'"
rm -r "$XDG_CONFIG_HOME/pmutop/modes"
# an edited installed copy of a built-in mode replaces the compiled-in one
sed -i 's/^title = .*/title = Edited installed sw/' "$ROOT/usr/share/pmutop/modes/sw.mode"
"$P" --list-modes --backend sim >"$T_TMP/modes" 2>&1
check "an edited installed sw.mode replaces the compiled-in copy" grep -q 'Edited installed sw' "$T_TMP/modes"

# A theme file installed beside the binary is listed.
cp "$ROOT/usr/share/pmutop/themes/mono.theme" "$ROOT/usr/share/pmutop/themes/pkgtheme.theme"
check "an installed theme is listed" bash -c "'$P' --list-themes | grep -qx pkgtheme"

# A relocated tree works, and PMUTOP_DATADIR overrides the binary's place.
mkdir -p "$T_TMP/opt"
mv "$ROOT/usr" "$T_TMP/opt/pmutop"
R=$T_TMP/opt/pmutop/bin/pmutop
check "a relocated tree finds its modes" bash -c "'$R' --list-modes --backend sim 2>&1 | grep -q pkgcheck"
mkdir -p "$T_TMP/data/modes"
sed 's/pkgcheck/envcheck/' "$T_TMP/opt/pmutop/share/pmutop/modes/pkgcheck.mode" >"$T_TMP/data/modes/envcheck.mode"
PMUTOP_DATADIR=$T_TMP/data "$R" --list-modes --backend sim >"$T_TMP/modes" 2>&1
check "PMUTOP_DATADIR replaces the directory beside the binary" \
	bash -c "grep -q envcheck '$T_TMP/modes' && ! grep -q pkgcheck '$T_TMP/modes'"

# rc files: the system-wide one runs first, then the user's; --no-rc reads neither.
echo "interval 300" >"$PMUTOP_SYSCONFDIR/pmutoprc"
timeout 30 "$R" -b -n 1 --backend sim >"$T_TMP/out" 2>&1
check "the system rc file is read ($(head -1 "$T_TMP/out"))" grep -q 'interval 300.0 ms' "$T_TMP/out"
mkdir -p "$XDG_CONFIG_HOME/pmutop"
echo "interval 400" >"$XDG_CONFIG_HOME/pmutop/pmutoprc"
timeout 30 "$R" -b -n 1 --backend sim >"$T_TMP/out" 2>&1
check "the user's rc runs after the system rc ($(head -1 "$T_TMP/out"))" grep -q 'interval 400.0 ms' "$T_TMP/out"
timeout 30 "$R" -b -n 1 --backend sim --no-rc >"$T_TMP/out" 2>&1
check "--no-rc reads neither rc file" grep -q 'interval 1000.0 ms' "$T_TMP/out"
echo "nosuchcommand" >"$PMUTOP_SYSCONFDIR/pmutoprc"
timeout 30 "$R" -b -n 1 --backend sim >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
check "a bad line in the system rc is a usage error naming the file and line (rc $rc)" \
	bash -c "[ $rc -eq 2 ] && grep -q '$PMUTOP_SYSCONFDIR/pmutoprc:1:' '$T_TMP/err'"
rm -f "$PMUTOP_SYSCONFDIR/pmutoprc" "$XDG_CONFIG_HOME/pmutop/pmutoprc"

# --- manual pages: they render and list exactly what --help lists -------------------------------
MAN1=$T_TMP/opt/pmutop/share/man/man1
for prog in pmutop pmutop-agent; do
	MANWIDTH=200 man -l "$MAN1/$prog.1.gz" >"$T_TMP/$prog.man" 2>"$T_TMP/$prog.manerr"
	check "man -l $prog.1.gz renders without warnings ($(head -c 200 "$T_TMP/$prog.manerr"))" \
		bash -c "[ -s '$T_TMP/$prog.man' ] && [ ! -s '$T_TMP/$prog.manerr' ]"
	"$T_TMP/opt/pmutop/bin/$prog" --help | grep -oE -- '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' |
		grep -oE -- '--[a-z0-9-]+' | sort -u >"$T_TMP/$prog.help-opts"
	# the OPTIONS section only: the DESCRIPTION may name other programs' options
	awk '/^OPTIONS/ { on = 1; next } /^[A-Z]/ { on = 0 } on' "$T_TMP/$prog.man" |
		grep -oE -- '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' |
		grep -oE -- '--[a-z0-9-]+' | sort -u >"$T_TMP/$prog.man-opts"
	check "$prog(1) lists the options --help lists ($(diff "$T_TMP/$prog.help-opts" "$T_TMP/$prog.man-opts" | tr '\n' ' '))" \
		cmp -s "$T_TMP/$prog.help-opts" "$T_TMP/$prog.man-opts"
	for section in NAME SYNOPSIS DESCRIPTION OPTIONS EXAMPLES FILES ENVIRONMENT "EXIT STATUS"; do
		check "$prog(1) has a $section section" grep -q "^$section" "$T_TMP/$prog.man"
	done
done
check "pmutop-agent --help leaves out the screen's options" \
	bash -c "! grep -Eq -- '--(theme|remote|transport)' '$T_TMP/pmutop-agent.help-opts'"
check "pmutop(1) has the screen's keys" grep -q 'toggle-pause' "$T_TMP/pmutop.man"
check "pmutop(1) has the TROUBLESHOOTING section" grep -q '^TROUBLESHOOTING' "$T_TMP/pmutop.man"
timeout 10 "$T_TMP/opt/pmutop/bin/pmutop-agent" -b --theme mono >/dev/null 2>"$T_TMP/err"
rc=$?
check "pmutop-agent refuses a screen option with a reason (rc $rc: $(cat "$T_TMP/err"))" \
	bash -c "[ $rc -eq 2 ] && grep -q 'no screen' '$T_TMP/err'"

# --- bash completion, against the installed binaries ---------------------------------------------
COMPL=$T_TMP/opt/pmutop/share/bash-completion/completions
complete_words() { # PROGRAM WORD...: prints the completions of the last word
	PATH=$T_TMP/opt/pmutop/bin:$PATH bash -c '
		source "$1/$2"; fn=_${2//-/_}; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		$fn; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPL" "$@"
}
export -f complete_words
export COMPL T_TMP
check "completion: --mo completes to --mode and --mode-file ($(complete_words pmutop --mo | tr '\n' ' '))" \
	bash -c "[ \"\$(complete_words pmutop --mo | tr '\n' ' ')\" = '--mode --mode-file ' ]"
check "completion: -m s offers the sw and stall modes ($(complete_words pmutop -m s | tr '\n' ' '))" \
	bash -c "complete_words pmutop -m s | grep -qx sw && complete_words pmutop -m s | grep -qx stall"
check "completion: --theme m offers mono" bash -c "[ \"\$(complete_words pmutop --theme m)\" = mono ]"
check "completion: -e perf::CONTEXT-S offers the event" \
	bash -c "complete_words pmutop -e perf::CONTEXT-S | grep -qx perf::CONTEXT-SWITCHES"
check "completion: the agent's options leave out --theme" \
	bash -c "! complete_words pmutop-agent --the | grep -q ."
check "completion: the agent completes its own options (--iterations)" \
	bash -c "[ \"\$(complete_words pmutop-agent --iter)\" = --iterations ]"
check "completion: -f o offers openmetrics" \
	bash -c "[ \"\$(complete_words pmutop -f o)\" = openmetrics ]"

# --- lintian, where it is installed ---------------------------------------------------------------
if command -v lintian >/dev/null; then
	lintian --no-tag-display-limit "$main_deb" "$agent_deb" >"$T_TMP/lintian" 2>&1
	# the findings README.md lists with their reason
	grep -E '^[EW]:' "$T_TMP/lintian" | grep -vE \
		'bogus-mail-host' \
		>"$T_TMP/lintian.unlisted"
	check "lintian: no error or warning beyond those README lists ($(head -5 "$T_TMP/lintian.unlisted" | tr '\n' ' '))" \
		bash -c "[ ! -s '$T_TMP/lintian.unlisted' ]"
else
	skip "lintian is not installed: the package findings were not checked"
fi
t_done

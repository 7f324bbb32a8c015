#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_layers.sh: the spine's rules, read from the source text of the tree: a source (backends/*,
# the remote client src/record/remote.c) and the recorder never include the app's header (they
# ask the engine through observer.h); the recorder and the remote client (src/record/recorder.c,
# remote.c) never write a field of the run nor read its message ring (they go through engine
# functions: app_quit, app_observe); and the engine (src/engine) includes no header of its readers
# (jitter, output, record, cmd, view, probe, ui): they are observers it does not name. Prints
# the folders' import graph (a file in folder A includes a header whose .c lives in folder B:
# A -> B) and the cycles across folders still in it; -v also prints which file makes each arrow.
set -u
SRC=${PMUTOP_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
VERBOSE=0
[ "${1:-}" = -v ] && VERBOSE=1
cd "$SRC" || exit 1
FAIL=0

# --- 1. sources and the recorder never include the app's header nor reach into the run --------
INC_APP='^[[:space:]]*#[[:space:]]*include[[:space:]]*"(app|run|ui|uistate)\.h"'
for f in backends/*.c include/source.h include/replay.h src/record/remote.c include/remote.h \
	src/record/recorder.c include/recorder.h; do
	if grep -qE "$INC_APP" "$f"; then
		echo "FAIL: $f (a source or the recorder) includes the app's header: $(grep -nE "$INC_APP" "$f" | tr '\n' ' ')"
		FAIL=1
	fi
done
# a write of a field of the run (app->x = / += / ++), or its message ring
WRITE='app->[a-z_]+(\.[a-z_]+|\[[^]]*\])*[[:space:]]*([-+*/|&]?=[^=]|\+\+|--)|app->(messages|message_head|nmessages)'
for f in src/record/recorder.c src/record/remote.c; do
	if grep -nE "$WRITE" "$f" | grep -v '^[0-9]*:[[:space:]]*/[*]' >"${TMPDIR:-/tmp}/layers.$$"; then
		echo "FAIL: $f reaches into the run:"
		sed 's/^/  /' "${TMPDIR:-/tmp}/layers.$$"
		FAIL=1
	fi
	rm -f "${TMPDIR:-/tmp}/layers.$$"
done

# --- 2. the folder graph ------------------------------------------------------------------------
# folder of a .c file: src/X/... -> X, src/main.c and src/options.c -> main, backends, ui
folder_of_c() {
	case $1 in
	src/*/*) local p=${1#src/}; echo "${p%%/*}" ;;
	src/*) echo main ;;
	backends/*) echo backends ;;
	ui/*) echo ui ;;
	*) echo "" ;;
	esac
}
declare -A HFOLDER # header name -> folder of its .c (a header without one has none)
while read -r c; do
	h=$(basename "${c%.c}").h
	[ -f "include/$h" ] && HFOLDER[$h]=$(folder_of_c "$c")
done < <(find src backends ui -name '*.c' | sort)
# a header without a .c of its name (observer.h, metric_class.h) is an interface: no arrows
declare -A EDGE WHY
add_edge() { # FROM TO FILE HEADER
	[ -n "$1" ] && [ -n "$2" ] && [ "$1" != "$2" ] || return 0
	EDGE["$1 $2"]=1
	WHY["$1 $2"]+=" $3:$4"
}
while read -r f; do
	case $f in
	include/*.h) from=${HFOLDER[$(basename "$f")]:-} ;;
	*) from=$(folder_of_c "$f") ;;
	esac
	[ -n "$from" ] || continue
	while read -r h; do
		add_edge "$from" "${HFOLDER[$h]:-}" "$f" "$h"
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done < <(find src backends ui include -name '*.[ch]' | sort)

FOLDERS=$(printf '%s\n' "${!EDGE[@]}" | tr ' ' '\n' | sort -u)
echo "folder import graph (A -> B: A includes a header of B):"
for a in $FOLDERS; do
	outs=""
	for b in $FOLDERS; do
		[ -n "${EDGE["$a $b"]:-}" ] && outs+=" $b"
	done
	echo "  $a ->$outs"
	if [ $VERBOSE = 1 ]; then
		for b in $FOLDERS; do
			[ -n "${EDGE["$a $b"]:-}" ] && echo "    $a -> $b:${WHY["$a $b"]}"
		done
	fi
done
# reachability (Floyd-Warshall over the few folders): a folder that reaches itself is on a cycle
declare -A R
for k in "${!EDGE[@]}"; do R[$k]=1; done
for k in $FOLDERS; do
	for i in $FOLDERS; do
		[ -n "${R["$i $k"]:-}" ] || continue
		for j in $FOLDERS; do
			[ -n "${R["$k $j"]:-}" ] && R["$i $j"]=1
		done
	done
done
# --- 3. the engine names none of its readers --------------------------------------------------
for b in jitter output record cmd view probe ui; do
	if [ -n "${EDGE["engine $b"]:-}" ]; then
		echo "FAIL: the engine includes headers of $b:${WHY["engine $b"]}"
		FAIL=1
	fi
done
# the cycles across folders that remain (not a rule yet: printed so that they show)
for a in $FOLDERS; do
	if [ -n "${R["$a $a"]:-}" ]; then
		on=""
		for b in $FOLDERS; do
			[ "$a" != "$b" ] && [ -n "${R["$a $b"]:-}" ] && [ -n "${R["$b $a"]:-}" ] && on+=" $b"
		done
		echo "note: folder $a is on an import cycle with:$on"
	fi
done
[ $FAIL = 0 ] && echo "ok: no source and not the recorder includes the app's header; the recorder and the remote client write no field of the run; the engine includes no header of its readers"
exit $FAIL

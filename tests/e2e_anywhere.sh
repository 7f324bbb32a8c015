# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_anywhere.sh: the suite holds on any machine. 1. A procfs/sysfs tree (--sysfs-root) standing
# for this machine under another host name and kernel release, short and very long: the recording
# header says them, the screen header in tmux at 100x30 and 40x10 stays one line cut with "…".
# 2. Part of the suite (screen, CLI, recordings) again under another host name (unshare --uts).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tmuxlib.sh"
tmux_open 100 30

# 63 characters (the kernel allows 64); a release of 120 (pmutop keeps 127 of a tree's file)
LONG_HOST=a-host-name-of-sixty-three-characters-that-no-machine-has-here0
LONG_RELEASE=6.18.0-rc7-$(printf 'x%.0s' {1..68})-a-release-string-of-a-hundred-and-twenty
# make_tree DIR HOST RELEASE: the VM fixture with this machine's CPU lists (so the live software
# events open here), HOST and RELEASE as /proc/sys/kernel/{hostname,osrelease}.
make_tree() {
	local d=$1 f
	cp -r "$T_SRC/tests/sysfs/x86-vm-nopmu" "$d"
	for f in online possible present; do
		cp "/sys/devices/system/cpu/$f" "$d/sys/devices/system/cpu/$f"
	done
	printf '%s\n' "$2" >"$d/proc/sys/kernel/hostname"
	printf '%s\n' "$3" >"$d/proc/sys/kernel/osrelease"
}
# header_field FILE KEY: a field of a recording's header line.
header_field() { python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())[sys.argv[2]])' "$1" "$2"; }

# ==== 1. a tree with another host name and kernel release =====================================
for c in "h|1" "$LONG_HOST|$LONG_RELEASE"; do
	host=${c%%|*} release=${c#*|}
	tree=$T_TMP/tree-${#release}
	make_tree "$tree" "$host" "$release"
	tag="host ${#host} chars, release ${#release} chars"

	run_cmd -b -n 1 -i 50 --sysfs-root "$tree" --record "$T_TMP/rec-${#release}.jsonl"
	check "$tag: batch exit 0 (got $RC: $(head -c 200 "$T_TMP/err"))" [ "$RC" -eq 0 ]
	check "$tag: the recording's host is the tree's" \
		[ "$(header_field "$T_TMP/rec-${#release}.jsonl" host)" = "$host" ]
	check "$tag: the recording's kernel is the tree's" \
		[ "$(header_field "$T_TMP/rec-${#release}.jsonl" kernel)" = "$release" ]

	"${TM[@]}" resize-window -x 100 -y 30
	check "$tag: 100x30: the table appears" start --sysfs-root "'$tree'" -i 200
	if [ ${#release} -lt 20 ]; then
		check "$tag: 100x30: header names host and release" \
			wait_for "^pmutop $host  $release  .*software"
	else
		check "$tag: 100x30: header cut at 100 columns" wait_for '^pmutop a-host.{80,}…$'
	fi
	check "$tag: 100x30: line 2 is the mode line" wait_for '^mode sw '
	full=$(line 1)
	"${TM[@]}" resize-window -x 40 -y 10
	check "$tag: 40x10: header at 40 columns" header_cut "$full" 40
	check "$tag: 40x10: line 2 is the mode line" wait_for '^mode sw '
	check "$tag: 40x10: the table is redrawn" wait_for '^ +all '
	keys q
	quit_check "$tag: q"
done

# ==== 2. part of the suite under another host name ===========================================
why=
if ! command -v unshare >/dev/null; then
	why="unshare is not installed (util-linux)"
elif ! unshare --uts true 2>"$T_TMP/unshare.err"; then
	why="unshare --uts fails here (needs root or user namespaces): $(head -c 200 "$T_TMP/unshare.err")"
fi
if [ -n "$why" ]; then
	skip "the suite under another host name: $why"
else
	# in_uts HOST CMD...: CMD in a UTS namespace whose host name is HOST
	in_uts() { unshare --uts bash -c 'hostname "$1" && shift && exec "$@"' in_uts "$@"; }
	export PMUTOP_BIN=$BIN PMUTOP_SRC=$T_SRC
	in_uts "$LONG_HOST" "$BIN" -b -n 1 -i 50 --record "$T_TMP/uts.jsonl" >/dev/null 2>"$T_TMP/err"
	check "unshare --uts: the recording's host is the namespace's ($(head -c 200 "$T_TMP/err"))" \
		[ "$(header_field "$T_TMP/uts.jsonl" host 2>/dev/null)" = "$LONG_HOST" ]
	for s in e2e_tmux e2e_cli e2e_record; do
		if in_uts "$LONG_HOST" bash "$T_SRC/tests/$s.sh" >"$T_TMP/$s.log" 2>&1; then
			pass
		else
			fail "$s.sh under host name $LONG_HOST:"
			grep -E '^(FAIL|SKIP|--- pane|\| )' "$T_TMP/$s.log" | head -40
			tail -1 "$T_TMP/$s.log"
		fi
	done
fi
t_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_resident.sh: pmutop asks malloc for blocks of 32 KiB and more in pages of their own
# (mallopt M_MMAP_THRESHOLD), so the parts of large zeroed state it never writes stay unmapped:
# strace sees anonymous mappings of 32-128 KiB (glibc's default threshold, 128 KiB, makes none),
# and no more of them over 40 ticks than over 4 (none is made per tick).
source "$(dirname "$0")/lib.sh"

if ! command -v strace >/dev/null; then
	skip "strace is not installed, so the mappings cannot be seen"
	t_done
fi
# mmap(NULL, SIZE, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0): glibc's own blocks
blocks() {
	strace -f -e trace=mmap -o "$T_TMP/mmap.$1" "$BIN" --no-rc -b -n "$1" -i 10 --backend sim \
		--sim-cpus 2 -f json >/dev/null 2>&1 </dev/null
	grep 'MAP_PRIVATE|MAP_ANONYMOUS, -1, 0)' "$T_TMP/mmap.$1" |
		sed -nE 's/.*mmap\(NULL, ([0-9]+),.*/\1/p' | awk '$1 > 32768 && $1 <= 131072' | wc -l
}
few=$(blocks 4)
many=$(blocks 40)
check "blocks of 32-128 KiB are mapped on their own ($few mappings)" test "$few" -ge 1
check "none per tick: $few mappings over 4 ticks, $many over 40" test "$many" -eq "$few"
t_done

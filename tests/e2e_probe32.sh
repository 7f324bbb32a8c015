#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_probe32.sh: the probe engine built for a 32-bit address space (gcc -m32) runs its quick sweep
# and line test, and caps the working set by that address space (a quarter of it, or of memory);
# under qemu-i386 where the kernel runs no 32-bit x86 program.
source "$(dirname "$0")/lib.sh"

CC32=${CC:-cc}
if ! echo 'int main(void) { return 0; }' | "$CC32" -m32 -x c - -o "$T_TMP/hello" 2>/dev/null; then
	echo "SKIP: no 32-bit C compiler ($CC32 -m32; on Debian: apt-get install gcc-multilib)"
	exit 77
fi
# a kernel built without IA32 emulation runs no 32-bit x86 program: then under qemu-user
RUN32=()
if ! "$T_TMP/hello" 2>/dev/null; then
	if command -v qemu-i386 >/dev/null && qemu-i386 "$T_TMP/hello" 2>/dev/null; then
		RUN32=(qemu-i386)
	else
		echo "SKIP: this kernel runs no 32-bit x86 program (IA32 emulation off) and qemu-i386 is missing (on Debian: apt-get install qemu-user)"
		exit 77
	fi
fi
# Debian's multilib has no i386 kernel headers; the x86 ones serve both widths.
mkdir -p "$T_TMP/inc"
arch=$("$CC32" -print-multiarch 2>/dev/null)
[ -n "$arch" ] && [ -d "/usr/include/$arch/asm" ] && ln -s "/usr/include/$arch/asm" "$T_TMP/inc/asm"
SRC=(tests/probe32/main.c src/probe/probe.c src/probe/probe_detect.c src/platform/cpuset.c
	src/util/linereader.c src/util/textutil.c)
(cd "$T_SRC" && "$CC32" -m32 -std=c11 -O2 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude \
	-idirafter "$T_TMP/inc" "${SRC[@]}" -lm -o "$T_TMP/probe32") 2>"$T_TMP/cc.err"
check "32-bit build: $(head -c 600 "$T_TMP/cc.err")" test -x "$T_TMP/probe32"
[ -x "$T_TMP/probe32" ] || t_done

# key=value output of one run: value KEY FILE
value() { sed -n "s/^$1=//p" "$2"; }

"${RUN32[@]}" "$T_TMP/probe32" >"$T_TMP/quick" 2>&1
RC=$?
check "quick run succeeds: $(cat "$T_TMP/quick")" test "$RC" = 0
check "built for 32 bits" test "$(value size_t_bits "$T_TMP/quick")" = 32
check "default working set 8M" test "$(value max_size "$T_TMP/quick")" = 8388608
check "every sweep point measured" test "$(value npoints "$T_TMP/quick")" -gt 80
check "line rounds measured" test "$(value line_rounds "$T_TMP/quick")" -ge 3
ram=$(($(getconf _PHYS_PAGES) * $(getconf PAGESIZE)))
# qemu-user tells a 32-bit program of less memory (its 32-bit sysinfo): the cap follows that
[ ${#RUN32[@]} -gt 0 ] && ram=$(value ram "$T_TMP/quick")
want=$((ram / 4 < 1073741823 ? ram / 4 : 1073741823))
want=$((want / 1048576 * 1048576))
check "cap $(value cap "$T_TMP/quick"), want $want" test "$(value cap "$T_TMP/quick")" = "$want"

"${RUN32[@]}" "$T_TMP/probe32" 64M >"$T_TMP/full" 2>&1
check "64M sweep runs in 32 bits: $(cat "$T_TMP/full")" test "$(value rc "$T_TMP/full")" = 0
"${RUN32[@]}" "$T_TMP/probe32" 3G >"$T_TMP/big" 2>&1
RC=$?
check "3G refused in 32 bits (rc $RC)" test "$RC" = 1
check "3G refused with the cap: $(cat "$T_TMP/big")" grep -q "must be at most .* here" "$T_TMP/big"
t_done

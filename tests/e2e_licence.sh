#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_licence.sh: the licence is stated everywhere it must be: COPYING (GPL-2), an SPDX line in
# every source file, --version of both programs.
source "$(dirname "$0")/lib.sh"

check "COPYING is the GNU GPL version 2" grep -q 'GNU GENERAL PUBLIC LICENSE' "$T_SRC/COPYING"
check "COPYING is version 2" grep -q 'Version 2, June 1991' "$T_SRC/COPYING"
cd "$T_SRC" || exit 1
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files '*.c' '*.h' '*.sh' '*.py' '*.cmake' CMakeLists.txt .ci/run >"$T_TMP/files"
else # a source tree without git
	find . -path ./build\* -prune -o \( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' \
		-o -name '*.cmake' -o -name CMakeLists.txt \) -print >"$T_TMP/files"
fi
missing=$(while read -r f; do
	head -3 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0-or-later' || echo "$f"
done <"$T_TMP/files")
check "every source file has the SPDX line ($(wc -l <"$T_TMP/files") files; without: $(echo $missing | head -c 200))" \
	[ -z "$missing" ]
check "pmutop --version names the licence" bash -c "'$BIN' --version | grep -q 'GPL-2.0-or-later'"
AGENT=${PMUTOP_AGENT_BIN:-$(dirname "$BIN")/pmutop-agent}
check "pmutop-agent --version names the licence" bash -c "'$AGENT' --version | grep -q 'GPL-2.0-or-later'"
t_done

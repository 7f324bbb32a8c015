#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_setup.sh: scripts/run.sh installs only what building and running need (no clang, LLVM or
# clang-format), scripts/test.sh adds what the tests need (gcc-multilib for e2e_probe32,
# promtool's prometheus, lintian), CI adds the format check's and the fuzzers' tools.
source "$(dirname "$0")/lib.sh"
D=$T_SRC/scripts/deps.sh
run=$(bash "$D" --list) test=$(bash "$D" test --list) dev=$(bash "$D" dev --list)
check "deps.sh --list prints the run set" test -n "$run"
for p in cmake gcc make pkg-config libncurses-dev libpfm4-dev libedit-dev libjansson-dev; do
	check "run set lacks $p" grep -qx "$p" <<<"$run"
done
bad=$(grep -E '^(clang|llvm|libclang|libllvm|lld)' <<<"$run" | tr '\n' ' ')
check "run set holds what only development needs: $bad" test -z "$bad"
for p in $run; do
	check "test set lacks $p of the run set" grep -qx "$p" <<<"$test"
done
for p in tmux jq python3 gcc-multilib prometheus lintian linux-source-6.1; do
	check "test set lacks $p" grep -qx "$p" <<<"$test"
done
# clang itself is a test need: it compiles the ownership map's BPF program (e2e_owners)
bad=$(grep -E '^(clang-format|llvm|libclang)' <<<"$test" | tr '\n' ' ')
check "test set holds what only the fuzzers and the format check need: $bad" test -z "$bad"
check "test set lacks clang (the BPF iterator)" grep -qx clang <<<"$test"
for p in clang-format clang libclang-rt-14-dev; do
	check "dev set lacks $p" grep -qx "$p" <<<"$dev"
done
bash "$D" bogus --list >/dev/null 2>&1
check "deps.sh bogus: exit 2" test $? = 2
# who asks for which set
check "run.sh asks for more than the run set" grep -qE '^bash scripts/deps.sh( run)? >&2$' "$T_SRC/scripts/run.sh"
check "build.sh asks for more than the run set" grep -qE '^bash scripts/deps.sh( run)?$' "$T_SRC/scripts/build.sh"
check "test.sh does not ask for the test set" grep -qE '^bash scripts/deps.sh test$' "$T_SRC/scripts/test.sh"
check "CI does not ask for the dev set" grep -qE '^bash scripts/deps.sh dev$' "$T_SRC/.ci/run"
check "format.sh does not ask for the dev set" grep -qE 'bash scripts/deps.sh dev$' "$T_SRC/scripts/format.sh"
t_done

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# format.sh: applies the checked-in .clang-format to every C file; --check lists the files that
# do not conform and fails (CI runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || bash scripts/deps.sh dev
mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null || find src ui backends include tests -name '*.[ch]')
if [ "${1:-}" = --check ]; then
  bad=()
  for f in "${files[@]}"; do
    clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    echo "format: ${#bad[@]} file(s) do not follow .clang-format (bash scripts/format.sh fixes them):"
    printf '  %s\n' "${bad[@]}"
    exit 1
  fi
  echo "format: ${#files[@]} files follow .clang-format"
  exit 0
fi
clang-format -i "${files[@]}"

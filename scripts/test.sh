#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test.sh: sets up, builds and runs the whole test suite (SANITIZE=1 builds with ASan+UBSan).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh test
if [ "${SANITIZE:-0}" = 1 ]; then
  export BUILD_DIR=build-asan
  bash scripts/build.sh -DPMUTOP_SANITIZE=ON
else
  bash scripts/build.sh
fi
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j2 "$@"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# build.sh: installs missing dependencies and builds pmutop into build/ (extra args go to cmake).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B "${BUILD_DIR:-build}" "$@" >/dev/null
cmake --build "${BUILD_DIR:-build}" -j"$(nproc)"

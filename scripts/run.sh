#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: sets up, builds pmutop (only it, not the tests) and starts it; arguments go to pmutop.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh >&2
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" --target pmutop >&2
exec ./build/pmutop "$@"

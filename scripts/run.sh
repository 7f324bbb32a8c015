#!/usr/bin/env bash
# run.sh: sets up, builds and starts pmutop; arguments are passed to pmutop.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >&2
exec ./build/pmutop "$@"

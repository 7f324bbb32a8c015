#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pmu_events_extract.sh CACHE: extracts the kernel's tools/perf/pmu-events/arch from Debian's
# linux-source-6.1 into CACHE once, atomically: tests running side by side take a lock, the
# first extracts into a temporary folder and renames it into place, so no test reads a tree
# still being written. Exits 0 when CACHE holds the tree.
set -euo pipefail
cache=$1
tar=/usr/src/linux-source-6.1.tar.xz
arch=$cache/linux-source-6.1/tools/perf/pmu-events/arch
[ -d "$arch" ] && exit 0
[ -f "$tar" ] || exit 1
mkdir -p "$(dirname "$cache")"
exec 9>"$cache.lock"
flock 9
[ -d "$arch" ] && exit 0 # another test extracted it while this one waited
tmp=$(mktemp -d "$cache.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xJf "$tar" -C "$tmp" --wildcards '*/tools/perf/pmu-events/arch/*'
rm -rf "$cache"
mv "$tmp" "$cache"
trap - EXIT

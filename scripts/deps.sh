#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# deps.sh [run|test|dev] [--list]: installs the Debian packages (only those missing) that pmutop
# needs to build and run (run, the default: scripts/run.sh, scripts/build.sh), to run the test
# suite as well (test: scripts/test.sh), and to develop (dev: also the format check's
# clang-format and the libFuzzer targets' clang; .ci/run). --list prints the set and installs
# nothing.
set -euo pipefail
set_name=run list=0
for a in "$@"; do
  case $a in
  run | test | dev) set_name=$a ;;
  --list) list=1 ;;
  *) echo "deps: unknown argument \"$a\" (run, test, dev, --list)" >&2; exit 2 ;;
  esac
done
# build and run: the compiler, cmake and the four libraries
need=(cmake make gcc pkg-config libncurses-dev libpfm4-dev libedit-dev libjansson-dev)
if [ "$set_name" != run ]; then
  # tmux, jq, python3: the screen and output tests; util-linux: unshare; dpkg-dev, file,
  # man-db, lintian: the package test; curl, prometheus (promtool), python3-prometheus-client:
  # the OpenMetrics tests; linux-source-6.1: the kernel's pmu-events JSON test_pmuevents loads;
  # likwid: the performance groups e2e_likwid_real loads; gcc-multilib: e2e_probe32 (-m32),
  # qemu-user: its 32-bit probe where the kernel runs no 32-bit x86 program;
  # iproute2: ss, the endpoint's listen backlog; libbpf-dev, bpftool, clang: the ownership
  # map's BPF iterator (built when they are there); linux-perf: the perf sessions e2e_owners lists;
  # strace: e2e_cli's check that a run's exit leaves stdin open
  need+=(tmux jq python3 util-linux dpkg-dev file man-db lintian curl prometheus
        python3-prometheus-client linux-source-6.1 likwid gcc-multilib iproute2 libbpf-dev bpftool
        clang linux-perf strace qemu-user)
fi
if [ "$set_name" = dev ]; then
  # clang-format: scripts/format.sh; clang and its runtime: the libFuzzer targets (bench/fuzz.sh)
  need+=(clang-format clang libclang-rt-14-dev)
fi
if [ $list = 1 ]; then
  printf '%s\n' "${need[@]}"
  exit 0
fi
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  # a mirror caught mid-sync fails one index: the other lists still serve the install
  $SUDO apt-get update -qq || echo "${0##*/}: apt-get update reported errors; installing from the lists there are" >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

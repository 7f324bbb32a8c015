#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# deps.sh: installs the Debian packages pmutop needs to build, run and test (only those missing);
# clang and its runtime for the libFuzzer targets (bench/fuzz.sh), util-linux for unshare.
# deps.sh test also installs what only the tests need (packaging tools, Prometheus, likwid's
# performance groups for e2e_likwid_real, libbpf and bpftool for the ownership map's BPF iterator,
# perf for e2e_owners).
set -euo pipefail
need=(cmake make gcc pkg-config libncurses-dev libpfm4-dev libedit-dev libjansson-dev tmux jq python3 clang-format
      clang libclang-rt-14-dev util-linux)
if [ "${1:-}" = test ]; then
  # linux-source-6.1: the kernel tarball whose tools/perf/pmu-events/arch test_pmuevents loads;
  # likwid: the performance groups e2e_likwid_real loads
  # libbpf-dev, bpftool: the ownership map's BPF iterator (built when they are there);
  # linux-perf: the perf sessions e2e_owners lists
  need+=(dpkg-dev file man-db lintian curl prometheus python3-prometheus-client linux-source-6.1
        likwid libbpf-dev bpftool linux-perf)
fi
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

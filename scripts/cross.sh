#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# cross.sh ARCH [--test]: cross-builds pmutop for a Debian board architecture (armhf, arm64) into
# build-ARCH/, installing the cross toolchain, the target's -dev packages and qemu-user first.
# --test then runs the unit tests and a sim batch run under qemu-user.
# Extra arguments after ARCH go to cmake (e.g. -DPMUTOP_STATIC_AGENT=ON). Exits 3 when the
# cross toolchain or the target's libraries cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:-}
case $arch in
armhf) triple=arm-linux-gnueabihf qemu=qemu-arm ;;
arm64) triple=aarch64-linux-gnu qemu=qemu-aarch64 ;;
*)
  echo "usage: scripts/cross.sh armhf|arm64 [--test] [cmake options]" >&2
  exit 2
  ;;
esac
shift
run_tests=0
if [ "${1:-}" = --test ]; then
  run_tests=1
  shift
fi

need=("gcc-$triple" "libc6-dev:$arch" "libpfm4-dev:$arch" "libjansson-dev:$arch"
  "libncurses-dev:$arch" "libedit-dev:$arch" qemu-user cmake make pkg-config)
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "cross: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  dpkg --print-foreign-architectures | grep -qx "$arch" || $SUDO dpkg --add-architecture "$arch"
  # a mirror caught mid-sync fails one index: the other lists still serve the install
  $SUDO apt-get update -qq || echo "${0##*/}: apt-get update reported errors; installing from the lists there are" >&2
  # A Multi-Arch: same package must have one version on both architectures. When the
  # security suite's $arch index is out of step with amd64's (a mirror mid-sync), the second
  # try leaves that suite out and lets apt align the host's copies (linux-libc-dev, libssl3)
  # with the version the main suite has for both: a downgrade of headers, said here.
  nosec=$(mktemp)
  trap 'rm -f "$nosec"' EXIT
  printf 'Package: *\nPin: release n=%s-security\nPin-Priority: -1\n' \
    "$(. /etc/os-release && echo "$VERSION_CODENAME")" >"$nosec"
  if DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"; then
    :
  elif echo "cross: retrying without the security suite, aligning host packages with it" >&2 &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
      --allow-downgrades -o Dir::Etc::Preferences="$nosec" "${missing[@]}" \
      "linux-libc-dev:$(dpkg --print-architecture)/$(. /etc/os-release && echo "$VERSION_CODENAME")"; then
    :
  else
    # exit 3: the toolchain could not be installed (no cross build was tried)
    echo "cross: could not install the $arch toolchain and libraries (the package lists may be" \
      "mid-sync: the $arch and amd64 versions must agree)" >&2
    exit 3
  fi
fi

build=build-$arch
cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE="$PWD/scripts/toolchains/$arch.cmake" "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
echo "cross: built $build/pmutop and $build/pmutop-agent for $arch"
ls -l "$build/pmutop" "$build/pmutop-agent"

if [ "$run_tests" = 1 ]; then
  cmake --build "$build" -j"$(nproc)" --target test-programs
  # the unit tests (test_*), through CMAKE_CROSSCOMPILING_EMULATOR. Two need what qemu-user
  # cannot give: test_app runs the target's pmutop from a shell (no binfmt_misc here) and
  # test_precision counts live with perf_event_open (ENOSYS under qemu-user).
  echo "cross: not under $qemu: test_app (runs the target binary from a shell), test_precision (perf_event_open)"
  (cd "$build" && ctest --output-on-failure -j"$(nproc)" -R '^test_' -E '^(test_app|test_precision)$')
  # a sim batch run of both programs, checked for the ticks it must print
  for prog in pmutop-agent pmutop; do
    out=$("$qemu" "$build/$prog" -b -n 3 -i 100 --backend sim --no-rc -f csv)
    rows=$(printf '%s\n' "$out" | grep -c '^[0-9]')
    if [ "$rows" -lt 3 ]; then
      echo "cross: $prog under $qemu printed $rows CSV rows, expected 3 ticks:" >&2
      printf '%s\n' "$out" >&2
      exit 1
    fi
    echo "cross: $prog -b -n 3 --backend sim under $qemu: ok ($rows rows)"
  done
fi

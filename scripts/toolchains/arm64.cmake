# SPDX-License-Identifier: GPL-2.0-or-later
# arm64.cmake: cross-builds pmutop for Debian arm64 with the Debian cross toolchain (aarch64-linux-gnu-gcc)
# and the target's multiarch -dev packages; programs run under qemu-aarch64 (scripts/cross.sh arm64).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# the target's .pc files, not the build machine's
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
# ctest and the man-page step run target programs through qemu-user, with the target's multiarch
# libc (libc6:ARCH) as its loader (-L with the cross sysroot breaks fork() in qemu 7.2)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)

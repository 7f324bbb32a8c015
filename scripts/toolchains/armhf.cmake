# SPDX-License-Identifier: GPL-2.0-or-later
# armhf.cmake: cross-builds pmutop for Debian armhf with the Debian cross toolchain (arm-linux-gnueabihf-gcc)
# and the target's multiarch -dev packages; programs run under qemu-arm (scripts/cross.sh armhf).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE arm-linux-gnueabihf)
# the target's .pc files, not the build machine's
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/arm-linux-gnueabihf/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
# ctest and the man-page step run target programs through qemu-user, with the target's multiarch
# libc (libc6:ARCH) as its loader (-L with the cross sysroot breaks fork() in qemu 7.2)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-arm)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE armhf)

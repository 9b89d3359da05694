# Cross-building aotrt for aarch64 Linux on a Debian x86-64 machine (scripts/test-aarch64.sh):
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# Compilers: Debian's g++-aarch64-linux-gnu. Libraries: Debian's arm64 packages installed beside the
# host's (dpkg --add-architecture arm64; they land in /usr/lib/aarch64-linux-gnu), plus any prefix
# in CMAKE_PREFIX_PATH (the script unpacks there the two -dev packages that cannot be co-installed).
# Programs built here run under qemu-aarch64 (CMAKE_CROSSCOMPILING_EMULATOR): ctest and
# gtest_discover_tests go through it, and the generated test models are compiled by the cross C
# compiler like every other target.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Headers and libraries of the target only: never the host's x86-64 ones; programs (python3, tar)
# are the host's.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Debian's qemu-user-static (or qemu-user). Programs find Debian's arm64 libc and libraries where
# multiarch installs them (/lib/ld-linux-aarch64.so.1, /usr/lib/aarch64-linux-gnu). Not with
# `-L /usr/aarch64-linux-gnu` (the cross toolchain's copy of libc): there, under qemu 7.2, a
# program hangs in its first pthread_create.
if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
  find_program(AOTRT_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
  if(AOTRT_QEMU_AARCH64)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${AOTRT_QEMU_AARCH64})
  endif()
endif()

# pkg-config (minizip) answers for the target's .pc files, not the host's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)

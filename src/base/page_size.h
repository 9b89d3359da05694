// The kernel's page size: 4 KiB on x86-64; 4, 16 or 64 KiB on aarch64 kernels (Raspberry Pi OS and
// Debian use 4 KiB; RHEL-family and some vendor BSPs 64 KiB). mmap, mprotect, mincore and
// /proc/self/pagemap work in these pages.
#pragma once

#include <unistd.h>

#include <cstddef>

namespace aotrt {

// sysconf(_SC_PAGESIZE), read once. Thread-safe.
inline size_t PageSize() {
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

// `v` rounded up to a multiple of `to`; less than `v` when that overflows.
inline size_t RoundUp(size_t v, size_t to) { return (v + to - 1) / to * to; }

}  // namespace aotrt

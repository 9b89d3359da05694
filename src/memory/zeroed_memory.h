// Zeroed, aligned memory for tensors and pools. Small blocks come from aligned_alloc and a memset;
// from 64 KiB on, fresh anonymous mappings, which are zero without a memset and cost nothing until
// touched: creating an executor then does no work proportional to its buffers, and a buffer the
// model writes before reading is never written twice (the kernel's zeroing at the first touch).
// Mappings of 2 MiB and more start on a 2 MiB boundary, so that transparent huge pages can back
// them (always, with THP "always"; after AdviseHugePages, with THP "madvise").
#pragma once

#include <cstddef>

namespace aotrt {

constexpr size_t kMappedFrom = 64 * 1024;
constexpr size_t kHugePage = 2 * 1024 * 1024;

// `bytes` zero bytes aligned to `align` (a power of two, at most 4096 for mapped blocks); nullptr
// when out of memory. *mapped is set to what FreeZeroed needs (0: from aligned_alloc).
void* AllocZeroed(size_t bytes, size_t align, size_t* mapped);
void FreeZeroed(void* p, size_t mapped);

// A fresh mmap(prot, MAP_PRIVATE | MAP_ANONYMOUS | flags) of `size` bytes (a multiple of
// PageSize()) starting on a multiple of `align` (a power of two); nullptr on failure. munmap frees it.
void* MapAligned(size_t size, size_t align, int prot, int flags);

// madvise(MADV_HUGEPAGE) on the whole 2 MiB pages inside [p, p + bytes) of a mapping from
// AllocZeroed. Not the default: a huge page can be slow to obtain (bench/README.md). Returns the
// bytes advised (0: none, or refused).
size_t AdviseHugePages(void* p, size_t bytes);

}  // namespace aotrt

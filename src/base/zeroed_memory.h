// Zeroed, aligned memory for tensors and pools. Small blocks come from aligned_alloc and a memset;
// from 64 KiB on, fresh anonymous mappings, which are zero without a memset and cost nothing until
// touched: creating an executor then does no work proportional to its buffers, and a buffer the
// model writes before reading is never written twice (the kernel's zeroing at the first touch).
#pragma once

#include <cstddef>

namespace aotrt {

constexpr size_t kMappedFrom = 64 * 1024;

// `bytes` zero bytes aligned to `align` (a power of two, at most 4096 for mapped blocks); nullptr
// when out of memory. *mapped is set to what FreeZeroed needs (0: from aligned_alloc).
void* AllocZeroed(size_t bytes, size_t align, size_t* mapped);
void FreeZeroed(void* p, size_t mapped);

}  // namespace aotrt

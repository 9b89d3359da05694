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

// madvise(MADV_HUGEPAGE) on the whole 2 MiB pages inside [p, p + bytes) of a mapping from
// AllocZeroed: the first touch of each then faults in one zeroed 2 MiB page instead of 512 small
// ones (~0.07 ms instead of ~0.6 ms of faults per 2 MiB here). Not the default: with THP defrag
// "madvise" the fault may compact memory, and in a VM whose free memory is returned to the host
// (virtio-balloon free page reporting) a huge page may have to be faulted in by the host first:
// 9-20 ms outliers measured (bench/README.md). Returns the bytes advised (0: none, or refused).
size_t AdviseHugePages(void* p, size_t bytes);

}  // namespace aotrt

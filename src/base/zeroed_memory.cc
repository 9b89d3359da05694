#include "base/zeroed_memory.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>

namespace aotrt {
namespace {
constexpr size_t kPage = 4096;
}  // namespace

void* AllocZeroed(size_t bytes, size_t align, size_t* mapped) {
  *mapped = 0;
  if (bytes >= kMappedFrom && align <= kPage) {
    size_t size = (bytes + kPage - 1) / kPage * kPage;
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    // No MADV_HUGEPAGE: with THP defrag on "madvise" (Debian's default) a huge-page fault may
    // compact memory synchronously; measured 5-7 ms for a 4 MiB pool against 1.7 ms of 4 KiB faults.
    *mapped = size;
    return p;
  }
  size_t size = bytes == 0 ? align : (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, size);
  if (p) std::memset(p, 0, bytes);
  return p;
}

void FreeZeroed(void* p, size_t mapped) {
  if (mapped) {
    ::munmap(p, mapped);
  } else {
    std::free(p);
  }
}

}  // namespace aotrt

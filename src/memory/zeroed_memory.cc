#include "memory/zeroed_memory.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "base/page_size.h"

namespace aotrt {

void* MapAligned(size_t size, size_t align, int prot, int flags) {
  size_t reserve = size + (align > PageSize() ? align - PageSize() : 0);
  if (reserve < size) return nullptr;
  void* raw = ::mmap(nullptr, reserve, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = RoundUp(start, align);
  if (aligned > start) ::munmap(raw, aligned - start);
  uintptr_t end = start + reserve;
  if (end > aligned + size) ::munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
  return reinterpret_cast<void*>(aligned);
}

void* AllocZeroed(size_t bytes, size_t align, size_t* mapped) {
  *mapped = 0;
  if (bytes >= kMappedFrom && align <= PageSize()) {
    size_t size = RoundUp(bytes, PageSize());
    if (size < bytes) return nullptr;
    void* p = MapAligned(size, size >= kHugePage ? kHugePage : PageSize(), PROT_READ | PROT_WRITE, 0);
    if (p == nullptr) return nullptr;
    *mapped = size;
    return p;
  }
  void* p = std::aligned_alloc(align, bytes == 0 ? align : RoundUp(bytes, align));
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

size_t AdviseHugePages(void* p, size_t bytes) {
  uintptr_t begin = RoundUp(reinterpret_cast<uintptr_t>(p), kHugePage);
  uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) / kHugePage * kHugePage;
  if (end <= begin) return 0;
  if (::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) != 0) return 0;
  return end - begin;
}

}  // namespace aotrt

#include "constant_cache/constant_pool_memory.h"

#include <sys/mman.h>

#include "base/error_util.h"
#include "memory/reserve.h"

namespace aotrt {

ConstantPoolMemory ConstantPoolMemory::Adopt(void* map, size_t map_bytes, size_t offset, size_t bytes, size_t slack,
                                             ConstantSource source, std::string path) {
  ConstantPoolMemory m;
  m.data_ = std::shared_ptr<const uint8_t>(static_cast<const uint8_t*>(map) + offset,
                                           [map, map_bytes](const uint8_t*) { ::munmap(map, map_bytes); });
  m.bytes_ = bytes;
  m.slack_ = slack;
  m.source_ = source;
  m.path_ = std::move(path);
  return m;
}

ConstantPoolMemory PrivateConstantPool(size_t bytes, size_t slack, const std::function<void(uint8_t*)>& fill,
                                       const std::string& what) {
  size_t map_bytes = bytes + slack;
  // Populated up front: fill() writes every page anyway.
  void* map = ::mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  AOTRT_REQUIRE(map != MAP_FAILED, kOutOfMemory, what, ": cannot allocate ", GroupedNumber(bytes), " bytes (+", slack,
                " slack) for the constant pool");
  ConstantPoolMemory m = ConstantPoolMemory::Adopt(map, map_bytes, 0, bytes, slack, ConstantSource::kPrivateCopy, "");
  uint8_t* p = static_cast<uint8_t*>(map);
  fill(p);  // anonymous memory is zeroed; `m` unmaps if this throws
  FillCanary(p + bytes, slack);
  ::mprotect(map, map_bytes, PROT_READ);  // as the shared file: a store into constants faults either way
  return m;
}

}  // namespace aotrt

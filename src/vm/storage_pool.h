// The storages of one VM: blocks of host memory kept after their last tensor is gone and handed out
// again for a request of the same size class, so that runs with repeated shapes reuse their blocks.
// Thread-safe: a tensor the caller keeps may release its block on any thread; the pool lives
// until the VM and every block handed out are gone.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>

#include "aotrt/ndarray.h"

namespace aotrt {
namespace vm {

class StoragePool : public std::enable_shared_from_this<StoragePool> {
 public:
  ~StoragePool();
  // A 1-D uint8 array of `nbytes` aligned to `align` (a power of two up to 4096), from the pool or
  // new. Throws kOutOfMemory naming the size.
  NDArray Alloc(size_t nbytes, size_t align);
  // The class of a request: blocks of one class are interchangeable.
  static size_t SizeClass(size_t nbytes, size_t align);

 private:
  struct Block;
  static void Return(DLManagedTensor* managed);
  std::mutex mu_;
  std::multimap<size_t, Block*> free_;  // by size class
};

}  // namespace vm
}  // namespace aotrt

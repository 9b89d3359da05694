#include "vm/storage_pool.h"

#include <cstdlib>
#include <memory>

#include "base/error_util.h"
#include "memory/reserve.h"

namespace aotrt {
namespace vm {

struct StoragePool::Block {
  DLManagedTensor managed{};
  int64_t shape[1] = {0};
  size_t size_class = 0;
  size_t mapped = 0;  // FreeZeroed's argument
  std::shared_ptr<StoragePool> pool;  // set while handed out
};

// Sizes round up to 64 bytes, and to pages from a page on, as TVM's pooled allocator does; the low
// bit tells page-aligned blocks from 64-byte-aligned ones.
size_t StoragePool::SizeClass(size_t nbytes, size_t align) {
  size_t unit = nbytes >= 4096 ? 4096 : 64;
  size_t rounded = nbytes == 0 ? unit : (nbytes + unit - 1) / unit * unit;
  return rounded * 2 + (align > 64 ? 1 : 0);
}

StoragePool::~StoragePool() {
  for (auto& kv : free_) {
    FreeZeroed(kv.second->managed.dl_tensor.data, kv.second->mapped);
    delete kv.second;
  }
}

NDArray StoragePool::Alloc(size_t nbytes, size_t align) {
  AOTRT_REQUIRE(nbytes < (size_t{1} << 46), kOutOfMemory, "VM storage of ", nbytes, " bytes is more than aotrt allocates");
  size_t cls = SizeClass(nbytes, align);
  Block* b = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(cls);
    if (it != free_.end()) b = it->second, free_.erase(it);
  }
  if (!b) {
    // Large blocks are mapped: a storage no machine can hold (a corrupt size) fails as an error.
    auto made = std::make_unique<Block>();
    void* data = AllocZeroed(cls / 2, (cls & 1) ? 4096 : 64, &made->mapped);
    AOTRT_REQUIRE(data != nullptr, kOutOfMemory, "VM storage of ", nbytes, " bytes: out of memory");
    b = made.release();
    b->size_class = cls;
    b->shape[0] = static_cast<int64_t>(cls / 2);
    b->managed.dl_tensor = DLTensor{data, DLDevice{kDLCPU, 0}, 1, DLDataType{kDLUInt, 8, 1}, b->shape, nullptr, 0};
    b->managed.manager_ctx = b;
    b->managed.deleter = Return;
  }
  b->pool = shared_from_this();
  try {
    return NDArray::FromDLPack(&b->managed);
  } catch (...) {
    Return(&b->managed);
    throw;
  }
}

void StoragePool::Return(DLManagedTensor* managed) {
  Block* b = static_cast<Block*>(managed->manager_ctx);
  std::shared_ptr<StoragePool> pool = std::move(b->pool);
  std::lock_guard<std::mutex> lock(pool->mu_);
  pool->free_.emplace(b->size_class, b);
}

}  // namespace vm
}  // namespace aotrt

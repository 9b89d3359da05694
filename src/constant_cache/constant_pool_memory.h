// Read-only memory holding a USMP constant pool (ABI.md 7.3): a mapped cache file
// (constant_cache/constant_pool_file.h) or a private copy (constant_cache.cc). Owns its mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "aotrt/model_info.h"

namespace aotrt {

// bytes() usable bytes followed by slack() canary bytes (memory/reserve.h), the data 4096-byte
// aligned. Move-only; the mapping is unmapped with this object (pointers into it die with it).
// Thread-safe to read from any number of threads.
class ConstantPoolMemory {
 public:
  ConstantPoolMemory() = default;
  // Takes the mapping [map, map + map_bytes) (munmap'ed by the destructor); the pool starts at
  // map + offset. `path` names the cache file ("" for a private copy).
  static ConstantPoolMemory Adopt(void* map, size_t map_bytes, size_t offset, size_t bytes, size_t slack,
                                  ConstantSource source, std::string path);
  ConstantPoolMemory(ConstantPoolMemory&&) noexcept = default;  // the moved-from data() is nullptr
  ConstantPoolMemory& operator=(ConstantPoolMemory&&) noexcept = default;

  const uint8_t* data() const { return data_.get(); }
  size_t bytes() const { return bytes_; }
  size_t slack() const { return slack_; }
  // Where the memory came from (for inspect and benchmarks): an existing cache file, a cache file
  // this load built, or a private copy (cache off, pool too small, or cache unusable).
  ConstantSource source() const { return source_; }
  const std::string& cache_path() const { return path_; }  // "" for kPrivateCopy
  // The same memory reported as `source` from `path` (a private copy whose cache file this load
  // wrote: kBuiltCache and the file's alias).
  void Relabel(ConstantSource source, std::string path) {
    source_ = source;
    path_ = std::move(path);
  }

 private:
  std::shared_ptr<const uint8_t> data_;  // the pool; its deleter unmaps the whole mapping
  size_t bytes_ = 0;
  size_t slack_ = 0;
  ConstantSource source_ = ConstantSource::kNone;
  std::string path_;
};

}  // namespace aotrt

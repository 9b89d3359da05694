// One USMP workspace pool passed to a model's entry function (one per executor), mapped with its
// reserve and guard (memory/reserve.h). Move-only; owns its mapping. Not thread-safe: a workspace
// pool belongs to one executor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "memory/reserve.h"

namespace aotrt {

class PoolBuffer {
 public:
  PoolBuffer() = default;
  // `label` names the pool in the message of a write past the reserve, e.g. "workspace pool 'x'
  // (N bytes) of model 'm' (lib.so)". Throws Error(kOutOfMemory).
  PoolBuffer(std::string name, size_t bytes, const std::string& label = std::string());
  PoolBuffer(PoolBuffer&& o) noexcept;
  PoolBuffer& operator=(PoolBuffer&& o) noexcept;
  PoolBuffer(const PoolBuffer&) = delete;
  PoolBuffer& operator=(const PoolBuffer&) = delete;
  ~PoolBuffer();

  bool defined() const { return span_.data != nullptr; }
  uint8_t* data() const { return span_.data; }
  size_t bytes() const { return bytes_; }
  // Bytes after the pool that a write may reach harmlessly: the rest of its last page + the reserve.
  size_t slack() const { return span_.capacity - bytes_ + span_.reserve; }
  size_t reserve() const { return span_.reserve; }
  // The pool's name for messages: the metadata name without TVM's "_<k>_var" suffix.
  const std::string& name() const { return name_; }
  // What was written past the end since the last call (nothing found: !found()); restores.
  Overrun TakeOverrun();

 private:
  ReservedSpan span_;
  size_t bytes_ = 0;
  std::string name_;
};

// "global_workspace_1_var" -> "global_workspace" (ABI.md 7.1: <pool_name>_<k>_var); other names as is.
std::string PoolDisplayName(const std::string& var_name);

// The bytes after a pool of `bytes` that PoolBuffer makes harmless to write (its slack()).
size_t PoolSlackBytes(size_t bytes);

}  // namespace aotrt

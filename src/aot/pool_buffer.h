// Memory of one USMP pool passed to a model's entry function (a workspace pool per executor, the
// constant pool per model): `bytes` usable bytes, 64-byte aligned and zeroed, followed by
// TailSlack(bytes) bytes the runtime owns (base/tail_slack.h), filled with the canary. From
// 64 KiB on, fresh anonymous mappings: zero without a memset (base/zeroed_memory.h).
// Move-only; owns its memory. Not thread-safe: a workspace pool belongs to one executor; the
// shared constant pool is only read after it is built.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace aotrt {

class PoolBuffer {
 public:
  PoolBuffer() = default;
  // Throws Error(kOutOfMemory).
  PoolBuffer(std::string name, size_t bytes);

  bool defined() const { return data_ != nullptr; }
  uint8_t* data() const { return data_.get(); }
  size_t bytes() const { return bytes_; }
  size_t slack() const { return slack_; }
  // The pool's name for messages: the metadata name without TVM's "_<k>_var" suffix.
  const std::string& name() const { return name_; }
  // Bytes written past the end since the canary was last intact (0: none); restores the canary.
  size_t TakeOverrun();

 private:
  struct Free {
    size_t mapped_bytes;  // FreeZeroed's argument (base/zeroed_memory.h)
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t, Free> data_{nullptr, Free{0}};
  size_t bytes_ = 0;
  size_t slack_ = 0;
  std::string name_;
};

// "global_workspace_1_var" -> "global_workspace" (ABI.md 7.1: <pool_name>_<k>_var); other names as is.
std::string PoolDisplayName(const std::string& var_name);

}  // namespace aotrt

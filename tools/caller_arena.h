// `--arena` of aotrt run and bench: executors built in memory the tool owns, as an embedded
// caller would (ExecutorOptions::Arena, sized by Model::ArenaBytes).
#pragma once

#include <cstdlib>
#include <memory>
#include <vector>

#include <aotrt/model.h>

namespace aotrt_cli {

// Owns the arenas it hands out; must outlive every executor created in them.
class CallerArenas {
 public:
  // `options` with a fresh 64-byte aligned arena of model.ArenaBytes(options) bytes.
  aotrt::ExecutorOptions Add(const aotrt::Model& model, aotrt::ExecutorOptions options) {
    size_t bytes = model.ArenaBytes(options);
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) throw aotrt::Error(aotrt::ErrorCode::kOutOfMemory, "cannot allocate an arena of " + std::to_string(bytes) + " bytes");
    arenas_.emplace_back(p);
    options.memory = aotrt::ExecutorOptions::Arena{p, bytes};
    return options;
  }

 private:
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::vector<std::unique_ptr<void, Free>> arenas_;
};

}  // namespace aotrt_cli

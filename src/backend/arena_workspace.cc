#include "backend/arena_workspace.h"

#include "base/error_util.h"
#include "base/last_error.h"
#include "memory/reserve.h"

namespace aotrt {

static __thread ArenaWorkspace* t_arena_workspace __attribute__((tls_model("initial-exec"))) = nullptr;

ArenaWorkspace::ArenaWorkspace(uint8_t* data, size_t bytes) {
  size_t skip = (kArenaBlockHeader - reinterpret_cast<uintptr_t>(data) % kArenaBlockHeader) % kArenaBlockHeader;
  if (skip > bytes) skip = bytes;
  begin_ = top_ = data + skip;
  end_ = data + bytes;
}

void* ArenaWorkspace::Alloc(uint64_t nbytes) {
  size_t room = static_cast<size_t>(end_ - top_);
  if (nbytes > room || ArenaBlockBytes(nbytes) > room) {
    exhausted_ = true;
    SetLastError(ErrorCode::kOutOfMemory,
                 StrCat("TVMBackendAllocWorkspace: the executor's arena has ", GroupedNumber(room), " of its ",
                        GroupedNumber(capacity()), " workspace bytes free; this request of ", GroupedNumber(nbytes),
                        " bytes needs ", GroupedNumber(ArenaBlockBytes(nbytes)),
                        " (Model::ArenaBytes gives the arena size a run needs)"));
    return nullptr;
  }
  auto* header = reinterpret_cast<BlockHeader*>(top_);
  header->below = last_;
  header->freed = false;
  last_ = header;
  top_ += ArenaBlockBytes(nbytes);
  size_t held = static_cast<size_t>(top_ - begin_);
  if (held > peak_) peak_ = held;
  return reinterpret_cast<uint8_t*>(header) + kArenaBlockHeader;
}

bool ArenaWorkspace::Free(void* ptr) {
  BlockHeader* h = last_;
  while (h != nullptr && reinterpret_cast<uint8_t*>(h) + kArenaBlockHeader != ptr) h = h->below;
  if (h == nullptr) return false;  // not a block held here
  h->freed = true;
  // A block freed out of order gives its room back with the last block above it.
  while (last_ != nullptr && last_->freed) {
    top_ = reinterpret_cast<uint8_t*>(last_);
    last_ = last_->below;
  }
  return true;
}

ArenaWorkspaceScope::ArenaWorkspaceScope(ArenaWorkspace* ws) : saved_(t_arena_workspace) { t_arena_workspace = ws; }
ArenaWorkspaceScope::~ArenaWorkspaceScope() { t_arena_workspace = saved_; }
ArenaWorkspace* CurrentArenaWorkspace() { return t_arena_workspace; }

}  // namespace aotrt

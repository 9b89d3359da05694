#include "backend/workspace.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <vector>

#include "base/error_util.h"
#include "base/last_error.h"
#include "base/tail_slack.h"

namespace aotrt {

// Mirrors the calling thread's pool's used_.size(), readable without touching the pool object.
__thread size_t t_workspace_blocks_in_use __attribute__((tls_model("initial-exec"))) = 0;

namespace {
struct CheckState {
  bool active;
  WorkspaceOverrun first;
};
__thread CheckState t_check __attribute__((tls_model("initial-exec"))) = {false, {0, 0}};
}  // namespace

WorkspaceBoundsCheck::WorkspaceBoundsCheck() : saved_active_(t_check.active), saved_first_(t_check.first) {
  t_check.active = true;
  t_check.first = WorkspaceOverrun{0, 0};
}

WorkspaceBoundsCheck::~WorkspaceBoundsCheck() {
  t_check.active = saved_active_;
  t_check.first = saved_first_;
}

WorkspaceOverrun WorkspaceBoundsCheck::overrun() const { return t_check.first; }

namespace {

constexpr size_t kPageSize = 4096;
constexpr size_t kWorkspaceAlignment = 64;
constexpr uint64_t kMaxWorkspace = uint64_t{1} << 46;  // refuse absurd requests from corrupt models

struct Block {
  void* ptr;
  size_t size;         // capacity
  size_t requested;    // bytes asked for by the current user
  size_t canary;       // canary bytes after `requested` (checking mode), else 0
};

// Checking mode: the slack a pool of the requested size would get (TailSlack), as far as the block
// has it: page rounding or a reused bigger block may leave far more, which would cost a fill and a
// compare of up to a page per block and run for little gain.
void ArmCanary(Block* b) {
  b->canary = t_check.active ? std::min(b->size - b->requested, TailSlack(b->requested)) : 0;
  if (b->canary) FillCanary(static_cast<char*>(b->ptr) + b->requested, b->canary);
}

void CheckCanary(const Block& b) {
  if (!b.canary) return;
  size_t damage = CanaryDamage(static_cast<const char*>(b.ptr) + b.requested, b.canary);
  if (damage && t_check.active && t_check.first.bytes_past == 0) t_check.first = WorkspaceOverrun{damage, b.requested};
}

class WorkspacePool {
 public:
  WorkspacePool() {
    free_.reserve(64);
    used_.reserve(64);
  }
  ~WorkspacePool() {
    for (const Block& b : free_) std::free(b.ptr);
    for (const Block& b : used_) std::free(b.ptr);
  }

  void* Alloc(uint64_t nbytes) {
    if (nbytes > kMaxWorkspace) {
      SetLastError(ErrorCode::kOutOfMemory, StrCat("TVMBackendAllocWorkspace: request of ", nbytes, " bytes is too large"));
      return nullptr;
    }
    // Page-rounded like TVM, plus at least a cache line of slack (base/tail_slack.h).
    size_t size = (nbytes + kCacheLine + kPageSize - 1) / kPageSize * kPageSize;
    size_t best = free_.size();
    for (size_t i = 0; i < free_.size(); ++i) {
      if (free_[i].size >= size && (best == free_.size() || free_[i].size < free_[best].size)) best = i;
    }
    // Capacity first, so that neither this push_back nor a later Free/ReleaseTo allocates: after
    // this line nothing can throw, and a block is never lost between the two lists.
    used_.reserve(used_.size() + 1);
    free_.reserve(free_.size() + used_.size() + 1);
    Block b;
    if (best != free_.size()) {
      b = free_[best];
      free_[best] = free_.back();
      free_.pop_back();
    } else {
      void* p = std::aligned_alloc(kWorkspaceAlignment, size);
      if (!p) {
        SetLastError(ErrorCode::kOutOfMemory, StrCat("TVMBackendAllocWorkspace: cannot allocate ", nbytes, " bytes"));
        return nullptr;
      }
      b = Block{p, size, 0, 0};
      bytes_ += size;
    }
    b.requested = nbytes;
    requested_ += nbytes;
    if (requested_ > requested_peak_) requested_peak_ = requested_;
    ArmCanary(&b);
    used_.push_back(b);
    t_workspace_blocks_in_use = used_.size();
    return b.ptr;
  }

  bool Free(void* ptr) {
    // Allocations are nearly always freed last-in first-out: search from the back.
    for (size_t i = used_.size(); i-- > 0;) {
      if (used_[i].ptr != ptr) continue;
      CheckCanary(used_[i]);
      requested_ -= used_[i].requested;
      free_.push_back(used_[i]);
      used_.erase(used_.begin() + static_cast<std::ptrdiff_t>(i));
      t_workspace_blocks_in_use = used_.size();
      return true;
    }
    SetLastError(ErrorCode::kInvalidArgument,
                 StrCat("TVMBackendFreeWorkspace: pointer ", ptr, " was not allocated by this thread's workspace pool"));
    return false;
  }

  void ReleaseTo(size_t mark) {
    while (used_.size() > mark) {
      requested_ -= used_.back().requested;
      free_.push_back(used_.back());
      used_.pop_back();
    }
    t_workspace_blocks_in_use = used_.size();
  }

  size_t bytes() const { return bytes_; }
  size_t requested_peak() const { return requested_peak_; }
  void ResetPeak() { requested_peak_ = requested_; }

 private:
  std::vector<Block> free_;
  std::vector<Block> used_;
  size_t bytes_ = 0;
  size_t requested_ = 0;       // bytes asked for by the blocks in use
  size_t requested_peak_ = 0;  // most of requested_ at once since ResetPeak
};

WorkspacePool& ThreadPool() {
  static thread_local WorkspacePool pool;
  return pool;
}

}  // namespace

void* WorkspaceAlloc(uint64_t nbytes) {
  try {
    return ThreadPool().Alloc(nbytes);
  } catch (const std::bad_alloc&) {  // the pool's bookkeeping (or the pool itself) had no memory
    AOTRT_THROW(kOutOfMemory, "TVMBackendAllocWorkspace: cannot allocate ", nbytes, " bytes: out of memory");
  }
}
bool WorkspaceFree(void* ptr) { return ThreadPool().Free(ptr); }
void WorkspaceReleaseTo(size_t mark) { ThreadPool().ReleaseTo(mark); }
size_t WorkspacePoolBytes() { return ThreadPool().bytes(); }
size_t ThreadWorkspacePeak() { return ThreadPool().requested_peak(); }
void ResetThreadWorkspacePeak() { ThreadPool().ResetPeak(); }

}  // namespace aotrt

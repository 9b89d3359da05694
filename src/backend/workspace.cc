#include "backend/workspace.h"

#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

#include "backend/arena_workspace.h"
#include "base/error_util.h"
#include "base/last_error.h"
#include "base/page_size.h"
#include "memory/reserve.h"

namespace aotrt {

// Mirrors the calling thread's pool's used_.size(), readable without touching the pool object.
__thread size_t t_workspace_blocks_in_use __attribute__((tls_model("initial-exec"))) = 0;

namespace {

struct CheckState {
  bool active;
  WorkspaceOverrun first;
};
__thread CheckState t_check __attribute__((tls_model("initial-exec"))) = {};

constexpr size_t kPageSize = 4096;
constexpr size_t kWorkspaceAlignment = 64;
constexpr uint64_t kMaxWorkspace = uint64_t{1} << 46;  // refuse absurd requests from corrupt models

struct Block {
  void* ptr;
  size_t size;         // capacity
  size_t requested;    // bytes asked for by the current user
  bool armed;          // checking mode armed it when handed out
  ReservedSpan span;   // a block of kMappedFrom bytes or more: its mapping (span.data == ptr)
};

bool Mapped(const Block& b) { return b.span.data != nullptr; }

// The largest request a block serves with room after it at least as large as the request.
size_t Serves(const Block& b) { return Mapped(b) ? b.size : (b.size - kCacheLine) / 2; }

// Checking mode: a heap block's room after the request holds the canary; a mapped block's is
// armed as a pool's (memory/reserve.h).
void Arm(Block* b) {
  b->armed = t_check.active;
  if (!b->armed) return;
  if (Mapped(*b)) {
    ArmOverrunCheck(b->span, b->requested);
  } else {
    FillCanary(static_cast<char*>(b->ptr) + b->requested, b->size - b->requested);
  }
}

void Check(const Block& b) {
  if (!b.armed) return;
  WorkspaceOverrun o;
  if (Mapped(b)) {
    static_cast<Overrun&>(o) = TakeOverrun(b.span, b.requested);
  } else {
    o.bytes_past = CanaryDamage(static_cast<const char*>(b.ptr) + b.requested, b.size - b.requested);
  }
  o.block_bytes = b.requested;
  if (o.found() && t_check.active && !t_check.first.found()) t_check.first = o;
}

void Release(Block* b) {
  if (Mapped(*b)) {
    UnmapReserved(&b->span);
  } else {
    std::free(b->ptr);
  }
}

class WorkspacePool {
 public:
  WorkspacePool() {
    free_.reserve(64);
    used_.reserve(64);
  }
  ~WorkspacePool() {
    for (Block& b : free_) Release(&b);
    for (Block& b : used_) Release(&b);
  }

  void* Alloc(uint64_t nbytes) {
    if (nbytes > kMaxWorkspace) {
      SetLastError(ErrorCode::kOutOfMemory, StrCat("TVMBackendAllocWorkspace: request of ", nbytes, " bytes is too large"));
      return nullptr;
    }
    // Page-rounded like TVM; room after the request at least as large as the request.
    const bool mapped = nbytes >= kMappedFrom;
    const size_t size = RoundUp(mapped ? nbytes : 2 * nbytes + kCacheLine, kPageSize);
    // Checking mode arms and checks everything after the request up to the block's end: there a
    // small request does not take a much larger block (a 100-byte request in a 1 MiB block would
    // cost a 1 MiB fill and compare per run), it gets one of its own.
    const size_t largest = t_check.active ? 2 * size : SIZE_MAX;
    size_t best = free_.size(), too_small = free_.size();
    for (size_t i = 0; i < free_.size(); ++i) {
      if (Serves(free_[i]) < nbytes) {
        if (too_small == free_.size() || free_[i].size > free_[too_small].size) too_small = i;
      } else if (free_[i].size <= largest && (best == free_.size() || free_[i].size < free_[best].size)) {
        best = i;
      }
    }
    // A miss replaces the largest free block too small for it (TVM's WorkspacePool does the
    // same), rather than adding a block: the pool then holds about the live peak of a run, not
    // every size it ever served. Each replacement grows a block, so a repeated sequence of
    // requests settles after a run or two and warm runs allocate nothing.
    const bool reuse = best != free_.size();
    if (!reuse && too_small != free_.size()) {
      bytes_ -= free_[too_small].size;
      Release(&free_[too_small]);
      free_[too_small] = free_.back();
      free_.pop_back();
    }
    // Capacity first, so that neither this push_back nor a later Free/ReleaseTo allocates: after
    // this line nothing can throw, and a block is never lost between the two lists.
    used_.reserve(used_.size() + 1);
    free_.reserve(free_.size() + used_.size() + 1);
    Block b;
    if (reuse) {
      b = free_[best];
      free_[best] = free_.back();
      free_.pop_back();
    } else {  // a new block: mapped with a reserve and guard after it, or from the heap
      b = Block{nullptr, size, 0, false, ReservedSpan()};
      if (mapped) {
        char label[96];
        std::snprintf(label, sizeof label, "a TVMBackendAllocWorkspace block of %zu bytes", size);
        b.span = MapReserved(size, label);
        b.ptr = b.span.data;
      } else {
        b.ptr = std::aligned_alloc(kWorkspaceAlignment, size);
      }
      if (!b.ptr) {
        SetLastError(ErrorCode::kOutOfMemory, StrCat("TVMBackendAllocWorkspace: cannot allocate ", nbytes, " bytes"));
        return nullptr;
      }
      bytes_ += size;
    }
    b.requested = nbytes;
    requested_ += nbytes;
    if (requested_ > requested_peak_) requested_peak_ = requested_;
    Arm(&b);
    used_.push_back(b);
    t_workspace_blocks_in_use = used_.size();
    return b.ptr;
  }

  bool Free(void* ptr) {
    // Allocations are nearly always freed last-in first-out: search from the back.
    for (size_t i = used_.size(); i-- > 0;) {
      if (used_[i].ptr != ptr) continue;
      Check(used_[i]);
      Retire(i);
      return true;
    }
    SetLastError(ErrorCode::kInvalidArgument,
                 StrCat("TVMBackendFreeWorkspace: pointer ", ptr, " was not allocated by this thread's workspace pool"));
    return false;
  }

  void ReleaseTo(size_t mark) {
    while (used_.size() > mark) Retire(used_.size() - 1);
  }

  size_t bytes() const { return bytes_; }
  size_t requested_peak() const { return requested_peak_; }
  void ResetPeak() { requested_peak_ = requested_; }

 private:
  // Moves used block i to the free list (reserved in Alloc: cannot throw).
  void Retire(size_t i) {
    requested_ -= used_[i].requested;
    free_.push_back(used_[i]);
    used_.erase(used_.begin() + static_cast<std::ptrdiff_t>(i));
    t_workspace_blocks_in_use = used_.size();
  }

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

WorkspaceBoundsCheck::WorkspaceBoundsCheck() : saved_active_(t_check.active), saved_first_(t_check.first) {
  t_check.active = true;
  t_check.first = WorkspaceOverrun();
}

WorkspaceBoundsCheck::~WorkspaceBoundsCheck() {
  t_check.active = saved_active_;
  t_check.first = saved_first_;
}

WorkspaceOverrun WorkspaceBoundsCheck::overrun() const { return t_check.first; }

void* WorkspaceAlloc(uint64_t nbytes) {
  if (ArenaWorkspace* arena = CurrentArenaWorkspace()) return arena->Alloc(nbytes);
  try {
    return ThreadPool().Alloc(nbytes);
  } catch (const std::bad_alloc&) {  // the pool's bookkeeping (or the pool itself) had no memory
    AOTRT_THROW(kOutOfMemory, "TVMBackendAllocWorkspace: cannot allocate ", nbytes, " bytes: out of memory");
  }
}
bool WorkspaceFree(void* ptr) {
  ArenaWorkspace* arena = CurrentArenaWorkspace();
  return (arena != nullptr && arena->Free(ptr)) || ThreadPool().Free(ptr);
}
void WorkspaceReleaseTo(size_t mark) { ThreadPool().ReleaseTo(mark); }
size_t WorkspacePoolBytes() { return ThreadPool().bytes(); }
size_t ThreadWorkspacePeak() { return ThreadPool().requested_peak(); }
void ResetThreadWorkspacePeak() { ThreadPool().ResetPeak(); }

}  // namespace aotrt

// Run-time workspace served from caller-owned memory (an executor built in an arena,
// ExecutorOptions::arena): while an ArenaWorkspaceScope lives on a thread, that thread's
// TVMBackendAllocWorkspace requests are cut from one region, last-in first-out, instead of from
// the thread's pool (backend/workspace.h). Generated code frees in reverse order; a block freed
// out of order is marked and its room returns when every block above it is freed too.
//
// Each block is 64-byte aligned and preceded by a 64-byte header (the previous top and a freed
// mark), so a model's request of n bytes takes RoundUp(n, 64) + 64 bytes of the region while it is
// held. No heap, no system call. Not thread-safe: one region serves the thread running its
// executor; parallel workers keep their own pools.
#pragma once

#include <cstddef>
#include <cstdint>

namespace aotrt {

// The bytes a block of `nbytes` takes in an ArenaWorkspace while held.
constexpr size_t kArenaBlockHeader = 64;
inline size_t ArenaBlockBytes(uint64_t nbytes) { return kArenaBlockHeader + ((nbytes + 63) & ~uint64_t{63}); }

class ArenaWorkspace {
 public:
  ArenaWorkspace() = default;
  // The region [data, data + bytes), used from its first 64-byte boundary. Borrowed: it must
  // outlive this object.
  ArenaWorkspace(uint8_t* data, size_t bytes);

  // nullptr with a last error (kOutOfMemory, naming the request and the region's size) when the
  // region has no room: the model then fails with that message.
  void* Alloc(uint64_t nbytes);
  // True when `ptr` lies inside the region (and is then released); false for a foreign pointer.
  bool Free(void* ptr);
  // Forget every block (a failed run never frees its blocks).
  void Reset() {
    top_ = begin_;
    last_ = nullptr;
  }
  // The most bytes of the region held at once since construction, and whether a request found
  // no room.
  size_t peak() const { return peak_; }
  bool exhausted() const { return exhausted_; }
  size_t capacity() const { return static_cast<size_t>(end_ - begin_); }

 private:
  uint8_t* begin_ = nullptr;
  uint8_t* end_ = nullptr;
  // Sits in the 64 bytes below each block: the block below it, and whether it was freed.
  struct BlockHeader {
    BlockHeader* below;
    bool freed;
  };
  uint8_t* top_ = nullptr;
  BlockHeader* last_ = nullptr;  // the topmost block's header
  size_t peak_ = 0;
  bool exhausted_ = false;
};

// Routes this thread's TVMBackendAllocWorkspace / FreeWorkspace to `ws` while alive; nests.
class ArenaWorkspaceScope {
 public:
  explicit ArenaWorkspaceScope(ArenaWorkspace* ws);
  ~ArenaWorkspaceScope();
  ArenaWorkspaceScope(const ArenaWorkspaceScope&) = delete;
  ArenaWorkspaceScope& operator=(const ArenaWorkspaceScope&) = delete;

 private:
  ArenaWorkspace* saved_;
};

// The region serving this thread now, or nullptr (backend/workspace.cc asks first).
ArenaWorkspace* CurrentArenaWorkspace();

}  // namespace aotrt

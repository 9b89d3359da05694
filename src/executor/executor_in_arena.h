// Executors built in caller-owned memory (ExecutorOptions::arena), and the size of that memory,
// for every kind of executor (AOT, graph).
//
// Layout of an arena: a slot for the ExecutorOptions::on_destroyed callback, the executor module
// object, then what the executor cuts from the region in creation order (executor/executor_arena.h),
// then the run-time workspace (backend/arena_workspace.h). The object is destroyed by its last
// reference like any other; the memory is never freed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "executor/executor_arena.h"
#include "executor/executor_interface.h"

namespace aotrt {

constexpr size_t kArenaCallbackBytes = kAllocAlignment;  // the callback slot in front of the node
void RunArenaDestroyedCallback(void* node);               // the one in front of `node`

// An executor module object in an arena: the last reference runs its destructor, frees nothing,
// then tells the caller (ExecutorOptions::on_destroyed) that its memory is no longer used.
template <class Node>
class InArena final : public Node {
 public:
  using Node::Node;
  static void operator delete(void* p) { RunArenaDestroyedCallback(p); }
};

// The bytes an InArena<Node> and its callback slot take at the front of an arena.
template <class Node>
constexpr size_t ArenaNodeBytes() {
  return kArenaCallbackBytes + (sizeof(InArena<Node>) + kAllocAlignment - 1) / kAllocAlignment * kAllocAlignment;
}

// How a factory builds one of its executors in a region: what the functions below need of it.
// Made on the stack by CreateExecutor / ArenaBytes (it allocates nothing).
class ArenaBuild {
 public:
  virtual std::string Model() const = 0;  // names the model in messages
  virtual size_t NodeBytes() const = 0;   // ArenaNodeBytes<the node>()
  virtual size_t HeldGuess() const = 0;   // a first guess of what the executor cuts from the region
  virtual bool MayUseWorkspace() const = 0;  // whether a run may call TVMBackendAllocWorkspace
  // The model's run-time workspace in an arena, measured once: -1 until measured, -2 when the
  // measuring run failed.
  virtual std::atomic<int64_t>& WorkspaceBytes() const = 0;
  // Constructs the InArena node at `at`, its executor drawing on `region` (throws ArenaExhausted
  // when the region is too small).
  virtual ExecutorModuleNode* Place(void* at, ExecutorArena region, const ExecutorOptions& options) const = 0;

 protected:
  ~ArenaBuild() = default;
};

// An executor in options.arena / arena_bytes. Allocates nothing from the heap once the model's
// run-time workspace has been measured (ArenaBytesNeeded, or the first call here). Throws
// kInvalidArgument (null or unaligned arena; too small, naming the bytes needed), kModelError (the
// measuring run failed) and what the executor's constructor throws.
ObjectPtr<ExecutorModuleNode> CreateExecutorInArena(const ArenaBuild& build, const ExecutorOptions& options);

// The arena bytes an executor with `options` (its arena ignored) needs. Builds one in scratch
// memory; the first time per model also runs it once on zeros to measure its run-time workspace.
// Throws kModelError (that run failed), kOutOfMemory, and what the executor's constructor throws.
size_t ArenaBytesNeeded(const ArenaBuild& build, const ExecutorOptions& options);

}  // namespace aotrt

// Executors built in caller-owned memory (ExecutorOptions::arena), and the size of that memory,
// for every kind of executor (AOT, graph).
//
// Layout of an arena: a slot for the ExecutorOptions::on_destroyed callback, the executor module
// object, then what the executor cuts from the region in creation order (executor/executor_arena.h),
// then the run-time workspace (backend/arena_workspace.h). The object is destroyed by its last
// reference like any other; the memory is never freed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

#include "executor/executor_arena.h"
#include "executor/executor_interface.h"
#include "executor/planned_model.h"

namespace aotrt {

constexpr size_t kArenaCallbackBytes = kAllocAlignment;  // the callback slot in front of the node
void RunArenaDestroyedCallback(void* node);               // the one in front of `node`

// An executor module object in an arena: the last reference runs its destructor, frees nothing,
// then tells the caller (ExecutorOptions::on_destroyed) that its memory is no longer used.
class ExecutorModuleInArena final : public ExecutorModuleNode {
 public:
  using ExecutorModuleNode::ExecutorModuleNode;
  static void operator delete(void* p) { RunArenaDestroyedCallback(p); }
};

// The bytes the node and its callback slot take at the front of an arena.
constexpr size_t kArenaNodeBytes =
    kArenaCallbackBytes + (sizeof(ExecutorModuleInArena) + kAllocAlignment - 1) / kAllocAlignment * kAllocAlignment;

// What an executor is built from: its model, its device, and the options its factory's executors
// get at least. Borrowed for the call it is given to.
struct ExecutorRecipe {
  const std::shared_ptr<const PlannedModel>& model;
  DLDevice device;
  const ExecutorOptions& floor;
};

// An executor in options.arena / arena_bytes. Allocates nothing from the heap once the model's
// run-time workspace has been measured (ArenaBytesNeeded, or the first call here). Throws
// kInvalidArgument (null or unaligned arena; too small, naming the bytes needed), kModelError (the
// measuring run failed) and what the executor's constructor throws.
ObjectPtr<ExecutorModuleNode> CreateExecutorInArena(const ExecutorRecipe& recipe, const ExecutorOptions& options);

// The arena bytes an executor with `options` (its arena ignored) needs, rounded up to a multiple
// of 64 (what aligned_alloc takes): the node, what the executor holds (read from the model's plan,
// PlannedExecutor::ArenaHeldBytes) and its run-time workspace. The first time per model whose
// runs may take workspace, an executor is built in scratch memory and run once on zeros to
// measure it. Throws kModelError (that run failed),
// kOutOfMemory, and what the executor's constructor throws.
size_t ArenaBytesNeeded(const ExecutorRecipe& recipe, const ExecutorOptions& options);

}  // namespace aotrt

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
#include <new>

#include "executor/executor_arena.h"
#include "executor/executor_interface.h"
#include "executor/planned_model.h"

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
  virtual const PlannedModel& model() const = 0;
  virtual size_t NodeBytes() const = 0;  // ArenaNodeBytes<the node>()
  // Constructs the InArena node at `at`, its executor drawing on `region` (ArenaExhausted past
  // the region's end: the region was not sized by the plan).
  virtual ExecutorModuleNode* Place(void* at, ExecutorArena region, const ExecutorOptions& options) const = 0;

 protected:
  ~ArenaBuild() = default;
};

// The ArenaBuild of executor module `Node`, made as Node(model, device, options, floor, region).
template <class Node, class ModelPtr>
class ArenaBuildOf final : public ArenaBuild {
 public:
  ArenaBuildOf(const ModelPtr& model, DLDevice device, const ExecutorOptions& floor)
      : model_(model), device_(device), floor_(floor) {}
  const PlannedModel& model() const override { return *model_; }
  size_t NodeBytes() const override { return ArenaNodeBytes<Node>(); }
  ExecutorModuleNode* Place(void* at, ExecutorArena region, const ExecutorOptions& options) const override {
    return ::new (at) InArena<Node>(model_, device_, options, floor_, region);
  }

 private:
  const ModelPtr& model_;
  DLDevice device_;
  const ExecutorOptions& floor_;
};

// An executor in options.arena / arena_bytes. Allocates nothing from the heap once the model's
// run-time workspace has been measured (ArenaBytesNeeded, or the first call here). Throws
// kInvalidArgument (null or unaligned arena; too small, naming the bytes needed), kModelError (the
// measuring run failed) and what the executor's constructor throws.
ObjectPtr<ExecutorModuleNode> CreateExecutorInArena(const ArenaBuild& build, const ExecutorOptions& options);

// The arena bytes an executor with `options` (its arena ignored) needs, rounded up to a multiple
// of 64 (what aligned_alloc takes): the node, what the executor holds (read from the model's plan,
// PlannedExecutor::ArenaHeldBytes) and its run-time workspace. The first time per model whose
// runs may take workspace, an executor is built in scratch memory and run once on zeros to
// measure it. Throws kModelError (that run failed),
// kOutOfMemory, and what the executor's constructor throws.
size_t ArenaBytesNeeded(const ArenaBuild& build, const ExecutorOptions& options);

}  // namespace aotrt

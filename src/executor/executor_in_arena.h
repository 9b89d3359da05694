// Executors of any kind (AOT, graph) built in caller-owned memory (ExecutorOptions::Arena), and
// the size of that memory. Layout: the ExecutorOptions::on_destroyed callback, the executor module
// object, what the executor cuts from the region in creation order (executor/executor_arena.h),
// then the run-time workspace (backend/arena_workspace.h). Usage: README.md, "an arena".
#pragma once

#include <cstddef>
#include <memory>

#include "executor/executor_module.h"
#include "executor/planned_model.h"

namespace aotrt {

// An executor of `model` on `device` in the arena options.memory holds. Allocates nothing from the heap once the model's
// run-time workspace has been measured (ArenaBytesNeeded, or the first call here). Throws
// kInvalidArgument (null or unaligned arena; too small, naming the bytes needed), kModelError (the
// measuring run failed) and what the executor's constructor throws. Once the module's last
// reference is gone, on_destroyed is called and the memory is the caller's again.
ObjectPtr<ExecutorModuleNode> CreateExecutorInArena(const std::shared_ptr<const PlannedModel>& model, DLDevice device,
                                                    const ExecutorOptions& options);

// The arena bytes an executor with `options` (options.memory ignored) needs, a multiple of 64: the node,
// what the executor holds and its run-time workspace, measured by building one in scratch memory
// (the run-time workspace by one run on zeros, the first time per model). Throws kModelError (that run
// failed), kOutOfMemory, and what the executor's constructor throws.
size_t ArenaBytesNeeded(const std::shared_ptr<const PlannedModel>& model, const ExecutorOptions& options);

}  // namespace aotrt

// Executors built in caller-owned memory (ExecutorOptions::arena), and the size of that memory.
//
// Layout of an arena: the executor module object, then what the executor cuts from the region in
// creation order (aot/executor_arena.h), then the run-time workspace (backend/arena_workspace.h).
// The object is destroyed by its last reference like any other; the memory is never freed.
#pragma once

#include <cstddef>
#include <memory>

#include "aot/executor_module.h"

namespace aotrt {

// An executor in options.arena / arena_bytes. Allocates nothing from the heap once the model's
// run-time workspace has been measured (ArenaBytesNeeded, or the first call here). Throws
// kInvalidArgument (null or unaligned arena; too small, naming the bytes needed), kModelError (the
// measuring run failed) and what AotExecutor throws.
ObjectPtr<AotExecutorModuleNode> CreateExecutorInArena(const std::shared_ptr<const LoadedModel>& model, DLDevice device,
                                                       const ExecutorOptions& options, const ExecutorOptions& floor);

// The arena bytes an executor with `options` (its arena ignored) needs. Builds one in scratch
// memory; the first time per model also runs it once on zeros to measure its run-time workspace.
// Throws kModelError (that run failed), kOutOfMemory, and what AotExecutor throws.
size_t ArenaBytesNeeded(const std::shared_ptr<const LoadedModel>& model, DLDevice device, const ExecutorOptions& options,
                        const ExecutorOptions& floor);

}  // namespace aotrt

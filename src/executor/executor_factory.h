// What the AOT and graph factories share: a model built once the library is linked, and
// executors of it, on the heap or in the caller's arena (executor/executor_in_arena.h).
// Immutable after loading: safe to use from several threads.
#pragma once

#include <memory>
#include <string>

#include "base/error_util.h"
#include "executor/executor_in_arena.h"
#include "executor/executor_module.h"

namespace aotrt {

// A factory of executors of a `Model`.
template <class Model>
class ExecutorFactoryOf : public ExecutorFactoryNode {
 public:
  using ExecutorFactoryNode::ExecutorFactoryNode;
  void RequireModel() const override { model(); }
  const ModelInfo& info() const override { return model()->info(); }
  // The model; kNotFound when the factory is not linked to its library (NoModelReason says why).
  const std::shared_ptr<const Model>& model() const {
    if (model_ == nullptr) AOTRT_THROW(kNotFound, type_key(), " '", module_name_, "' ", NoModelReason());
    return model_;
  }
  // A new executor on `device` with `options` and the factory's defaults; in the caller's arena
  // when options.memory is one. Throws kInvalidArgument (device, arena), kOutOfMemory.
  ObjectPtr<ExecutorModuleNode> CreateExecutor(DLDevice device, const ExecutorOptions& options) override {
    if (std::holds_alternative<ExecutorOptions::Arena>(options.memory)) {
      return CreateExecutorInArena(model(), device, WithDefaults(options));
    }
    return MakeObject<ExecutorModuleNode>(model(), device, WithDefaults(options));
  }
  size_t ArenaBytes(const ExecutorOptions& options) const override { return ArenaBytesNeeded(model(), options); }

 protected:
  virtual std::string NoModelReason() const = 0;
  std::shared_ptr<const Model> model_;  // set by OnImportsLinked
};

}  // namespace aotrt

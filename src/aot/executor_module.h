// The `AotExecutor` module: an AOT model's executor (executor/planned_executor.h) behind TVM's
// packed-function interface (ABI.md 8.2, plus what TVM leaves out), as factory["<model>"](device)
// returns it. A thin wrapper: every function forwards to the executor, with its threading rules.
#pragma once

#include <memory>
#include <string>

#include "aot/loaded_model.h"
#include "executor/executor_functions.h"
#include "executor/planned_executor.h"

namespace aotrt {

class AotExecutorModuleNode : public ExecutorModuleNode {
 public:
  AotExecutorModuleNode(std::shared_ptr<const LoadedModel> model, DLDevice device, const ExecutorOptions& options,
                        const ExecutorOptions& floor, ExecutorArena arena = ExecutorArena())
      : model_(model), executor_(std::move(model), device, options, floor, arena),
        on_destroyed_(arena.defined() ? nullptr : options.on_destroyed),
        on_destroyed_data_(options.on_destroyed_data) {}
  // An executor on the heap touches no caller memory while it is destroyed: the callback can run
  // first. (One in an arena calls it after, executor/executor_in_arena.cc.)
  ~AotExecutorModuleNode() override {
    if (on_destroyed_) on_destroyed_(on_destroyed_data_);
  }
  const char* type_key() const override { return "AotExecutor"; }
  int GetPropertyMask() const override { return kModuleRunnable; }
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override {
    return ExecutorFunction(&executor_, name, self);
  }

  PlannedExecutor& executor() override { return executor_; }
  const LoadedModel& model() const { return *model_; }

 private:
  std::shared_ptr<const LoadedModel> model_;
  PlannedExecutor executor_;
  void (*on_destroyed_)(void*);
  void* on_destroyed_data_;
};

}  // namespace aotrt

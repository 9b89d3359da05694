// The module objects of executors and of their factories, for AOT and graph exports alike: what
// aotrt::Model and aotrt::Executor (aotrt/model.h) wrap. The executor itself is PlannedExecutor
// (executor/planned_executor.h).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aotrt/model_info.h"
#include "aotrt/module.h"
#include "aotrt/ndarray.h"
#include "aotrt/options.h"
#include "executor/planned_executor.h"

namespace aotrt {

// A module that runs a model (TVM's AotExecutor, GraphExecutor and debug executor modules): the
// executor behind TVM's packed-function interface (ABI.md 8.2, plus what TVM leaves out, and what
// the model adds: PlannedModel::ExecutorModuleFunction). Every function forwards to the executor,
// with its threading rules.
class ExecutorModuleNode : public ModuleNode {
 public:
  // `debug`: the debug executor (tvm.graph_executor_debug.create). In a region (`arena`),
  // ExecutorOptions::on_destroyed is called once the node's memory is left
  // (executor/executor_in_arena.h); on the heap, as the node is destroyed.
  ExecutorModuleNode(std::shared_ptr<const PlannedModel> model, DLDevice device, const ExecutorOptions& options,
                     const ExecutorOptions& floor, ExecutorArena arena = ExecutorArena(), bool debug = false)
      : model_(model), executor_(std::move(model), device, options, floor, arena), debug_(debug),
        on_destroyed_(arena.defined() ? nullptr : options.on_destroyed), on_destroyed_data_(options.on_destroyed_data) {}
  // An executor on the heap touches no caller memory while it is destroyed: the callback runs
  // first. (One in an arena calls it after, executor/executor_in_arena.cc.)
  ~ExecutorModuleNode() override {
    if (on_destroyed_) on_destroyed_(on_destroyed_data_);
  }
  const char* type_key() const override { return model_->ExecutorTypeKey(debug_); }
  int GetPropertyMask() const override { return kModuleRunnable; }
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override;
  PlannedExecutor& executor() { return executor_; }
  const PlannedModel& model() const { return *model_; }

 private:
  std::shared_ptr<const PlannedModel> model_;
  PlannedExecutor executor_;
  bool debug_;
  void (*on_destroyed_)(void*);
  void* on_destroyed_data_;
};

// A module that creates executors of one model (TVM's AotExecutorFactory and
// GraphExecutorFactory): what aotrt::Model wraps.
class ExecutorFactoryNode : public ModuleNode {
 public:
  // `executor_floor`: options every executor of this factory gets at least (the load's
  // LoadOptions::executor, with the environment's additions).
  ExecutorFactoryNode(std::string module_name, const ExecutorOptions& executor_floor)
      : module_name_(std::move(module_name)), executor_floor_(executor_floor) {}
  int GetPropertyMask() const override { return kModuleBinarySerializable; }  // as TVM
  std::string MissingFunctionHint(const std::string&) const override {
    return "the library's model is '" + module_name_ + "': create an executor with lib[\"" + module_name_ +
           "\"](device)";
  }
  const std::string& module_name() const { return module_name_; }
  // Throws kNotFound when the factory is not linked to its model (no metadata module, no library).
  virtual void RequireModel() const = 0;
  virtual const ModelInfo& info() const = 0;
  // Throws kInvalidArgument (device, options), kOutOfMemory.
  virtual ObjectPtr<ExecutorModuleNode> CreateExecutor(DLDevice device, const ExecutorOptions& options) = 0;
  // The bytes of ExecutorOptions::arena an executor with `options` needs.
  virtual size_t ArenaBytes(const ExecutorOptions& options) const = 0;

 protected:
  // The functions both factories have (list_module_names, get_params: Map<String, NDArray>, and
  // remove_params: WithoutParams()), which `self` keeps alive; empty for another name.
  PackedFunc FactoryFunction(const std::string& name, const ObjectPtr<ModuleNode>& self);
  virtual const std::vector<NamedArray>& params() const = 0;
  // A copy of this factory without its params, importing the same module.
  virtual ObjectPtr<ExecutorFactoryNode> WithoutParams() const = 0;

  const std::string module_name_;
  const ExecutorOptions executor_floor_;
};

}  // namespace aotrt

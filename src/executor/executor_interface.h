// The module objects of executors and of their factories, AOT and graph alike: what aotrt::Model
// and aotrt::Executor (aotrt/model.h) wrap.
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

// TVM's AotExecutor, GraphExecutor and debug executor modules: a PlannedExecutor behind the
// packed functions of executor/executor_functions.h and PlannedModel::ExecutorModuleFunction, with
// the executor's threading rules.
class ExecutorModuleNode : public ModuleNode {
 public:
  // `debug`: the debug executor. ExecutorOptions::on_destroyed: on the heap, called first thing in
  // the destructor; in a region (`arena`), once the node's memory is left (executor_in_arena.cc).
  ExecutorModuleNode(std::shared_ptr<const PlannedModel> model, DLDevice device, const ExecutorOptions& options,
                     const ExecutorOptions& floor, ExecutorArena arena = ExecutorArena(), bool debug = false)
      : executor_(std::move(model), device, options, floor, arena), debug_(debug),
        on_destroyed_(arena.defined() ? nullptr : options.on_destroyed), on_destroyed_data_(options.on_destroyed_data) {}
  ~ExecutorModuleNode() override {
    if (on_destroyed_) on_destroyed_(on_destroyed_data_);
  }
  const char* type_key() const override { return model().ExecutorTypeKey(debug_); }
  int GetPropertyMask() const override { return kModuleRunnable; }
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override;
  PlannedExecutor& executor() { return executor_; }
  const PlannedModel& model() const { return executor_.model(); }

 private:
  PlannedExecutor executor_;
  bool debug_;
  void (*on_destroyed_)(void*);
  void* on_destroyed_data_;
};

// TVM's AotExecutorFactory and GraphExecutorFactory: creates executors of one model.
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

// The module objects of executors and of their factories, AOT and graph alike (what aotrt::Model
// and aotrt::Executor, aotrt/model.h, wrap), and the packed functions every executor module offers
// (set_input, run, get_output, ...: ABI.md 8.2, plus what TVM leaves out) over PlannedExecutor,
// with the helpers the models' own functions share.
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

namespace dmlc {
class Stream;
}

namespace aotrt {

// TVM's AotExecutor, GraphExecutor and debug executor modules: a PlannedExecutor behind the
// packed functions below and PlannedModel::ExecutorModuleFunction, with
// the executor's threading rules.
class ExecutorModuleNode : public ModuleNode {
 public:
  // `debug`: the debug executor. ExecutorOptions::on_destroyed: on the heap, called first thing in
  // the destructor; in a region (`arena`), once the node's memory is left (executor_in_arena.cc).
  ExecutorModuleNode(std::shared_ptr<const PlannedModel> model, DLDevice device, const ExecutorOptions& options,
                     ExecutorArena arena = ExecutorArena(), bool debug = false)
      : executor_(std::move(model), device, options, arena), debug_(debug),
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
  // `defaults`: what every executor of this factory gets (the load's LoadOptions::executor, with
  // the environment's additions).
  ExecutorFactoryNode(std::string module_name, const ExecutorDefaults& defaults)
      : module_name_(std::move(module_name)), defaults_(defaults) {}
  int GetPropertyMask() const override { return kModuleBinarySerializable; }  // as TVM
  std::string MissingFunctionHint(const std::string&) const override {
    return "the library's model is '" + module_name_ + "': create an executor with GetFunction(\"" + module_name_ +
           "\")(device) (lib[\"" + module_name_ + "\"](device) in Python)";
  }
  const std::string& module_name() const { return module_name_; }
  // The payload as TVM's factories write it (ABI.md 6.3): SaveHead's, the params (u64 count, names,
  // arrays), the module name.
  std::string SaveToBinary() const override;
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
  // What the payload begins with (a graph factory's graph JSON).
  virtual void SaveHead(dmlc::Stream* s) const {}
  // A copy of this factory without its params, importing the same module.
  virtual ObjectPtr<ExecutorFactoryNode> WithoutParams() const = 0;

  // `options` with defaults_ added: the heap's switches turned on, the thread count where it is 0.
  ExecutorOptions WithDefaults(ExecutorOptions options) const;

  const std::string module_name_;
  const ExecutorDefaults defaults_;
};

// A packed function of an executor module, over its executor.
struct ExecutorMethod {
  const char* name;
  void (*fn)(PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv);
};
// The method `name` of [m, end) bound to `ex`, which `self` (its module) keeps alive; empty when none.
PackedFunc MethodFunction(const ExecutorMethod* m, const ExecutorMethod* end, PlannedExecutor* ex,
                          const std::string& name, const ObjectPtr<ModuleNode>& self);
// The function `name` every executor has; empty for another name.
PackedFunc ExecutorFunction(PlannedExecutor* ex, const std::string& name, const ObjectPtr<ModuleNode>& self);

// The index an argument names: an input (`output`: output) name, as InputIndex / OutputIndex
// read it, or a non-negative index (kOutOfRange otherwise).
size_t IndexArg(PlannedExecutor* ex, TVMArgValue a, bool output = false);
// The (name, array) pairs from args[first] on (a factory's create global), each array copied.
std::vector<NamedArray> CopiedNamedArrays(TVMArgs args, int first);
// Check `t` against the tensor `spec` of the model: CPU 0 (kInvalidArgument), dtype
// (kTypeMismatch: the same dtype, or with `convertible` one the conversion rule may accept,
// CheckConversion in aotrt/ndarray.h), shape (kShapeMismatch), contiguous and with data
// (kInvalidArgument). Messages begin with "<kind> <index> ('<name>')".
void CheckTensorAgainstSpec(const char* kind, size_t index, const TensorInfo& spec, const DLTensor& t,
                            bool convertible = false);

// GraphExecutor's get_input_info convention: {"shape": Map<String, ShapeTuple>, "dtype": Map<String, String>}.
void SetTensorInfoResult(TVMRetValue* rv, const std::vector<TensorInfo>& specs);

}  // namespace aotrt

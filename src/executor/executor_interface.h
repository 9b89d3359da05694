// What every executor offers, whatever runs the model (the AOT entry function, a graph of
// operator calls): the calls aotrt::Executor (aotrt/model.h) and the executors' packed functions
// make. The one implementation is PlannedExecutor (executor/planned_executor.h), for AOT and graph models.
// Errors and thread-safety as aotrt::Executor documents them.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "aotrt/model_info.h"
#include "aotrt/module.h"
#include "aotrt/ndarray.h"
#include "aotrt/options.h"

namespace aotrt {

class ArenaWorkspace;  // backend/arena_workspace.h

// A contiguous CPU tensor over `data` with `shape`, which it borrows (it must outlive the tensor):
// how executors pass their buffers to generated code.
inline DLTensor CpuTensor(void* data, const std::vector<int64_t>& shape, DLDataType dtype) {
  DLTensor t{};
  t.data = data;
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int32_t>(shape.size());
  t.dtype = dtype;
  t.shape = const_cast<int64_t*>(shape.data());
  return t;
}

class ExecutorInterface {
 public:
  virtual ~ExecutorInterface() = default;
  virtual const ModelInfo& Info() const = 0;
  // Index of an input / output by name. Throws kNotFound ("Invalid input name", with the valid names).
  virtual size_t InputIndex(const std::string& name) const = 0;
  virtual size_t OutputIndex(const std::string& name) const = 0;
  // Copy `t` into input i after checking shape, device and contiguity (kOutOfRange,
  // kShapeMismatch, kInvalidArgument); another dtype is converted by ConvertTensor's rule
  // (aotrt/ndarray.h; kTypeMismatch). Rebinds the input to executor storage.
  virtual void SetInput(size_t i, const DLTensor& t) = 0;
  // Use the caller's memory for input/output i from now on (no copy; checked as SetInput, and for
  // 64-byte alignment). `keep` (may be undefined) is held while bound; a raw DLTensor's memory
  // must outlive its binding.
  virtual void SetInputZeroCopy(size_t i, const DLTensor& t, NDArray keep) = 0;
  virtual void SetOutputZeroCopy(size_t i, const DLTensor& t, NDArray keep) = 0;
  // The tensor input/output i currently uses (aliases executor or caller storage).
  virtual NDArray GetInput(size_t i) = 0;
  virtual NDArray GetOutput(size_t i) const = 0;
  // Copy output i into `out` (same shape and dtype required).
  virtual void CopyOutputTo(size_t i, DLTensor* out) const = 0;
  // Run the model once. Throws kModelError with the model's message; the executor stays usable.
  virtual void Run() = 0;
  virtual bool check_bounds() const = 0;
  // In the caller's arena (ExecutorOptions::arena, executor/executor_in_arena.h): the bytes of it
  // this executor holds for itself, and the rest, its run-time workspace.
  virtual size_t arena_used() const { return 0; }
  virtual const ArenaWorkspace* arena_workspace() const { return nullptr; }

  // Operators that run as calls of their own (a graph's nodes), for the measured per-operator
  // profile and the debug executor. An executor whose model is one call (AOT) has none.
  struct OpDescription {
    std::string name;      // the node
    std::string function;  // the library function it calls
    std::string shapes;    // its arguments, "float32[1, 16, 56, 56], ..."
  };
  virtual size_t NumOps() const { return 0; }
  virtual void RunOp(size_t) {}
  virtual OpDescription DescribeOp(size_t) const { return OpDescription(); }
};

// A module that runs a model (TVM's AotExecutor and GraphExecutor modules).
class ExecutorModuleNode : public ModuleNode {
 public:
  virtual ExecutorInterface& executor() = 0;
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
  const std::string module_name_;
  const ExecutorOptions executor_floor_;
};

}  // namespace aotrt

// The aotrt C++ API for models: load a model library, create executors, run them (README, "C++").
//
// Ownership and lifetime: Model and Executor are cheap reference-counted handles; an Executor
// keeps its model library loaded, so it may outlive the Model it came from. Weights (constant
// pool, factory params) are held once per loaded model and shared read-only by its executors.
// Thread-safety: a Model may be used from any thread. One Executor is for one thread at a time;
// different Executors may run concurrently on different threads without locks.
// Errors: every call throws aotrt::Error (aotrt/error.h) with the code named per call.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aotrt/error.h"
#include "aotrt/export.h"
#include "aotrt/model_info.h"
#include "aotrt/module.h"
#include "aotrt/ndarray.h"
#include "aotrt/options.h"

namespace aotrt {

class PlannedExecutor;
namespace vm {
class VMExecutor;
}

// A default-constructed (empty) Executor or Model throws kInvalidArgument from every call.
class AOTRT_API Executor {
 public:
  Executor() = default;

  size_t NumInputs() const;
  size_t NumOutputs() const;
  const TensorInfo& Input(size_t i) const;   // kOutOfRange
  const TensorInfo& Output(size_t i) const;  // kOutOfRange
  // Index of an input by name; `input:0` and `input_0` both match (TVM's sanitizing). kNotFound,
  // with a message containing "Invalid input name", the name given and the valid names.
  size_t InputIndex(const std::string& name) const;
  size_t OutputIndex(const std::string& name) const;  // kNotFound

  // Copy `t` into the input. The shape must equal the model's (kShapeMismatch); another dtype is
  // converted by the one rule of aotrt::ConvertTensor (aotrt/ndarray.h): accepted only when every
  // value survives, else kTypeMismatch naming the input and the first value that does not (the
  // input keeps its old contents); CPU 0 and contiguous (kInvalidArgument). Zero-copy below needs
  // the model's dtype exactly.
  void SetInput(const std::string& name, const DLTensor& t);
  void SetInput(size_t index, const DLTensor& t);
  // Use the caller's memory in place from now on: same checks plus 64-byte alignment. The memory
  // must stay valid until replaced by another SetInput*/SetOutput* call or the executor is gone.
  void SetInputZeroCopy(size_t index, const DLTensor& t);
  void SetOutputZeroCopy(size_t index, const DLTensor& t);
  // The tensors the model reads and writes (aliases: the next Run overwrites outputs).
  NDArray GetInput(size_t index);
  NDArray GetOutput(size_t index) const;
  // Copy output `index` into `out` (same shape and dtype).
  void CopyOutputTo(size_t index, DLTensor* out) const;
  // Run the model once: no allocation, no lookup, no lock. kModelError carries the model's own
  // message, or (checking bounds) names the pool the model wrote past; the executor stays usable.
  void Run();
  // On a device (OpenCL), Run() enqueues the model's kernels and returns; this waits until they and
  // every copy before them are done (GetOutput's copies to the host wait by themselves). Nothing to
  // wait for on the CPU. Throws kModelError when a kernel failed.
  void Synchronize() const;
  // Whether Run() checks for writes past the workspace (ExecutorOptions::Heap, AOTRT_CHECK_BOUNDS).
  bool ChecksBounds() const;

  // One-call inference: copy the inputs in with SetInput's checks, Run(), and return every
  // output as a new array in output order: COPIES owned by the caller (64-byte aligned, CPU),
  // unchanged by later runs, free to outlive the executor (README "One-call inference" has the cost).
  // By position: exactly NumInputs() tensors, in input order (kInvalidArgument otherwise). By
  // name: any subset (names as InputIndex); inputs not named keep their current contents (a
  // previous SetInput, or the factory's params); naming one input twice is kInvalidArgument. The
  // tensors are borrowed for the call only. Errors: those of SetInput (kNotFound for an unknown
  // name, kShapeMismatch, kTypeMismatch, kInvalidArgument) and of Run (kModelError); kOutOfMemory
  // for the output copies. Every input is checked before any is copied, so a bad input changes
  // nothing; a model error leaves the inputs set. Thread-safety: as Run().
  std::vector<NDArray> Run(const std::vector<DLTensor>& inputs);
  std::vector<NDArray> Run(const std::vector<std::pair<std::string, DLTensor>>& inputs);

  // The model it runs (shared with the Model and every other executor of it).
  const ModelInfo& Info() const;

  // The executor as a TVM module (`set_input`, `run`, ... as packed functions).
  const Module& module() const { return module_; }

 private:
  friend class Model;
  explicit Executor(Module module) : module_(std::move(module)) {}
  explicit Executor(std::shared_ptr<vm::VMExecutor> vm);
  PlannedExecutor& impl() const;  // kInvalidArgument when empty
  void RunModel();
  Module module_;                   // an AotExecutor, GraphExecutor or VirtualMachine module
  std::shared_ptr<vm::VMExecutor> vm_;  // a Relay VM export's (Model::Load says how it differs)
};

class AOTRT_API Model {
 public:
  Model() = default;
  // Load a TVM export: an AOT or graph factory library, a C-interface archive, a graph package
  // (folder or tvmc .tar with mod.so, mod.json, mod.params), a Relay VM export (vm.so, a tvmc VM
  // package, a folder of code.ro and lib.so; the two files named apart: FromModule of
  // LoadVMExecutable, aotrt/vm.h); the model is built and validated here (metadata, constants,
  // params, every VM primitive), so that a bad model fails at load. `options` apply to this load
  // and its executors, with what the environment adds (aotrt/options.h). Throws like
  // Module::LoadFromFile; kInvalidArgument when the library's root is not an executor factory or
  // VM executable, or an AOTRT_* variable has a value it does not take (the message names the
  // variable, its value and what it expects); kNotFound for a VM executable without "main".
  // A VM export runs its function "main": its inputs are dynamic (TensorInfo::dynamic: any shape
  // and dtype, no conversion), its outputs those of the executor's last run (none before one; a
  // tuple's tensors depth-first). Its executors are on the heap (no arena, no bounds checking),
  // and their runs allocate nothing once shapes repeat.
  static Model Load(const std::string& path, const LoadOptions& options = LoadOptions());
  static Model LoadFromMemory(const void* data, size_t size, const LoadOptions& options = LoadOptions());
  // A graph export given as relay.build's classic triple (README "Graph executor exports"): the
  // library's path, the graph JSON text and the params file's bytes ("" for none); the params are
  // held once and shared by every executor. Throws as Load, and kFormatError for a malformed graph
  // JSON or params (naming the field or the param), kNotFound for a function the library lacks or a
  // param that is no input, kTypeMismatch / kShapeMismatch for a param unlike its input.
  static Model LoadGraph(const std::string& library, const std::string& graph_json, const std::string& params = "",
                         const LoadOptions& options = LoadOptions());
  // Wrap an already loaded factory module (e.g. from Module::SystemLib()).
  static Model FromModule(Module factory);

  // The factory's model name (e.g. "default"), as passed to factory["<name>"](device).
  const std::string& name() const;
  // A new executor with its own inputs, outputs and workspace; `options` add to the model's
  // LoadOptions::executor. `device`: where the model was compiled to run, CPU 0 for CPU exports,
  // an OpenCL device (Device{kDLOpenCL, N}) for OpenCL exports, whose tensors then live in device
  // memory (GetOutput returns device arrays; SetInput copies from any device). kInvalidArgument: a
  // device of another type than the export's, no such device on this machine (the message says
  // what to install), or a device type aotrt has no driver for; an arena for a VM export.
  Executor CreateExecutor(DLDevice device = DLDevice{kDLCPU, 0}, const ExecutorOptions& options = ExecutorOptions()) const;
  // The bytes of ExecutorOptions::Arena an executor created with `options` needs (their memory
  // is ignored here: the arena's size depends on the rest), a multiple of 64. For a model whose run takes
  // TVMBackendAllocWorkspace scratch, the first call per model (here or a CreateExecutor in an
  // arena) runs the model once on zero inputs to measure it, allocating from the heap (README
  // "The whole executor in your memory"). Throws kModelError when that run fails, kOutOfMemory;
  // kInvalidArgument for a VM export (its memory is known only as it runs).
  size_t ArenaBytes(const ExecutorOptions& options = ExecutorOptions()) const;

  // Everything about the model: tensors, memory per executor and shared, runtime symbols.
  const ModelInfo& Info() const;
  const std::vector<TensorInfo>& Inputs() const { return Info().inputs; }
  const std::vector<TensorInfo>& Outputs() const { return Info().outputs; }
  size_t WorkspaceBytes() const { return Info().workspace_bytes; }  // per executor
  size_t SlackBytes() const { return Info().slack_bytes; }          // per executor: room after its pools (address space)
  size_t ConstantBytes() const { return Info().constant_bytes; }    // shared by all executors
  size_t ParamBytes() const { return Info().param_bytes; }          // shared by all executors
  const Module& module() const { return factory_; }

 private:
  Module factory_;  // an Aot/GraphExecutorFactory or VMExecutable module, linked to its model
  std::shared_ptr<const ModelInfo> vm_info_;  // a VM executable's
};

}  // namespace aotrt

// The aotrt C++ API for AOT models: load a model library, create executors, run them.
//
//   aotrt::Model model = aotrt::Model::Load("model.so");
//   aotrt::Executor ex = model.CreateExecutor();
//   ex.SetInput("data", input_tensor);   // any DLTensor; checked against the model
//   ex.Run();
//   aotrt::NDArray out = ex.GetOutput(0);
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
#include <vector>

#include "aotrt/error.h"
#include "aotrt/export.h"
#include "aotrt/model_info.h"
#include "aotrt/module.h"
#include "aotrt/ndarray.h"

namespace aotrt {

class AotExecutor;

// Options of one executor, fixed when it is created.
struct ExecutorOptions {
  // Checking mode for models whose generated code writes past the memory planned for it (a
  // compiler bug). Every workspace pool and TVMBackendAllocWorkspace block is followed by room
  // at least its own size that absorbs such a write, committed only where written (a reserve of
  // address space; README "When a model writes past its memory"); with check_bounds, Run() also
  // looks after every run for what was written there and throws kModelError naming the model, the
  // pool (or block) and the exact bytes, e.g. "model 'default' wrote 1,247,056 bytes past
  // workspace pool 'global_workspace' (5,233,328 bytes) in m.so: ...". The outputs of that run
  // are complete; the executor stays usable. It reads only the reserve's resident pages (mincore),
  // so checking keeps the reserve free; bench/README.md has the cost per run.
  // The environment variable AOTRT_CHECK_BOUNDS=1 turns it on for every executor created.
  bool check_bounds = false;
  // Back this executor's buffers of 2 MiB and more (workspace pools, its own inputs and outputs)
  // with transparent huge pages (madvise MADV_HUGEPAGE): the first run then faults in one zeroed
  // 2 MiB page where it would fault 512 small ones, about 10x less time for those faults here
  // (bench/README.md). Off by default because it does not pay everywhere: with THP defrag set to
  // "madvise" a fault may compact memory synchronously, and in a VM that returns free memory to
  // its host (virtio-balloon free page reporting) a huge page may first have to be faulted in by
  // the host (9-20 ms outliers measured). No effect when THP is "never". Memory: a huge page is
  // resident whole once touched. AOTRT_HUGE_PAGES=1 turns it on for every executor created.
  bool huge_pages = false;
};

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
  // Whether Run() checks for writes past the workspace (ExecutorOptions, AOTRT_CHECK_BOUNDS).
  bool ChecksBounds() const;

  // The model it runs (shared with the Model and every other executor of it).
  const ModelInfo& Info() const;

  // The executor as a TVM module (`set_input`, `run`, ... as packed functions).
  const Module& module() const { return module_; }

 private:
  friend class Model;
  explicit Executor(Module module) : module_(std::move(module)) {}
  AotExecutor& impl() const;  // kInvalidArgument when empty
  Module module_;             // an AotExecutor module
};

// Options of loading a model, fixed for its lifetime.
struct LoadOptions {
  // The per-machine constant cache: a memory-planned model's constant pool of 64 KiB or more is
  // assembled once per machine into a file that every process then maps read-only (the same
  // page-cache pages), not copied into each process. Off when false or when
  // AOTRT_CONSTANT_CACHE=0. Any failure of the cache (directory not writable, disk full, another
  // process building for over a minute) falls back to a private copy, never an error.
  // AOTRT_CONSTANT_CACHE_VERIFY=1 hashes the whole cached pool at every load (otherwise its
  // header and sampled blocks are checked); AOTRT_CACHE_MAX_MB (default 4096) bounds the
  // directory, least recently used files removed first. Details: src/aot/constant_cache.h.
  bool constant_cache = true;
  // Its directory; "" means $AOTRT_CACHE_DIR, else $XDG_CACHE_HOME/aotrt, else $HOME/.cache/aotrt.
  // The directory must be trusted: whoever can write it can change a model's constants.
  std::string cache_dir;
};

class AOTRT_API Model {
 public:
  Model() = default;
  // Load a TVM AOT export; the model is built and validated here (metadata, constants, params),
  // so that a bad model fails at load. Throws like Module::LoadFromFile, kInvalidArgument when
  // the library's root is not an AotExecutorFactory or AOTRT_CONSTANT_CACHE(_VERIFY) is not 0/1.
  static Model Load(const std::string& path, const LoadOptions& options = LoadOptions());
  static Model LoadFromMemory(const void* data, size_t size, const LoadOptions& options = LoadOptions());
  // Wrap an already loaded factory module (e.g. from Module::SystemLib()).
  static Model FromModule(Module factory);

  // The factory's model name (e.g. "default"), as passed to factory["<name>"](device).
  const std::string& name() const;
  // A new executor with its own inputs, outputs and workspace. kInvalidArgument: not CPU 0, or
  // AOTRT_CHECK_BOUNDS set to something other than 0 or 1.
  Executor CreateExecutor(DLDevice device = DLDevice{kDLCPU, 0}, const ExecutorOptions& options = ExecutorOptions()) const;

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
  Module factory_;  // an AotExecutorFactory module, linked to its model
};

}  // namespace aotrt

// AotExecutor: runs one model with its own inputs, outputs and workspace pools.
//
// Built from a LoadedModel (aot/loaded_model.h), which it shares with the factory and every other
// executor: the constant pool and the params are read-only there. The argument list of the model's
// entry function is built once at creation; Run() is a single indirect call with no allocation,
// lookup or lock. Its packed-function interface is AotExecutorModuleNode (aot/executor_module.h).
// Thread-safety: one executor is for one thread at a time; different executors (of the same or
// different models) may run concurrently on different threads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "aot/loaded_model.h"
#include "aot/pool_buffer.h"
#include "aotrt/options.h"
#include "aotrt/ndarray.h"

namespace aotrt {

class AotExecutor {
 public:
  // Throws kInvalidArgument for a device other than CPU 0, kOutOfMemory.
  // options.check_bounds: after every run, look for writes past the workspace pools and blocks;
  // options.huge_pages: advise huge pages for the buffers of 2 MiB and more (aotrt/options.h).
  AotExecutor(std::shared_ptr<const LoadedModel> model, DLDevice device, const ExecutorOptions& options);
  AotExecutor(const AotExecutor&) = delete;
  AotExecutor& operator=(const AotExecutor&) = delete;

  const ModelMetadata& metadata() const { return model_->metadata(); }
  const LoadedModel& model() const { return *model_; }
  // Index of an input by name (sanitized before lookup). Throws kNotFound ("Invalid input name").
  size_t InputIndex(const std::string& name) const;
  // Index of an output by name (output0, output1, ...). Throws kNotFound.
  size_t OutputIndex(const std::string& name) const;
  // Copy `t` into input i after checking shape, device and contiguity (kOutOfRange,
  // kShapeMismatch, kInvalidArgument); another dtype is converted by ConvertTensor's rule
  // (aotrt/ndarray.h; kTypeMismatch). Rebinds the input to executor storage.
  void SetInput(size_t i, const DLTensor& t);
  // Use the caller's memory for input/output i from now on (no copy). `keep` (may be undefined)
  // is held while bound; a raw DLTensor must outlive its binding. Checks also 64-byte alignment.
  void SetInputZeroCopy(size_t i, const DLTensor& t, NDArray keep);
  void SetOutputZeroCopy(size_t i, const DLTensor& t, NDArray keep);
  // The tensor input/output i currently uses (aliases executor or caller storage).
  NDArray GetInput(size_t i);
  NDArray GetOutput(size_t i) const;
  // Copy output i into `out` (same shape and dtype required).
  void CopyOutputTo(size_t i, DLTensor* out) const;
  // Run the model once. Throws kModelError with the model's message; the executor stays usable.
  // With check_bounds, also kModelError when the model wrote past a workspace pool or block
  // (the reserve absorbed it; it is restored, so the next run is checked afresh).
  void Run();
  bool check_bounds() const { return check_bounds_; }

 private:
  struct Slot {
    enum Kind { kOwn, kParam, kCaller };
    NDArray own;    // this executor's storage, allocated when first needed
    NDArray bound;  // the array whose memory the entry argument points into
    Kind kind = kOwn;
  };
  void CheckIndex(const char* kind, size_t i, size_t n) const;
  void Bind(size_t arg, Slot* slot, NDArray array, Slot::Kind kind);
  void AdviseHugePagesForBuffers();
  void BindOwnInput(size_t i);
  void CallEntry();
  void RunChecked();

  std::shared_ptr<const LoadedModel> model_;  // keeps the library loaded
  const ModelProgram* program_;               // model_->program(), for the hot path
  std::vector<Slot> inputs_;
  std::vector<Slot> outputs_;
  std::vector<PoolBuffer> workspace_pools_;
  bool check_bounds_ = false;
  bool huge_pages_ = false;
  TVMBackendPackedCFunc entry_ = nullptr;  // program_->entry, kept here for the hot path
  // The entry's arguments, built once: one DLTensor per argument, and the value/code arrays.
  std::vector<DLTensor> arg_tensors_;
  std::vector<TVMValue> arg_values_;
  std::vector<int> arg_codes_;
  // C interface (program_->c_run): the same arguments as raw pointers, inputs | outputs | pools.
  ModelProgram::CRunFunc c_run_ = nullptr;
  std::vector<void*> raw_args_;
  void SetArg(size_t arg, const DLTensor& t);
};

}  // namespace aotrt

// AotExecutor: runs one model with its own inputs, outputs and workspace pools.
//
// Built from a LoadedModel (aot/loaded_model.h), which it shares with the factory and every other
// executor: the constant pool and the params are read-only there. The argument list of the model's
// entry function is built once at creation; Run() is a single indirect call with no allocation,
// lookup or lock. Its packed-function interface is AotExecutorModuleNode (aot/executor_module.h).
// Its memory comes from the heap, or from one region the caller provides (`arena`, see
// executor/executor_arena.h): then creation and Run() allocate nothing, its own inputs and outputs live
// in the region (GetInput/GetOutput return views of it), and the run-time workspace of a model
// without memory planning is served from the rest of the region (backend/arena_workspace.h).
// Thread-safety: one executor is for one thread at a time; different executors (of the same or
// different models) may run concurrently on different threads.
#pragma once

#include <memory>
#include <memory_resource>
#include <string>
#include <vector>

#include "executor/executor_arena.h"
#include "aot/loaded_model.h"
#include "aot/pool_buffer.h"
#include "backend/arena_workspace.h"
#include "aotrt/options.h"
#include "aotrt/ndarray.h"
#include "executor/executor_interface.h"

namespace aotrt {

class AotExecutor final : public ExecutorInterface {
 public:
  // Throws kInvalidArgument for a device other than CPU 0, kOutOfMemory; in a region, ArenaExhausted.
  // options.check_bounds: after every run, look for writes past the workspace pools and blocks;
  // options.huge_pages: advise huge pages for the buffers of 2 MiB and more (aotrt/options.h).
  // `floor` (the model's LoadOptions::executor) turns those on too. `arena` (may be empty: the
  // heap) is the region to build in; neither check applies there (the caller's memory has no room
  // after its buffers and is the caller's to advise).
  AotExecutor(std::shared_ptr<const LoadedModel> model, DLDevice device, const ExecutorOptions& options,
              const ExecutorOptions& floor, ExecutorArena arena = ExecutorArena());
  AotExecutor(const AotExecutor&) = delete;
  AotExecutor& operator=(const AotExecutor&) = delete;

  const ModelMetadata& metadata() const { return model_->metadata(); }
  const LoadedModel& model() const { return *model_; }
  const ModelInfo& Info() const override { return model_->info(); }
  size_t InputIndex(const std::string& name) const override;  // name sanitized before lookup
  size_t OutputIndex(const std::string& name) const override;
  void SetInput(size_t i, const DLTensor& t) override;
  void SetInputZeroCopy(size_t i, const DLTensor& t, NDArray keep) override;
  void SetOutputZeroCopy(size_t i, const DLTensor& t, NDArray keep) override;
  NDArray GetInput(size_t i) override;
  NDArray GetOutput(size_t i) const override;
  void CopyOutputTo(size_t i, DLTensor* out) const override;
  // With check_bounds, also kModelError when the model wrote past a workspace pool or block
  // (the reserve absorbed it; it is restored, so the next run is checked afresh).
  void Run() override;
  bool check_bounds() const override { return check_bounds_; }
  size_t arena_used() const override { return arena_.used() - arena_workspace_.capacity(); }
  const ArenaWorkspace* arena_workspace() const override { return &arena_workspace_; }

 private:
  struct Slot {
    enum Kind { kOwn, kParam, kCaller };
    NDArray own;              // this executor's storage on the heap, allocated when first needed
    uint8_t* own_data = nullptr;  // that storage's bytes (in the region, when the executor is in one)
    NDArray bound;            // what the entry argument points into: own, a param, or the caller's
                              // array; undefined for own storage in a region or a caller's raw DLTensor
    Kind kind = kOwn;
  };
  void CheckIndex(const char* kind, size_t i, size_t n) const;
  const TensorSpec& SpecOf(size_t arg) const;
  void Bind(size_t arg, Slot* slot, void* data, NDArray keep, Slot::Kind kind);
  uint8_t* OwnStorage(Slot* slot, const TensorSpec& spec);
  DLTensor OwnTensor(size_t i) const;
  NDArray Array(size_t arg) const;
  void AdviseHugePagesForBuffers();
  void BindOwnInput(size_t i);
  void CallEntry();
  void CallEntryOnce();
  void RunChecked();

  ExecutorArena arena_;              // declared first: every container below may draw on it
  std::pmr::memory_resource* memory_;  // &arena_, or the heap
  std::shared_ptr<const LoadedModel> model_;  // keeps the library loaded
  const ModelProgram* program_;               // model_->program(), for the hot path
  std::pmr::vector<Slot> inputs_;
  std::pmr::vector<Slot> outputs_;
  std::pmr::vector<PoolBuffer> workspace_pools_;  // on the heap only; a region's pools are cut from it
  bool check_bounds_ = false;
  bool huge_pages_ = false;
  int num_threads_ = 0;  // ExecutorOptions::num_threads, else the load's; 0: the pool's default
  TVMBackendPackedCFunc entry_ = nullptr;  // program_->entry, kept here for the hot path
  // The entry's arguments, built once: one DLTensor per argument, and the value/code arrays.
  std::pmr::vector<DLTensor> arg_tensors_;
  std::pmr::vector<TVMValue> arg_values_;
  std::pmr::vector<int> arg_codes_;
  // C interface (program_->c_run): the same arguments as raw pointers, inputs | outputs | pools.
  ModelProgram::CRunFunc c_run_ = nullptr;
  std::pmr::vector<void*> raw_args_;
  ArenaWorkspace arena_workspace_;  // in a region: the rest of it, for TVMBackendAllocWorkspace
  void SetArg(size_t arg, const DLTensor& t);
};

}  // namespace aotrt

// PlannedExecutor: runs a PlannedModel (executor/planned_model.h), an AOT or a graph export, with
// its own storage: one block laid out by the model's memory plan, plus the model's workspace
// pools. The memory comes from the heap (the block; each pool a mapping with its reserve,
// memory/reserve.h, unless the caller gives the pool) or all of it from the caller's arena
// (`arena`, executor/executor_arena.h: then the block, the pools, the argument arrays and the
// run-time workspace are the region's, and creation and Run() allocate nothing; the region is sized
// by executor/executor_in_arena.h). Each call's argument tensors are set up once at creation, so
// Run() is a loop of direct calls with no allocation, lookup or lock. Params and constants are the
// model's, shared by every executor and never written: an input that holds a param gets storage of
// its own when it is first overwritten (set_input, load_params) or handed out writable (get_input).
// Thread-safety: one executor is for one thread at a time; different executors (of the same or
// different models) may run concurrently on different threads.
#pragma once

#include <memory>
#include <memory_resource>
#include <string>
#include <vector>

#include "aotrt/options.h"
#include "backend/arena_workspace.h"
#include "executor/executor_arena.h"
#include "executor/planned_model.h"
#include "memory/pool_buffer.h"

namespace aotrt {

// A contiguous CPU tensor over `data` with `shape`, which it borrows (it must outlive the tensor):
// how the executor passes its buffers to generated code.
inline DLTensor CpuTensor(void* data, const std::vector<int64_t>& shape, DLDataType dtype) {
  DLTensor t{};
  t.data = data;
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int32_t>(shape.size());
  t.dtype = dtype;
  t.shape = const_cast<int64_t*>(shape.data());
  return t;
}

// The calls aotrt::Executor (aotrt/model.h) and the executor modules' packed functions make;
// errors and thread-safety as aotrt::Executor documents them.
class PlannedExecutor {
 public:
  // Throws kInvalidArgument (the device, as the model checks it; a caller's workspace pool too
  // small or unaligned), kNotFound (a workspace pool the model does not have), kOutOfMemory; in a
  // region, ArenaExhausted. options.check_bounds: after every run, look for writes past the
  // workspace pools and TVMBackendAllocWorkspace blocks; options.huge_pages: advise huge pages for
  // the block and pools (aotrt/options.h). `floor` (the load's executor options) turns those on
  // too; in a region neither applies (the caller's memory has no reserve and is the caller's to advise).
  PlannedExecutor(std::shared_ptr<const PlannedModel> model, DLDevice device, const ExecutorOptions& options,
                  const ExecutorOptions& floor, ExecutorArena arena = ExecutorArena());
  PlannedExecutor(const PlannedExecutor&) = delete;
  PlannedExecutor& operator=(const PlannedExecutor&) = delete;
  // The most an executor of `model` with `options` cuts from a region (the block, the pools it is
  // not given, the bookkeeping): what Model::ArenaBytes adds to the run-time workspace.
  static size_t ArenaHeldBytes(const PlannedModel& model, const ExecutorOptions& options);

  const PlannedModel& model() const { return *model_; }
  const ModelInfo& Info() const { return model_->info(); }
  // Index of an input / output by name. Throws kNotFound ("Invalid input name", with the valid names).
  size_t InputIndex(const std::string& name) const { return model_->InputIndex(name); }
  size_t OutputIndex(const std::string& name) const { return model_->OutputIndex(name); }
  // Copy `t` into input i after checking shape, device and contiguity (kOutOfRange,
  // kShapeMismatch, kInvalidArgument); another dtype is converted by ConvertTensor's rule
  // (aotrt/ndarray.h; kTypeMismatch). Rebinds the input to executor storage.
  void SetInput(size_t i, const DLTensor& t);
  // Use the caller's memory for input/output i from now on (no copy; checked as SetInput, and for
  // 64-byte alignment). `keep` (may be undefined) is held while bound; a raw DLTensor's memory
  // must outlive its binding.
  void SetInputZeroCopy(size_t i, const DLTensor& t, NDArray keep);
  void SetOutputZeroCopy(size_t i, const DLTensor& t, NDArray keep);
  // The tensor input/output i currently uses (aliases executor or caller storage).
  NDArray GetInput(size_t i);
  NDArray GetOutput(size_t i) const;
  // Copy output i into `out` (same shape and dtype required).
  void CopyOutputTo(size_t i, DLTensor* out) const;
  // Every call in order. Throws kModelError naming the call that failed; the executor stays
  // usable. With check_bounds, also kModelError for a write past a workspace pool or a
  // TVMBackendAllocWorkspace block (the reserve absorbed it and is restored).
  void Run();
  bool check_bounds() const { return check_bounds_; }
  // In the caller's arena: the bytes of it this executor holds for itself, and the rest, its
  // run-time workspace (empty on the heap).
  size_t arena_used() const { return arena_.used() - arena_workspace_.capacity(); }
  const ArenaWorkspace* arena_workspace() const { return &arena_workspace_; }

  // Operators that run as calls of their own (a graph's nodes), for the measured per-operator
  // profile and the debug executor (graph/graph_functions.cc). A model that is one call (AOT) has
  // none. RunOp runs call `k` of model().calls() alone; EntryView is the tensor of entry `eid` as
  // it is now (a view).
  struct OpDescription {
    std::string name;      // the node
    std::string function;  // the library function it calls
    std::string shapes;    // its arguments, "float32[1, 16, 56, 56], ..."
  };
  size_t NumOps() const { return model_->calls_are_operators() ? model_->calls().size() : 0; }
  void RunOp(size_t k);
  OpDescription DescribeOp(size_t k) const;
  NDArray EntryView(uint32_t eid) const;
  // Input i as it is bound now, without making it writable (share_params reads it).
  NDArray InputArray(size_t i) const;
  // load_params / share_params: bind each param to its input in place of the input's contents.
  void BindParams(const std::vector<PlannedModel::BoundParam>& params);
  // Inputs named by a load_params call so far: TVM's get_input_info leaves them out (the
  // factory's own params, set at create, stay in).
  void NoteLoadedParams(const std::vector<PlannedModel::BoundParam>& params);
  bool LoadedParam(size_t i) const { return inputs_[i].loaded_param; }

 private:
  struct Slot {
    enum Kind { kOwn, kParam, kCaller };
    Kind kind = kOwn;
    NDArray keep;      // the param or the caller's array while bound (may be undefined for kCaller)
    NDArray own_heap;  // own storage of an input whose storage is a shared param's, made on first write
    bool loaded_param = false;  // named by load_params
  };
  DLTensor EntryTensor(uint32_t eid) const;
  void Rebind(uint32_t eid, void* data);  // eid's tensor (its alias group) now at `data`
  void SetUpArgs();
  void PlacePools(const ExecutorOptions& options);
  void BindOwnInput(size_t i);
  void BindCallerMemory(const char* kind, size_t i, Slot* slot, const TensorInfo& spec, uint32_t eid, const DLTensor& t,
                        NDArray keep);
  void CheckIndex(const char* kind, size_t i, size_t n) const;
  void RunChecked();
  void RunAll();
  void CallOp(size_t k);
  NDArray Current(std::pmr::vector<NDArray>* arrays, size_t i, uint32_t eid) const;

  ExecutorArena arena_;                // declared first: the containers below may draw on it
  std::pmr::memory_resource* memory_;  // &arena_, or the heap
  std::shared_ptr<const PlannedModel> model_;
  NDArray block_;            // the plan's block on the heap; undefined in an arena
  uint8_t* block_data_ = nullptr;
  std::pmr::vector<PoolBuffer> pool_buffers_;  // the workspace pools on the heap that the caller did not give
  std::pmr::vector<void*> entry_data_;  // by entry: where its data is now
  std::pmr::vector<DLTensor> arg_tensors_;
  std::pmr::vector<TVMValue> arg_values_;
  std::pmr::vector<int> arg_codes_;
  std::pmr::vector<void*> raw_args_;    // kCRun calls: each argument's data pointer (empty without them)
  std::pmr::vector<Slot> inputs_, outputs_;
  // What GetInput/GetOutput hand out, made at the first: the same array every call, as TVM's
  // data_entry_ (a host may free its handle and keep reading an earlier one). Pointed at the
  // storage when handed out.
  mutable std::pmr::vector<NDArray> input_arrays_, output_arrays_;
  bool check_bounds_ = false;
  bool huge_pages_ = false;
  int num_threads_ = 0;  // ExecutorOptions::num_threads, else the load's; 0: the pool's default
  ArenaWorkspace arena_workspace_;  // in a region: the rest of it, for TVMBackendAllocWorkspace
};

}  // namespace aotrt

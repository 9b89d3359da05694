// PlannedExecutor: runs a PlannedModel (executor/planned_model.h), an AOT or a graph export, over
// one block laid out by the model's memory plan, which holds its workspace pools too: one mapping
// of the runtime's, each pool there with its reserve and guard, or the caller's arena
// (executor/executor_in_arena.h has that layout). Argument tensors are set up at
// creation: Run() makes no allocation, lookup or lock. Params and constants are the model's, shared
// and never written: an input holding a param gets storage of its own when first overwritten or
// handed out writable. Thread-safety: one thread at a time per executor; executors are independent.
#pragma once

#include <memory>
#include <memory_resource>
#include <string>
#include <utility>
#include <vector>

#include "aotrt/options.h"
#include "backend/arena_workspace.h"
#include "executor/executor_arena.h"
#include "executor/planned_model.h"
#include "memory/reserve.h"

namespace aotrt {

// What aotrt::Executor (aotrt/model.h) and the executor modules' packed functions call: the
// methods of the same names there document errors and behaviour; here only the differences.
class PlannedExecutor {
 public:
  // Throws kInvalidArgument (device, num_threads, a caller's pool too small or unaligned), kNotFound
  // (a pool the model lacks), kOutOfMemory; in a region, ArenaExhausted. The heap's switches of
  // `options` apply only out of a region.
  PlannedExecutor(std::shared_ptr<const PlannedModel> model, DLDevice device, const ExecutorOptions& options,
                  ExecutorArena arena = ExecutorArena());
  PlannedExecutor(const PlannedExecutor&) = delete;
  PlannedExecutor& operator=(const PlannedExecutor&) = delete;

  const PlannedModel& model() const { return *model_; }
  // Where its tensors live and its kernels run: the CPU, or the device it was created on.
  DLDevice device() const { return device_; }
  const ModelInfo& Info() const { return model_->info(); }
  size_t InputIndex(const std::string& name) const;
  size_t OutputIndex(const std::string& name) const { return model_->OutputIndex(name); }
  void SetInput(size_t i, const DLTensor& t);  // rebinds the input to executor storage
  // Input (`output`: output) i on the caller's memory; `keep` (may be undefined) held while bound.
  void SetZeroCopy(bool output, size_t i, const DLTensor& t, NDArray keep);
  NDArray GetInput(size_t i);
  NDArray GetOutput(size_t i) const { return Current(true, i); }
  void CopyOutputTo(size_t i, DLTensor* out) const;
  void Run();
  // Waits until the device has done the work Run() and the copies enqueued (nothing on the CPU).
  void Sync() const;
  bool check_bounds() const { return check_bounds_; }
  // In the caller's arena: the bytes of it this executor holds for itself, and the rest, its
  // run-time workspace (empty on the heap).
  size_t arena_used() const { return arena_.used() - arena_workspace_.capacity(); }
  const ArenaWorkspace* arena_workspace() const { return &arena_workspace_; }

  // Operators run one by one (a graph's nodes; an AOT model has none), for the per-operator profile
  // and the debug executor: RunOp runs call `k` alone (on a device: enqueues its kernels); EntryView is entry `eid`
  // now (a view).
  struct OpDescription {
    std::string name;      // the node
    std::string function;  // the library function it calls
    std::string shapes;    // its arguments, "float32[1, 16, 56, 56], ..."
  };
  size_t NumOps() const { return model_->calls_are_operators() ? model_->calls().size() : 0; }
  void RunOp(size_t k) { CallOps(k, k + 1); }
  OpDescription DescribeOp(size_t k) const;
  NDArray EntryView(uint32_t eid) const;
  // Input i as it is bound now, without making it writable (share_params reads it).
  NDArray InputArray(size_t i) const { return Current(false, i); }
  // load_params (`loaded`) / share_params: bind each param to its input in place of the input's
  // contents. LoadedParam: named by load_params, which TVM's get_input_info leaves out.
  void BindParams(const std::vector<PlannedModel::BoundParam>& params, bool loaded = false);
  bool LoadedParam(size_t i) const { return inputs_[i].loaded_param; }
  // At the first run through a front door (Executor::Run, the "run" function), once: a graph's
  // inputs never set (set_input, zero-copy, get_input, params) read as zeros, as TVM's do; a
  // warning names them and how to supply them.
  void WarnUnsetInputsOnce() {
    if (__builtin_expect(!unset_checked_, 0)) WarnUnsetInputs();
  }

 private:
  struct Slot {
    enum Kind { kOwn, kParam, kCaller };
    Kind kind = kOwn;
    NDArray keep;      // the param or the caller's array while bound (may be undefined for kCaller)
    NDArray own_heap;  // own storage of an input whose storage is a shared param's, made on first write
    // What GetInput/GetOutput hand out, made at the first: the same array every call, as TVM's
    // data_entry_ (a host may free its handle and keep reading an earlier one). Pointed at the
    // storage when handed out.
    mutable NDArray handed;
    bool loaded_param = false;
    bool set = false;  // written or handed out since creation, or bound to a param
  };
  DLTensor EntryTensor(uint32_t eid) const;
  void Rebind(uint32_t eid, void* data);  // eid's tensor (its alias group) now at `data`
  void SetUpArgs();
  void MapHeapMemory(const ExecutorOptions& options);
  void AllocDeviceStorages();
  bool on_device() const { return device_.device_type != kDLCPU; }
  // Where entry `eid` lives: the executor's device, or the host for a heterogeneous graph's CPU entries.
  DLDevice EntryDevice(uint32_t eid) const {
    return on_device() && !model_->host_storage(model_->storage(eid)) ? device_ : DLDevice{kDLCPU, 0};
  }
  bool OnDevice(uint32_t eid) const { return EntryDevice(eid).device_type != kDLCPU; }
  void PlacePools(const ExecutorOptions& options);
  void BindOwnInput(size_t i);
  void CheckIndex(const char* kind, size_t i, size_t n) const;
  void RunChecked();
  void WarnUnsetInputs();
  void CallOps(size_t first, size_t last);  // calls [first, last) in order
  void CallOp(size_t k);
  // Input (`output`: output) i as bound now (kOutOfRange): the param or caller's array, else its
  // Slot::handed pointed at the storage.
  NDArray Current(bool output, size_t i) const;

  ExecutorArena arena_;                // declared first: the containers below may draw on it
  DLDevice device_{kDLCPU, 0};         // where the storages, and so every argument tensor, live
  std::pmr::memory_resource* memory_;  // &arena_, or the heap
  std::shared_ptr<const PlannedModel> model_;
  NDArray block_;            // on the heap, the plan's block, whose mapping holds the pools too; undefined in an arena
  uint8_t* block_data_ = nullptr;
  std::pmr::vector<NDArray> device_storages_;  // on a device: by storage id, the plan's storages (no block)
  std::pmr::vector<PoolBuffer> pool_buffers_;  // the workspace pools on the heap that the caller did not give, in order
  std::pmr::vector<void*> entry_data_;  // by entry: where its data is now
  std::pmr::vector<DLTensor> arg_tensors_;
  std::pmr::vector<TVMValue> arg_values_;
  std::pmr::vector<int> arg_codes_;
  std::pmr::vector<void*> raw_args_;    // kCRun calls: each argument's data pointer (empty without them)
  std::pmr::vector<Slot> inputs_, outputs_;
  bool check_bounds_ = false;
  bool huge_pages_ = false;
  bool unset_checked_ = false;
  bool ran_on_device_ = false;  // a first run on the device has ended (PlannedModel::PrepareDevice)
  int num_threads_ = 0;  // ExecutorOptions::num_threads; 0: the pool's default
  ArenaWorkspace arena_workspace_;  // in a region: the rest of it, for TVMBackendAllocWorkspace
};

}  // namespace aotrt

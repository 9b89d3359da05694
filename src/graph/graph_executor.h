// GraphExecutor: runs a graph model (graph/graph_model.h) with its own storage: one block laid out
// by the model's memory plan, from the heap or the caller's arena (`arena`, executor/executor_arena.h:
// then the block, the argument arrays and the run-time workspace are all the region's, and creation
// and Run() allocate nothing; the region is sized by executor/executor_in_arena.h). Each operator's argument
// tensors and its function are set up once at creation, so Run() is a loop of direct calls with
// no allocation, lookup or lock. Params are the model's, shared by every executor and never
// written: an input that holds one gets storage of its own when it is first overwritten
// (set_input, load_params) or handed out writable (get_input).
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
#include "executor/executor_interface.h"
#include "graph/graph_model.h"

namespace aotrt {

class GraphExecutor final : public ExecutorInterface {
 public:
  // Throws kInvalidArgument (a device other than the CPU; options.workspace_pools, which a graph
  // has none of: kNotFound), kOutOfMemory; in a region, ArenaExhausted. Neither check_bounds nor
  // huge_pages applies in a region.
  GraphExecutor(std::shared_ptr<const GraphModel> model, DLDevice device, const ExecutorOptions& options,
                const ExecutorOptions& floor, ExecutorArena arena = ExecutorArena());
  GraphExecutor(const GraphExecutor&) = delete;
  GraphExecutor& operator=(const GraphExecutor&) = delete;

  const GraphModel& model() const { return *model_; }
  const ModelInfo& Info() const override { return model_->info(); }
  size_t InputIndex(const std::string& name) const override { return model_->InputIndex(name); }
  size_t OutputIndex(const std::string& name) const override { return model_->OutputIndex(name); }
  void SetInput(size_t i, const DLTensor& t) override;
  void SetInputZeroCopy(size_t i, const DLTensor& t, NDArray keep) override;
  void SetOutputZeroCopy(size_t i, const DLTensor& t, NDArray keep) override;
  NDArray GetInput(size_t i) override;
  NDArray GetOutput(size_t i) const override;
  void CopyOutputTo(size_t i, DLTensor* out) const override;
  // Every operator in graph order. Throws kModelError naming the node that failed; the executor
  // stays usable. With check_bounds, also kModelError for a write past a TVMBackendAllocWorkspace block.
  void Run() override;
  bool check_bounds() const override { return check_bounds_; }
  size_t arena_used() const override { return arena_.used() - arena_workspace_.capacity(); }
  const ArenaWorkspace* arena_workspace() const override { return &arena_workspace_; }

  // The debug executor's parts (graph/graph_debug.cc): operator `k` of model().ops() alone, and
  // the tensor of node entry `eid` as it is now (a view).
  size_t NumOps() const override { return model_->ops().size(); }
  void RunOp(size_t k) override;
  OpDescription DescribeOp(size_t k) const override;
  NDArray EntryView(uint32_t eid) const;
  // Input i as it is bound now, without making it writable (share_params reads it).
  NDArray InputArray(size_t i) const;
  // load_params / share_params: bind each param to its input in place of the input's contents.
  void BindParams(const std::vector<GraphModel::BoundParam>& params);
  // Inputs named by a load_params call so far: TVM's get_input_info leaves them out (the
  // factory's own params, set at create, stay in).
  void NoteLoadedParams(const std::vector<GraphModel::BoundParam>& params);
  bool LoadedParam(size_t i) const { return inputs_[i].loaded_param; }

 private:
  struct Slot {
    enum Kind { kOwn, kParam, kCaller };
    Kind kind = kOwn;
    NDArray keep;      // the param or the caller's array while bound (may be undefined for kCaller)
    NDArray own_heap;  // own storage of an input whose storage is a shared param's, made on first write
    bool loaded_param = false;  // named by load_params
  };
  uint32_t StorageOf(uint32_t eid) const { return model_->graph().storage_id[eid]; }
  DLTensor EntryTensor(uint32_t eid) const;
  void Rebind(uint32_t eid, void* data);  // eid's tensor (its alias group) now at `data`
  void BindOwnInput(size_t i);
  void CheckIndex(const char* kind, size_t i, size_t n) const;
  void RunChecked();
  void RunAll();
  void CallOp(size_t k);
  NDArray Current(std::pmr::vector<NDArray>* arrays, size_t i, uint32_t eid) const;

  ExecutorArena arena_;                // declared first: the containers below may draw on it
  std::pmr::memory_resource* memory_;  // &arena_, or the heap
  std::shared_ptr<const GraphModel> model_;
  NDArray block_;            // the plan's block on the heap; undefined in an arena
  uint8_t* block_data_ = nullptr;
  std::pmr::vector<void*> entry_data_;  // by entry: where its data is now
  std::pmr::vector<DLTensor> arg_tensors_;
  std::pmr::vector<TVMValue> arg_values_;
  std::pmr::vector<int> arg_codes_;
  std::pmr::vector<Slot> inputs_, outputs_;
  // What GetInput/GetOutput hand out, made at the first: the same array every call, as TVM's
  // data_entry_ (a host may free its handle and keep reading an earlier one). Pointed at the
  // storage when handed out.
  mutable std::pmr::vector<NDArray> input_arrays_, output_arrays_;
  bool check_bounds_ = false;
  int num_threads_ = 0;  // ExecutorOptions::num_threads, else the load's; 0: the pool's default
  ArenaWorkspace arena_workspace_;  // in a region: the rest of it, for TVMBackendAllocWorkspace
};

}  // namespace aotrt

// PlannedModel: any export as the executor runs it: tensors ("entries") in storages laid out by one
// memory plan, and calls with their argument tensors: one per node of a graph (graph/graph_model.h),
// or one AOT entry function with its pools and constants as entries (aot/loaded_model.h). Built at
// load; then immutable, shared (std::shared_ptr) by the factory and every executor, which keep the
// library loaded through it. Any thread may read it.
#pragma once

#include <algorithm>
#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <tvm/runtime/c_backend_api.h>

#include "base/name_index.h"
#include "aotrt/model_info.h"
#include "aotrt/module.h"
#include "aotrt/ndarray.h"

namespace aotrt {

class PlannedExecutor;

struct PlannedCall {
  enum Kind { kCall, kPacked, kNop, kCopy, kCRun };
  // A Model Library Format archive's C interface: raw data pointers, inputs | outputs | pools.
  using CRunFunc = int32_t (*)(void** inputs, void** outputs, void** pools);
  Kind kind = kCall;
  uint32_t node_id = 0;   // the graph node
  std::string node;       // its name in messages; empty for an AOT model's one call
  std::string function;   // the library function called
  TVMBackendPackedCFunc fn = nullptr;  // kCall: the library's symbol, called directly
  PackedFunc packed;                   // kPacked: a function found only through the module
  CRunFunc c_run = nullptr;            // kCRun
  uint32_t c_inputs = 0, c_outputs = 0;
  uint32_t first_arg = 0;              // into PlannedModel::args()
  uint32_t num_args = 0;
};

// One argument of one call: the entry it passes and the shape it passes it with.
struct PlannedArg {
  uint32_t entry = 0;
  std::vector<int64_t> flat_shape;  // {elements} when the call takes its data flat, else empty
};

// Where each storage lives in an executor's block.
struct MemoryPlan {
  // Not among the block's storages: a storage that a shared param or constant fills, or a
  // workspace pool (on the heap, after the storages in the same mapping with its reserve and
  // guard; else the caller's memory, or the arena).
  static constexpr size_t kNotInBlock = ~size_t{0};
  std::vector<size_t> storage_bytes;   // by storage id: the largest entry placed in it
  std::vector<size_t> storage_offset;  // by storage id: 64-byte aligned offset, or kNotInBlock
  size_t block_bytes = 0;
};

// An AOT workspace pool: a storage of its own, which the caller may provide (ExecutorOptions::
// workspace_pools) and which on the heap is followed by a reserve (memory/reserve.h).
struct PlannedPool {
  uint32_t entry = 0;
  std::string var_name;  // as the metadata names it: "global_workspace_0_var"
  std::string name;      // as users name it: "global_workspace"
};

// A storage held as an image (TVM's texture storage, device/texture.h): its scope, and the image
// that holds every entry placed in it, of shape {height, width, 4} (the largest rows and columns).
struct PlannedTexture {
  std::string scope;
  std::vector<int64_t> shape;
  DLDataType dtype{};
};

class PlannedModel {
 public:
  struct BoundParam {
    size_t input;   // index of the input the param fills
    NDArray array;  // shared by every executor until it overwrites that input
  };
  virtual ~PlannedModel() = default;

  const std::string& name() const { return name_; }
  const std::string& what() const { return what_; }        // the library, in messages
  const std::string& display() const { return display_; }  // "graph 'x'", "model 'x'", in messages
  // Built at the first call (a load that nobody inspects copies no names into it), with the name
  // and the library, by BuildInfo; any thread.
  const ModelInfo& info() const {
    std::call_once(info_built_, [this] {
      ModelInfo info;
      info.name = name_;
      info.library = what_;
      BuildInfo(&info);
      info_ = std::move(info);
    });
    return info_;
  }
  // Throws kInvalidArgument for a device the executor cannot run on.
  virtual void CheckDevice(DLDevice device) const = 0;
  // Readies the model's device code for `device` (not the CPU): its kernels built before a run; or,
  // with `first_run_done`, says an executor's first run there has launched every kernel it launches.
  virtual void PrepareDevice(DLDevice device, bool first_run_done = false) const {}
  // Whether a run may call TVMBackendAllocWorkspace (sizing an arena measures it when it may).
  virtual bool MayUseWorkspace() const { return true; }
  // Whether the calls are the model's operators, each to be profiled and debugged on its own (a
  // graph's nodes), or the model is one call (AOT).
  virtual bool calls_are_operators() const { return true; }
  // TVM's type key of this model's executor modules ("AotExecutor", "GraphExecutor",
  // "GraphExecutorDebug" for the debug executor).
  virtual const char* ExecutorTypeKey(bool debug) const = 0;
  // An executor module's function `name` beyond those every executor has (executor_module.h),
  // the debug executor's too when `debug`, which `self` keeps alive; empty when none.
  virtual PackedFunc ExecutorModuleFunction(PlannedExecutor* ex, const std::string& name,
                                            const ObjectPtr<ModuleNode>& self, bool debug) const {
    return PackedFunc();
  }

  size_t num_entries() const { return entries_.size(); }
  const std::vector<int64_t>& shape(uint32_t eid) const { return entries_[eid].shape; }
  DLDataType dtype(uint32_t eid) const { return entries_[eid].dtype; }
  uint32_t storage(uint32_t eid) const { return entries_[eid].storage; }
  const std::vector<PlannedCall>& calls() const { return calls_; }
  bool HasCall(PlannedCall::Kind kind) const {
    return std::any_of(calls_.begin(), calls_.end(), [kind](const PlannedCall& c) { return c.kind == kind; });
  }
  const std::vector<PlannedArg>& args() const { return args_; }
  // Entries that are one tensor (an entry and what __nop nodes make of it) share their data.
  // alias_entries/alias_args list a group's entries and the indices into args() passing them:
  // what rebinding the tensor (zero-copy, a param) rewrites.
  uint32_t alias_root(uint32_t eid) const { return alias_root_[eid]; }
  const std::vector<uint32_t>& alias_entries(uint32_t root) const { return alias_entries_[root]; }
  const std::vector<uint32_t>& alias_args(uint32_t root) const { return alias_args_[root]; }
  const MemoryPlan& plan() const { return plan_; }
  // The input that output i is a view of (through __nop nodes), or kNoInput.
  static constexpr size_t kNoInput = ~size_t{0};
  size_t output_view_of(size_t i) const { return output_view_of_[i]; }
  // Whether no call writes storage `sid` and no output shows it (a param there can be shared
  // instead of copied).
  bool read_only(uint32_t sid) const { return sid >= written_.size() || !written_[sid]; }
  // Whether storage `sid` stays in host memory when the executor runs on a device (a
  // heterogeneous graph's CPU entries).
  bool host_storage(uint32_t sid) const { return sid < host_storage_.size() && host_storage_[sid]; }
  bool has_host_storage() const { return !host_storage_.empty(); }
  // Storage `sid`'s image, or null for a buffer.
  const PlannedTexture* texture(uint32_t sid) const {
    return sid < textures_.size() && !textures_[sid].scope.empty() ? &textures_[sid] : nullptr;
  }
  const std::vector<TensorInfo>& inputs() const { return inputs_; }
  const std::vector<TensorInfo>& outputs() const { return outputs_; }
  uint32_t input_entry(size_t i) const { return input_entries_[i]; }
  uint32_t output_entry(size_t i) const { return output_entries_[i]; }
  const std::vector<BoundParam>& bound_params() const { return bound_; }
  // The bound params copied to `device` (not the CPU), made by the first executor there and held
  // by the model for the rest: one copy per model and device, as on the host. Any thread.
  const std::vector<BoundParam>& DeviceParams(DLDevice device) const;
  const std::vector<PlannedPool>& pools() const { return pools_; }
  // Entries every executor points at the same read-only memory (an AOT model's constant pool).
  struct SharedEntry {
    uint32_t entry;
    void* data;
  };
  const std::vector<SharedEntry>& shared_entries() const { return shared_; }
  // The run-time workspace an executor in an arena needs, measured once (executor_in_arena.h).
  std::atomic<int64_t>& arena_workspace_bytes() const { return arena_workspace_bytes_; }

  // Index of an input by name (exact, then TVM-sanitized); throws kNotFound naming the valid names.
  size_t InputIndex(const std::string& name) const;
  // Throws kNotFound "Invalid input name": `name` is no input; lists the valid names, the data
  // inputs first, then the params (bound here or, `param(i)`, by an executor's load_params).
  [[noreturn]] void ThrowInvalidInput(const std::string& name, const std::vector<bool>& param = {}) const;
  const size_t* FindInput(const std::string& name) const;  // InputIndex, or null for another name
  // The inputs `params` fill, as TVM's factory and load_params set each param as an input: throws
  // kNotFound for a name that is no input, kInvalidArgument for an empty name, an input filled twice
  // or a tensor not of the input's shape and dtype; `kind` names the params in messages.
  std::vector<BoundParam> MatchParams(const std::vector<NamedArray>& params, const char* kind = "param") const;
  // Index of an output by name; throws kNotFound naming the valid names.
  size_t OutputIndex(const std::string& name) const;

 protected:
  PlannedModel(std::string name, std::string what, std::string display)
      : name_(std::move(name)), what_(std::move(what)), display_(std::move(display)) {}
  // Building, in this order: entries, inputs and outputs, calls, then Finish.
  // AddEntry throws kFormatError for a shape whose size is absurd (`where` names the entry).
  uint32_t AddEntry(std::vector<int64_t> shape, DLDataType dtype, uint32_t storage, const std::string& where);
  size_t entry_bytes(uint32_t eid) const { return entries_[eid].bytes; }
  void AddInput(uint32_t eid, std::string name);  // kFormatError when two inputs share the name
  void AddOutput(uint32_t eid, std::string name);
  void AddPool(uint32_t eid, std::string var_name, std::string name) { pools_.push_back({eid, std::move(var_name), std::move(name)}); }
  void ShareEntry(uint32_t eid, void* data) { shared_.push_back({eid, data}); }
  // A call passing `args` (flat when `flatten`), writing the storages of the entries `writes`.
  void AddCall(PlannedCall call, const std::vector<uint32_t>& args, const std::vector<uint32_t>& writes,
               bool flatten = false);
  void Alias(uint32_t eid, uint32_t same_as) { alias_root_[eid] = alias_root_[same_as]; }
  // Puts entry `eid` in texture storage of `scope`: its storage becomes an image large enough for
  // it. Throws kFormatError when the storage's other entries are of another scope or dtype.
  void PlaceInTexture(uint32_t eid, const std::string& scope, const std::string& where);
  void KeepOnHost(uint32_t sid) {
    host_storage_.resize(std::max<size_t>(host_storage_.size(), sid + 1));
    host_storage_[sid] = true;
  }
  // Groups the aliases and lays out the plan, with `bound` filling their inputs.
  void Finish(std::vector<BoundParam> bound);
  // The rest of info().
  virtual void BuildInfo(ModelInfo* info) const = 0;

  NameIndex input_index_, output_index_;

 private:
  struct Entry {
    std::vector<int64_t> shape;
    DLDataType dtype;
    uint32_t storage;
    size_t bytes;
  };
  std::string name_, what_, display_;
  std::vector<Entry> entries_;
  std::vector<PlannedCall> calls_;
  std::vector<PlannedArg> args_;
  std::vector<uint32_t> alias_root_;
  std::vector<std::vector<uint32_t>> alias_entries_, alias_args_;
  std::vector<bool> written_;
  std::vector<bool> host_storage_;
  std::vector<PlannedTexture> textures_;  // by storage id; an empty scope: a buffer
  MemoryPlan plan_;
  std::vector<TensorInfo> inputs_, outputs_;
  std::vector<uint32_t> input_entries_, output_entries_;
  std::vector<size_t> output_view_of_;
  std::vector<BoundParam> bound_;
  std::vector<PlannedPool> pools_;
  std::vector<SharedEntry> shared_;
  mutable std::once_flag info_built_;
  mutable ModelInfo info_;
  mutable std::atomic<int64_t> arena_workspace_bytes_{-1};  // a measurement cached, not state
  mutable std::mutex device_params_mu_;
  // A cache: made once per device (a list: what DeviceParams returns stays where it is).
  mutable std::list<std::pair<DLDevice, std::vector<BoundParam>>> device_params_;
};

}  // namespace aotrt

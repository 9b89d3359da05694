// A loaded graph model: the graph (graph/graph_json.h), each operator's function resolved once in
// the library, the params, and the memory plan every executor instantiates. Built and validated
// when the factory is loaded (or tvm.graph_executor.create is called); immutable and shared
// (std::shared_ptr<const GraphModel>) by the factory and every executor, which keep the library
// loaded through it. Any thread may read it.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <tvm/runtime/c_backend_api.h>

#include "aot/name_index.h"
#include "aotrt/model_info.h"
#include "aotrt/module.h"
#include "aotrt/ndarray.h"
#include "graph/graph_json.h"

namespace aotrt {

struct GraphOp {
  enum Kind { kCall, kPacked, kNop, kCopy };
  Kind kind = kCall;
  uint32_t node_id = 0;
  TVMBackendPackedCFunc fn = nullptr;  // kCall: the library's symbol, called directly
  PackedFunc packed;                   // kPacked: a function found only through the module
  uint32_t first_arg = 0;              // into GraphModel::args(): inputs, then outputs
  uint32_t num_args = 0;
};

// One argument of one operator call: the entry it passes and the shape it passes it with.
struct GraphArg {
  uint32_t entry = 0;
  uint32_t storage = 0;
  std::vector<int64_t> flat_shape;  // {elements} when the node flattens its data, else empty
};

// Where each storage of the graph's plan lives in an executor's block.
struct GraphMemoryPlan {
  static constexpr size_t kNotInBlock = ~size_t{0};  // a storage bound to a shared param
  std::vector<size_t> storage_bytes;   // by storage id: the largest entry placed in it
  std::vector<size_t> storage_offset;  // by storage id: 64-byte aligned offset, or kNotInBlock
  size_t block_bytes = 0;
};

class GraphModel {
 public:
  struct BoundParam {
    size_t input;   // index of the graph input the param fills
    NDArray array;  // shared by every executor until it overwrites that input
  };

  // `library` is the module whose functions the nodes name (its imports are searched too); it is
  // kept alive. `params` fill graph inputs of their names. Throws kFormatError (a storage too small
  // or an entry of absurd size), kNotFound (a node's function missing from the library, a param
  // that is no input), kTypeMismatch / kShapeMismatch (a param unlike its input: both named).
  GraphModel(std::string name, GraphDef graph, Module library, std::vector<NamedArray> params, std::string what);

  const std::string& name() const { return name_; }
  const std::string& what() const { return what_; }  // names the model and its file in messages
  const GraphDef& graph() const { return graph_; }
  const std::vector<GraphOp>& ops() const { return ops_; }
  const std::vector<GraphArg>& args() const { return args_; }
  // Entries that are one tensor: an entry and what __nop nodes (reshapes) make of it share its
  // data. alias_root(e) names e's group; alias_entries/alias_args list the group's entries and the
  // indices into args() that pass them: what rebinding the tensor (zero-copy, a param) rewrites.
  // A storage id is not a group: the plan may reuse an output's storage for an intermediate.
  uint32_t alias_root(uint32_t eid) const { return alias_root_[eid]; }
  const std::vector<uint32_t>& alias_entries(uint32_t root) const { return alias_entries_[root]; }
  const std::vector<uint32_t>& alias_args(uint32_t root) const { return alias_args_[root]; }
  const GraphMemoryPlan& plan() const { return plan_; }
  // The run-time workspace an executor in an arena needs (ArenaBuild::WorkspaceBytes,
  // executor/executor_in_arena.h). Any thread.
  std::atomic<int64_t>& arena_workspace_bytes() const { return arena_workspace_bytes_; }
  const std::vector<TensorInfo>& inputs() const { return inputs_; }
  const std::vector<TensorInfo>& outputs() const { return outputs_; }
  uint32_t input_entry(size_t i) const { return input_entries_[i]; }
  uint32_t output_entry(size_t i) const { return output_entries_[i]; }
  const std::vector<BoundParam>& bound_params() const { return bound_; }
  const std::vector<NamedArray>& params() const { return params_; }
  const Module& library() const { return library_; }
  // Whether no operator writes storage `sid` (a param there can be shared instead of copied).
  bool read_only(uint32_t sid) const { return !written_[sid]; }

  // Index of an input by name (exact, then TVM-sanitized); throws kNotFound naming the valid names.
  size_t InputIndex(const std::string& name) const;
  const size_t* FindInput(const std::string& name) const;  // InputIndex, or null for another name
  // Index of an output by its node's name, or "name:i"; throws kNotFound.
  size_t OutputIndex(const std::string& name) const;
  // Check `params` against the inputs as the constructor does, for load_params: each bound to its
  // input's index.
  std::vector<BoundParam> MatchParams(const std::vector<NamedArray>& params) const;
  // Built at the first call; any thread.
  const ModelInfo& info() const;

 private:
  void ResolveOps();
  void PlanMemory();
  TensorInfo EntryInfo(uint32_t eid, std::string name) const;

  std::string name_;
  std::string what_;
  GraphDef graph_;
  Module library_;
  std::vector<NamedArray> params_;
  std::vector<GraphOp> ops_;
  std::vector<GraphArg> args_;
  std::vector<uint32_t> alias_root_;
  std::vector<std::vector<uint32_t>> alias_entries_, alias_args_;
  std::vector<bool> written_;
  GraphMemoryPlan plan_;
  std::vector<TensorInfo> inputs_, outputs_;
  std::vector<uint32_t> input_entries_, output_entries_;
  NameIndex input_index_, output_index_;
  std::vector<BoundParam> bound_;
  mutable std::once_flag info_built_;
  mutable ModelInfo info_;
  mutable std::atomic<int64_t> arena_workspace_bytes_{-1};  // a measurement cached, not state
};

}  // namespace aotrt

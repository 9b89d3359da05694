#include "graph/graph_executor.h"

#include <cstring>

#include "aot/loaded_model.h"
#include "backend/thread_pool.h"
#include "executor/executor_functions.h"
#include "backend/workspace.h"
#include "base/error_util.h"
#include "base/last_error.h"
#include "memory/tail_slack.h"
#include "memory/zeroed_memory.h"

namespace aotrt {
namespace {

void CheckZeroCopy(const char* kind, size_t i, const TensorInfo& spec, const DLTensor& t) {
  CheckTensorAgainstSpec(kind, i, spec, t);
  CheckZeroCopyAlignment(kind, i, spec.name, t);
}

}  // namespace

GraphExecutor::GraphExecutor(std::shared_ptr<const GraphModel> model, DLDevice device, const ExecutorOptions& options,
                             const ExecutorOptions& floor, ExecutorArena arena)
    : arena_(arena),
      memory_(arena_.defined() ? static_cast<std::pmr::memory_resource*>(&arena_) : std::pmr::new_delete_resource()),
      model_(std::move(model)),
      entry_data_(memory_),
      arg_tensors_(memory_),
      arg_values_(memory_),
      arg_codes_(memory_),
      inputs_(memory_),
      outputs_(memory_),
      input_arrays_(memory_),
      output_arrays_(memory_) {
  // TVM's CPU device ignores the id; pinned host memory is host memory.
  AOTRT_REQUIRE(device.device_type == kDLCPU || device.device_type == kDLCUDAHost, kInvalidArgument,
                "GraphExecutor of '", model_->name(), "' runs on the CPU (device type 1), got device type ",
                static_cast<int>(device.device_type), " id ", device.device_id);
  if (!options.workspace_pools.empty()) {
    AOTRT_THROW(kNotFound, "ExecutorOptions::workspace_pools: graph '", model_->name(), "' has no workspace pool '",
                options.workspace_pools[0].name, "'; its pools: none (a graph's storage is one block)");
  }
  check_bounds_ = !arena_.defined() && (options.check_bounds || floor.check_bounds);
  num_threads_ = options.num_threads != 0 ? options.num_threads : floor.num_threads;
  AOTRT_REQUIRE(num_threads_ >= 0 && num_threads_ <= kMaxParallelTasks, kInvalidArgument, "ExecutorOptions::num_threads is ",
                num_threads_, ": expected 0 (the default) or a thread count in [1, ", kMaxParallelTasks, "]");
  const GraphMemoryPlan& plan = model_->plan();
  if (arena_.defined()) {
    block_data_ = static_cast<uint8_t*>(memory_->allocate(plan.block_bytes, kAllocAlignment));
    if (!arena_.zeroed()) std::memset(block_data_, 0, plan.block_bytes);  // inputs read as zeros until set
  } else {
    block_ = NDArray::Empty({static_cast<int64_t>(plan.block_bytes)}, DLDataType{kDLUInt, 8, 1});
    block_data_ = static_cast<uint8_t*>(block_.data());
    if (options.huge_pages || floor.huge_pages) AdviseHugePages(block_data_, plan.block_bytes);
  }
  const std::vector<GraphArg>& args = model_->args();
  arg_tensors_.resize(args.size());
  arg_values_.resize(args.size());
  arg_codes_.assign(args.size(), kTVMDLTensorHandle);
  const GraphDef& g = model_->graph();
  entry_data_.assign(g.NumEntries(), nullptr);
  for (uint32_t eid = 0; eid < entry_data_.size(); ++eid) {
    size_t offset = plan.storage_offset[StorageOf(eid)];
    if (offset != GraphMemoryPlan::kNotInBlock) entry_data_[eid] = block_data_ + offset;
  }
  for (size_t a = 0; a < args.size(); ++a) {
    const std::vector<int64_t>& shape = args[a].flat_shape.empty() ? g.shape[args[a].entry] : args[a].flat_shape;
    arg_tensors_[a] = CpuTensor(entry_data_[args[a].entry], shape, g.dtype[args[a].entry]);
    arg_values_[a].v_handle = &arg_tensors_[a];
  }
  inputs_.resize(model_->inputs().size());
  outputs_.resize(model_->outputs().size());
  input_arrays_.resize(inputs_.size());
  output_arrays_.resize(outputs_.size());
  if (arena_.defined()) {
    size_t rest = 0;
    uint8_t* region = arena_.TakeRest(&rest);
    arena_workspace_ = ArenaWorkspace(region, rest);
  }
  BindParams(model_->bound_params());
}

void GraphExecutor::Rebind(uint32_t eid, void* data) {
  uint32_t root = model_->alias_root(eid);
  for (uint32_t e : model_->alias_entries(root)) entry_data_[e] = data;
  for (uint32_t a : model_->alias_args(root)) arg_tensors_[a].data = data;
}

// A param shared with the model's other executors is pointed at where it is read only; where an
// operator writes its storage it is copied in.
void GraphExecutor::BindParams(const std::vector<GraphModel::BoundParam>& params) {
  for (const GraphModel::BoundParam& p : params) {
    uint32_t eid = model_->input_entry(p.input);
    Slot& s = inputs_[p.input];
    if (!model_->read_only(StorageOf(eid))) {
      BindOwnInput(p.input);
      DLTensor own = EntryTensor(model_->input_entry(p.input));
      CopyTensorBytes(p.array.tensor(), &own);
      continue;
    }
    Rebind(eid, p.array.data());
    s.kind = Slot::kParam;
    s.keep = p.array;
  }
}

void GraphExecutor::NoteLoadedParams(const std::vector<GraphModel::BoundParam>& params) {
  for (const GraphModel::BoundParam& p : params) inputs_[p.input].loaded_param = true;
}

DLTensor GraphExecutor::EntryTensor(uint32_t eid) const {
  const GraphDef& g = model_->graph();
  return CpuTensor(entry_data_[eid], g.shape[eid], g.dtype[eid]);
}

NDArray GraphExecutor::Current(std::pmr::vector<NDArray>* arrays, size_t i, uint32_t eid) const {
  NDArray& array = (*arrays)[i];
  if (!array.defined()) array = EntryView(eid);
  array.handle()->data = entry_data_[eid];
  array.handle()->byte_offset = 0;
  return array;
}

NDArray GraphExecutor::EntryView(uint32_t eid) const {
  uint32_t sid = StorageOf(eid);
  size_t offset = model_->plan().storage_offset[sid];
  const GraphDef& g = model_->graph();
  if (block_.defined() && entry_data_[eid] == block_data_ + offset) return block_.CreateView(g.shape[eid], g.dtype[eid], offset);
  return NDArray::Borrow(EntryTensor(eid));
}

// Input i on storage of this executor's own (block, or a heap array where the plan leaves the
// storage to a shared param), keeping the value it has.
void GraphExecutor::BindOwnInput(size_t i) {
  Slot& s = inputs_[i];
  if (s.kind == Slot::kOwn) return;
  uint32_t eid = model_->input_entry(i);
  uint32_t sid = StorageOf(eid);
  size_t offset = model_->plan().storage_offset[sid];
  void* own = nullptr;
  if (offset != GraphMemoryPlan::kNotInBlock) {
    own = block_data_ + offset;
  } else {
    if (!s.own_heap.defined()) s.own_heap = NDArray::Empty(model_->inputs()[i].shape, model_->inputs()[i].dtype);
    own = s.own_heap.data();
  }
  if (s.kind == Slot::kParam) {
    DLTensor to = CpuTensor(own, model_->inputs()[i].shape, model_->inputs()[i].dtype);
    CopyTensorBytes(s.keep.tensor(), &to);
  }
  Rebind(eid, own);
  s.kind = Slot::kOwn;
  s.keep = NDArray();
}

void GraphExecutor::CheckIndex(const char* kind, size_t i, size_t n) const {
  AOTRT_REQUIRE(i < n, kOutOfRange, kind, " index ", i, " out of range: graph '", model_->name(), "' has ", n, " ", kind,
                n == 1 ? "" : "s");
}

void GraphExecutor::SetInput(size_t i, const DLTensor& t) {
  CheckIndex("input", i, inputs_.size());
  const TensorInfo& spec = model_->inputs()[i];
  CheckTensorAgainstSpec("input", i, spec, t, /*convertible=*/true);
  BindOwnInput(i);
  DLTensor own = EntryTensor(model_->input_entry(i));
  if (DataTypeEqual(t.dtype, spec.dtype)) return CopyTensorBytes(t, &own);
  ConvertTensor(t, &own, StrCat("input ", i, " ('", spec.name, "')"));
}

void GraphExecutor::SetInputZeroCopy(size_t i, const DLTensor& t, NDArray keep) {
  CheckIndex("input", i, inputs_.size());
  CheckZeroCopy("input", i, model_->inputs()[i], t);
  Rebind(model_->input_entry(i), static_cast<uint8_t*>(t.data) + t.byte_offset);
  inputs_[i].kind = Slot::kCaller;
  inputs_[i].keep = std::move(keep);
}

void GraphExecutor::SetOutputZeroCopy(size_t i, const DLTensor& t, NDArray keep) {
  CheckIndex("output", i, outputs_.size());
  CheckZeroCopy("output", i, model_->outputs()[i], t);
  Rebind(model_->output_entry(i), static_cast<uint8_t*>(t.data) + t.byte_offset);
  outputs_[i].kind = Slot::kCaller;
  outputs_[i].keep = std::move(keep);
}

NDArray GraphExecutor::GetInput(size_t i) {
  CheckIndex("input", i, inputs_.size());
  Slot& s = inputs_[i];
  if (s.kind == Slot::kParam) BindOwnInput(i);  // the array returned is writable: not the shared param
  if (s.keep.defined()) return s.keep;
  return Current(&input_arrays_, i, model_->input_entry(i));
}

NDArray GraphExecutor::InputArray(size_t i) const {
  CheckIndex("input", i, inputs_.size());
  if (inputs_[i].keep.defined()) return inputs_[i].keep;
  return Current(&input_arrays_, i, model_->input_entry(i));
}

NDArray GraphExecutor::GetOutput(size_t i) const {
  CheckIndex("output", i, outputs_.size());
  if (outputs_[i].keep.defined()) return outputs_[i].keep;
  return Current(&output_arrays_, i, model_->output_entry(i));
}

void GraphExecutor::CopyOutputTo(size_t i, DLTensor* out) const {
  CheckIndex("output", i, outputs_.size());
  AOTRT_REQUIRE(out != nullptr, kInvalidArgument, "get_output(", i, ", out): out is null");
  CheckTensorAgainstSpec("output", i, model_->outputs()[i], *out);
  CopyTensorBytes(EntryTensor(model_->output_entry(i)), out);
}

void GraphExecutor::RunOp(size_t k) {
  if (!arena_.defined()) return CallOp(k);
  arena_workspace_.Reset();  // a failed call never frees its blocks
  ArenaWorkspaceScope in_region(&arena_workspace_);
  CallOp(k);
}

void GraphExecutor::CallOp(size_t k) {
  const GraphOp& op = model_->ops()[k];
  switch (op.kind) {
    case GraphOp::kNop:
      return;
    case GraphOp::kCopy:
      return CopyTensorBytes(arg_tensors_[op.first_arg], &arg_tensors_[op.first_arg + 1]);
    case GraphOp::kPacked: {
      TVMRetValue rv;
      return op.packed.CallPacked(TVMArgs(&arg_values_[op.first_arg], &arg_codes_[op.first_arg],
                                          static_cast<int>(op.num_args)), &rv);
    }
    case GraphOp::kCall:
      break;
  }
  TVMValue ret;
  int ret_code = kTVMNullptr;
  uint64_t errors_before = LastErrorSequence();
  size_t workspace_mark = WorkspaceMark();
  int rc = op.fn(&arg_values_[op.first_arg], &arg_codes_[op.first_arg], static_cast<int>(op.num_args), &ret, &ret_code,
                 nullptr);
  if (rc == 0) return;
  WorkspaceReleaseTo(workspace_mark);
  ThrowIfPythonErrorSince(errors_before);
  const char* msg = LastErrorMessageSince(errors_before);
  const GraphNode& node = model_->graph().nodes[op.node_id];
  AOTRT_THROW(kModelError, "graph '", model_->name(), "' (", model_->what(), "): node ", op.node_id, " ('", node.name,
              "', function ", node.func_name, ") failed: ", msg ? msg : "it returned an error without a message");
}

ExecutorInterface::OpDescription GraphExecutor::DescribeOp(size_t k) const {
  const GraphOp& op = model_->ops()[k];
  const GraphDef& g = model_->graph();
  OpDescription d{g.nodes[op.node_id].name, g.nodes[op.node_id].func_name, ""};
  for (uint32_t a = op.first_arg; a < op.first_arg + op.num_args; ++a) {
    uint32_t eid = model_->args()[a].entry;
    d.shapes += StrCat(a > op.first_arg ? ", " : "", DataTypeToString(g.dtype[eid]),
                       ShapeToString(g.shape[eid].data(), static_cast<int>(g.shape[eid].size())));
  }
  return d;
}

void GraphExecutor::Run() {
  ScopedThreadLimit threads(num_threads_);
  if (check_bounds_) return RunChecked();  // never in a region
  if (!arena_.defined()) return RunAll();
  // The run-time workspace comes from the region; a failed run never frees its blocks, so every
  // run starts with the whole of it.
  arena_workspace_.Reset();
  ArenaWorkspaceScope in_region(&arena_workspace_);
  RunAll();
}

void GraphExecutor::RunAll() {
  const size_t n = model_->ops().size();
  for (size_t k = 0; k < n; ++k) CallOp(k);
}

void GraphExecutor::RunChecked() {
  WorkspaceBoundsCheck blocks;
  RunAll();
  WorkspaceOverrun w = blocks.overrun();
  AOTRT_REQUIRE(!w.found(), kModelError, "graph '", model_->name(), "' wrote ", GroupedNumber(w.bytes_past),
                " bytes past a TVMBackendAllocWorkspace block (", GroupedNumber(w.block_bytes), " bytes) in ",
                model_->what(), ": a bug in the model's generated code (the runtime's reserve absorbed the write)");
}

}  // namespace aotrt

#include "aot/executor.h"

#include "executor/executor_functions.h"

#include <cstring>

#include "backend/thread_pool.h"
#include "backend/workspace.h"
#include "base/error_util.h"
#include "base/device.h"
#include "base/last_error.h"
#include "memory/tail_slack.h"
#include "memory/zeroed_memory.h"

namespace aotrt {
namespace {

std::string InvalidInputNameMessage(const ModelMetadata& md, const std::string& name) {
  std::string valid;
  for (const TensorSpec& t : md.inputs) valid += (valid.empty() ? "'" : ", '") + t.name + "'";
  std::string sanitized = SanitizeName(name);
  return StrCat("Invalid input name. '", name, "'", sanitized != name ? " (sanitized '" + sanitized + "')" : "",
                " is not an input of ", md.DisplayName(), "; valid names: ", valid.empty() ? "none" : valid);
}

// The caller's memory for workspace pool `spec` (ExecutorOptions::workspace_pools), checked, or null.
void* CallerPool(const ExecutorOptions& options, const TensorSpec& spec, const ModelMetadata& md) {
  for (const ExecutorOptions::Pool& p : options.workspace_pools) {
    if (p.name != spec.name && p.name != PoolDisplayName(spec.name)) continue;
    auto addr = reinterpret_cast<uintptr_t>(p.data);
    AOTRT_REQUIRE(p.data != nullptr && p.bytes >= spec.bytes, kInvalidArgument, "workspace pool '", p.name, "' of ",
                  md.DisplayName(), " needs ", spec.bytes, " bytes; the caller's memory has ", p.bytes,
                  p.data ? "" : " and is null");
    AOTRT_REQUIRE(addr % kAllocAlignment == 0, kInvalidArgument, "workspace pool '", p.name, "' of ", md.DisplayName(),
                  ": the caller's memory at 0x", Hex{addr}, " is not ", kAllocAlignment, "-byte aligned");
    return p.data;
  }
  return nullptr;
}

}  // namespace

AotExecutor::AotExecutor(std::shared_ptr<const LoadedModel> model, DLDevice device, const ExecutorOptions& options,
                         const ExecutorOptions& floor, ExecutorArena arena)
    : arena_(arena),
      memory_(arena_.defined() ? static_cast<std::pmr::memory_resource*>(&arena_) : std::pmr::new_delete_resource()),
      model_(std::move(model)),
      program_(&model_->program()),
      inputs_(memory_),
      outputs_(memory_),
      workspace_pools_(memory_),
      check_bounds_(!arena_.defined() && (options.check_bounds || floor.check_bounds)),
      huge_pages_(!arena_.defined() && (options.huge_pages || floor.huge_pages)),
      num_threads_(options.num_threads != 0 ? options.num_threads : floor.num_threads),
      entry_(program_->entry),
      arg_tensors_(memory_),
      arg_values_(memory_),
      arg_codes_(memory_),
      c_run_(program_->c_run),
      raw_args_(memory_) {
  AOTRT_REQUIRE(IsAcceptedCpuDevice(device), kInvalidArgument,
                "AotExecutor supports only execution on kDLCPU 0, got device type ", static_cast<int>(device.device_type),
                " id ", device.device_id);
  AOTRT_REQUIRE(num_threads_ >= 0 && num_threads_ <= kMaxParallelTasks, kInvalidArgument, "ExecutorOptions::num_threads is ",
                num_threads_, ": expected 0 (the default) or a thread count in [1, ", kMaxParallelTasks, "]");
  const ModelMetadata& md = program_->md;
  size_t n = md.NumArgs();
  arg_tensors_.resize(n);
  arg_values_.resize(n);
  arg_codes_.assign(n, kTVMDLTensorHandle);
  if (c_run_) raw_args_.resize(n);
  for (size_t i = 0; i < n; ++i) arg_values_[i].v_handle = &arg_tensors_[i];
  inputs_.resize(md.inputs.size());
  outputs_.resize(md.outputs.size());
  for (size_t i = 0; i < md.outputs.size(); ++i) {
    uint8_t* data = OwnStorage(&outputs_[i], md.outputs[i]);
    Bind(md.inputs.size() + i, &outputs_[i], data, outputs_[i].own, Slot::kOwn);
  }
  // Params from the factory (checked at load) are bound in place, shared by every executor, until set_input.
  for (const LoadedModel::BoundParam& p : model_->bound_params()) {
    Bind(p.input, &inputs_[p.input], p.array.data(), p.array, Slot::kParam);
  }
  for (size_t i = 0; i < md.inputs.size(); ++i) {
    if (inputs_[i].kind == Slot::kParam) continue;
    uint8_t* data = OwnStorage(&inputs_[i], md.inputs[i]);
    Bind(i, &inputs_[i], data, inputs_[i].own, Slot::kOwn);
  }
  if (!arena_.defined()) workspace_pools_.reserve(md.workspace_pools.size());
  size_t arg = md.inputs.size() + md.outputs.size();
  for (const PoolArg& p : md.pool_args) {
    if (p.is_constant_pool) {
      // shared; the entry only reads it
      SetArg(arg++, CpuTensor(const_cast<uint8_t*>(program_->constant_pool.data()), program_->constant_pool_shape, DLDataType{kDLUInt, 8, 1}));
      continue;
    }
    const TensorSpec& spec = md.workspace_pools[p.workspace_index];
    void* memory = CallerPool(options, spec, md);
    if (memory == nullptr && arena_.defined()) {
      memory = memory_->allocate(spec.bytes, kAllocAlignment);
      if (!arena_.zeroed()) std::memset(memory, 0, spec.bytes);
    } else if (memory == nullptr) {
      std::string name = PoolDisplayName(spec.name);
      workspace_pools_.emplace_back(name, spec.bytes,
                                    StrCat("workspace pool '", name, "' (", GroupedNumber(spec.bytes), " bytes) of ",
                                           md.DisplayName(), " (", program_->library_name, ")"));
      memory = workspace_pools_.back().data();
    }
    SetArg(arg++, CpuTensor(memory, spec.shape, spec.dtype));
  }
  for (const ExecutorOptions::Pool& given : options.workspace_pools) {
    bool known = false;
    for (const TensorSpec& s : md.workspace_pools) known = known || given.name == s.name || given.name == PoolDisplayName(s.name);
    if (!known) {
      std::string names;
      for (const TensorSpec& s : md.workspace_pools) names += (names.empty() ? "'" : ", '") + PoolDisplayName(s.name) + "'";
      AOTRT_THROW(kNotFound, "ExecutorOptions::workspace_pools: ", md.DisplayName(), " has no workspace pool '", given.name,
                  "'; its pools: ", names.empty() ? "none" : names);
    }
  }
  if (arena_.defined()) {
    size_t rest = 0;
    uint8_t* region = arena_.TakeRest(&rest);
    arena_workspace_ = ArenaWorkspace(region, rest);
  }
  if (huge_pages_) AdviseHugePagesForBuffers();
}

// Storage of an input or output of this executor: zeroed, 64-byte aligned, from the region or the heap.
uint8_t* AotExecutor::OwnStorage(Slot* slot, const TensorSpec& spec) {
  if (arena_.defined()) {
    slot->own_data = static_cast<uint8_t*>(memory_->allocate(spec.bytes, kAllocAlignment));
    if (!arena_.zeroed()) std::memset(slot->own_data, 0, spec.bytes);
  } else {
    slot->own = NDArray::Empty(spec.shape, spec.dtype);
    slot->own_data = static_cast<uint8_t*>(slot->own.data());
  }
  return slot->own_data;
}

void AotExecutor::AdviseHugePagesForBuffers() {
  for (std::pmr::vector<Slot>* slots : {&inputs_, &outputs_}) {
    for (Slot& s : *slots) {
      if (s.own.defined()) AdviseHugePages(s.own.data(), s.own.NumBytes());
    }
  }
  for (PoolBuffer& p : workspace_pools_) AdviseHugePages(p.data(), p.bytes());  // not the reserve
}

void AotExecutor::SetArg(size_t arg, const DLTensor& t) {
  arg_tensors_[arg] = t;
  if (c_run_) raw_args_[arg] = t.data;
}

const TensorSpec& AotExecutor::SpecOf(size_t arg) const {
  return arg < inputs_.size() ? program_->md.inputs[arg] : program_->md.outputs[arg - inputs_.size()];
}

void AotExecutor::Bind(size_t arg, Slot* slot, void* data, NDArray keep, Slot::Kind kind) {
  const TensorSpec& spec = SpecOf(arg);
  SetArg(arg, CpuTensor(data, spec.shape, spec.dtype));
  slot->bound = std::move(keep);
  slot->kind = kind;
}

// Input i's own storage as a tensor (BindOwnInput first).
DLTensor AotExecutor::OwnTensor(size_t i) const {
  const TensorSpec& spec = program_->md.inputs[i];
  return CpuTensor(inputs_[i].own_data, spec.shape, spec.dtype);
}

// What GetInput/GetOutput return for entry argument `arg`: the bound array, or a view of the
// memory the argument points to (own storage in a region, a caller's raw DLTensor).
NDArray AotExecutor::Array(size_t arg) const {
  const Slot& slot = arg < inputs_.size() ? inputs_[arg] : outputs_[arg - inputs_.size()];
  if (slot.bound.defined()) return slot.bound;
  return NDArray::Borrow(arg_tensors_[arg]);
}

void AotExecutor::BindOwnInput(size_t i) {
  Slot& s = inputs_[i];
  if (s.kind == Slot::kOwn) return;
  const TensorSpec& spec = program_->md.inputs[i];
  if (s.own_data == nullptr) {
    // A param input's own storage, made on its first set_input; from the heap even for an
    // executor in a region (the region holds no second copy of the params).
    s.own = NDArray::Empty(spec.shape, spec.dtype);
    s.own_data = static_cast<uint8_t*>(s.own.data());
    if (huge_pages_) AdviseHugePages(s.own.data(), s.own.NumBytes());
  }
  if (s.kind == Slot::kParam) {
    DLTensor own = OwnTensor(i);
    CopyTensorBytes(s.bound.tensor(), &own);  // keep the param's value
  }
  Bind(i, &s, s.own_data, s.own, Slot::kOwn);
}

void AotExecutor::CheckIndex(const char* kind, size_t i, size_t n) const {
  AOTRT_REQUIRE(i < n, kOutOfRange, kind, " index ", i, " out of range: ", program_->md.DisplayName(), " has ", n, " ", kind,
                n == 1 ? "" : "s");
}

size_t AotExecutor::InputIndex(const std::string& name) const {
  AOTRT_REQUIRE(!name.empty(), kInvalidArgument, "Invalid input name. Name is empty");
  const size_t* index = program_->md.input_index.Find(SanitizeName(name));
  if (index == nullptr) throw Error(ErrorCode::kNotFound, InvalidInputNameMessage(program_->md, name));
  return *index;
}

size_t AotExecutor::OutputIndex(const std::string& name) const {
  const size_t* index = program_->md.output_index.Find(name);
  if (index == nullptr) {
    std::string names;
    for (const TensorSpec& o : program_->md.outputs) names += (names.empty() ? "" : ", ") + o.name;
    AOTRT_THROW(kNotFound, "Invalid output name. '", name, "' is not an output of ", program_->md.DisplayName(),
                "; its outputs are ", names);
  }
  return *index;
}

void AotExecutor::SetInput(size_t i, const DLTensor& t) {
  CheckIndex("input", i, inputs_.size());
  const TensorSpec& spec = program_->md.inputs[i];
  CheckTensorAgainstSpec("input", i, spec, t, /*convertible=*/true);
  BindOwnInput(i);
  DLTensor own = OwnTensor(i);
  if (DataTypeEqual(t.dtype, spec.dtype)) {
    CopyTensorBytes(t, &own);
    return;
  }
  // Another dtype: the one conversion rule (aotrt/ndarray.h). Every value is checked before the
  // input is touched, so a refused value leaves the input as it was.
  ConvertTensor(t, &own, StrCat("input ", i, " ('", spec.name, "')"));
}

void AotExecutor::SetInputZeroCopy(size_t i, const DLTensor& t, NDArray keep) {
  CheckIndex("input", i, inputs_.size());
  CheckTensorAgainstSpec("input", i, program_->md.inputs[i], t);
  CheckZeroCopyAlignment("input", i, program_->md.inputs[i].name, t);
  Bind(i, &inputs_[i], static_cast<uint8_t*>(t.data) + t.byte_offset, keep, Slot::kCaller);
}

void AotExecutor::SetOutputZeroCopy(size_t i, const DLTensor& t, NDArray keep) {
  CheckIndex("output", i, outputs_.size());
  CheckTensorAgainstSpec("output", i, program_->md.outputs[i], t);
  CheckZeroCopyAlignment("output", i, program_->md.outputs[i].name, t);
  Bind(inputs_.size() + i, &outputs_[i], static_cast<uint8_t*>(t.data) + t.byte_offset, keep, Slot::kCaller);
}

NDArray AotExecutor::GetInput(size_t i) {
  CheckIndex("input", i, inputs_.size());
  // The returned array aliases the input; a shared param must not be written through it.
  if (inputs_[i].kind == Slot::kParam) BindOwnInput(i);
  return Array(i);
}

NDArray AotExecutor::GetOutput(size_t i) const {
  CheckIndex("output", i, outputs_.size());
  return Array(inputs_.size() + i);
}

void AotExecutor::CopyOutputTo(size_t i, DLTensor* out) const {
  CheckIndex("output", i, outputs_.size());
  AOTRT_REQUIRE(out != nullptr, kInvalidArgument, "get_output(", i, ", out): out is null");
  CheckTensorAgainstSpec("output", i, program_->md.outputs[i], *out);
  CopyTensorBytes(arg_tensors_[inputs_.size() + i], out);
}

void AotExecutor::Run() {
  ScopedThreadLimit threads(num_threads_);
  if (check_bounds_) return RunChecked();
  CallEntry();
}

namespace {
// "model 'm' wrote 1,247,056 bytes past <buffer>", "... wrote zeros up to 8,192 bytes past <buffer>",
// or "... wrote 24 bytes past <buffer> (and zeros up to 8,192 bytes past)".
std::string OverrunMessage(const std::string& model, const Overrun& o, const std::string& buffer) {
  if (o.bytes_past == 0) return StrCat(model, " wrote zeros up to ", GroupedNumber(o.zeros_to), " bytes past ", buffer);
  std::string s = StrCat(model, " wrote ", GroupedNumber(o.bytes_past), " byte", o.bytes_past == 1 ? "" : "s", " past ", buffer);
  if (o.zeros_to > o.bytes_past) s += StrCat(" (and zeros up to ", GroupedNumber(o.zeros_to), " bytes past)");
  return s;
}
}  // namespace

void AotExecutor::RunChecked() {
  WorkspaceBoundsCheck blocks;
  std::string what;
  try {
    CallEntry();
  } catch (...) {
    for (PoolBuffer& p : workspace_pools_) p.TakeOverrun();  // the next run is checked afresh
    throw;
  }
  for (PoolBuffer& p : workspace_pools_) {
    Overrun o = p.TakeOverrun();
    if (o.found() && what.empty()) {
      what = OverrunMessage(program_->md.DisplayName(), o,
                            StrCat("workspace pool '", p.name(), "' (", GroupedNumber(p.bytes()), " bytes)"));
    }
  }
  WorkspaceOverrun w = blocks.overrun();
  if (w.found() && what.empty()) {
    what = OverrunMessage(program_->md.DisplayName(), Overrun{w.bytes_past, w.zeros_to},
                          StrCat("a TVMBackendAllocWorkspace block (", GroupedNumber(w.block_bytes), " bytes)"));
  }
  if (!what.empty()) {
    AOTRT_THROW(kModelError, what, " in ", program_->library_name,
                ": a bug in the model's generated code (the runtime's reserve absorbed the write)");
  }
}

void AotExecutor::CallEntry() {
  if (!arena_.defined()) return CallEntryOnce();
  // The run-time workspace comes from the region; a failed run never frees its blocks, so every
  // run starts with the whole of it.
  arena_workspace_.Reset();
  ArenaWorkspaceScope in_region(&arena_workspace_);
  CallEntryOnce();
}

void AotExecutor::CallEntryOnce() {
  const int n = static_cast<int>(arg_values_.size());
  if (entry_ || c_run_) {
    TVMValue ret;
    ret.v_handle = nullptr;
    int ret_code = kTVMNullptr;
    uint64_t errors_before = LastErrorSequence();
    size_t workspace_mark = WorkspaceMark();
    void** raw = raw_args_.data();
    int rc = c_run_ ? c_run_(raw, raw + inputs_.size(), raw + inputs_.size() + outputs_.size())
                    : entry_(arg_values_.data(), arg_codes_.data(), n, &ret, &ret_code, nullptr);
    if (rc != 0) {
      WorkspaceReleaseTo(workspace_mark);
      ThrowIfPythonErrorSince(errors_before);
      const char* msg = LastErrorMessageSince(errors_before);
      AOTRT_THROW(kModelError, program_->md.DisplayName(), " (", program_->library_name, ") failed: ",
                  msg ? msg : "the entry function returned an error without a message");
    }
  } else {
    TVMRetValue rv;
    program_->entry_packed.CallPacked(TVMArgs(arg_values_.data(), arg_codes_.data(), n), &rv);
  }
}

}  // namespace aotrt

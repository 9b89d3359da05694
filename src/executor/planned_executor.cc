#include "executor/planned_executor.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>

#include "backend/thread_pool.h"
#include "backend/workspace.h"
#include "base/error_util.h"
#include "base/logging.h"
#include "base/last_error.h"
#include "base/device.h"
#include "device/device_api.h"
#include "executor/executor_module.h"
#include "memory/reserve.h"

namespace aotrt {
namespace {

// The caller's memory for workspace pool `pool` (ExecutorOptions::workspace_pools), checked, or null.
void* CallerPool(const ExecutorOptions& options, const PlannedPool& pool, size_t bytes, const std::string& model) {
  for (const ExecutorOptions::Pool& p : options.workspace_pools) {
    if (p.name != pool.var_name && p.name != pool.name) continue;
    auto addr = reinterpret_cast<uintptr_t>(p.data);
    AOTRT_REQUIRE(p.data != nullptr && p.bytes >= bytes, kInvalidArgument, "workspace pool '", p.name, "' of ", model,
                  " needs ", bytes, " bytes; the caller's memory has ", p.bytes, p.data ? "" : " and is null");
    AOTRT_REQUIRE(addr % kAllocAlignment == 0, kInvalidArgument, "workspace pool '", p.name, "' of ", model,
                  ": the caller's memory at 0x", Hex{addr}, " is not ", kAllocAlignment, "-byte aligned");
    return p.data;
  }
  return nullptr;
}

// "model 'm' wrote 1,247,056 bytes past <buffer>", "... wrote zeros up to 8,192 bytes past <buffer>",
// or "... wrote 24 bytes past <buffer> (and zeros up to 8,192 bytes past)".
std::string OverrunMessage(const std::string& model, const Overrun& o, const std::string& buffer) {
  if (o.bytes_past == 0) return StrCat(model, " wrote zeros up to ", GroupedNumber(o.zeros_to), " bytes past ", buffer);
  std::string s = StrCat(model, " wrote ", GroupedNumber(o.bytes_past), " byte", o.bytes_past == 1 ? "" : "s", " past ", buffer);
  if (o.zeros_to > o.bytes_past) s += StrCat(" (and zeros up to ", GroupedNumber(o.zeros_to), " bytes past)");
  return s;
}

size_t PoolBytes(const PlannedModel& m, const PlannedPool& p) { return m.plan().storage_bytes[m.storage(p.entry)]; }

// A contiguous tensor on `device` over `data` with `shape`, which it borrows.
DLTensor TensorOn(DLDevice device, void* data, const std::vector<int64_t>& shape, DLDataType dtype) {
  auto* dims = const_cast<int64_t*>(shape.data());
  return DLTensor{data, device, static_cast<int32_t>(shape.size()), dtype, dims, nullptr, 0};
}

// The heap's one block: `block_bytes` in `total` bytes of read-write MAP_NORESERVE memory (the
// rest for PoolBuffer to place the pools in) starting on a multiple of `align`. The array, of
// block_bytes, owns the whole mapping.
NDArray MapOneBlock(size_t block_bytes, size_t total, size_t align) {
  auto managed = std::make_unique<DLManagedTensor>();  // first: failing, it leaves no mapping behind
  void* data = MapAligned(total, align, PROT_READ | PROT_WRITE, MAP_NORESERVE);
  AOTRT_REQUIRE(data != nullptr, kOutOfMemory, "cannot map ", GroupedNumber(total), " bytes for an executor");
  int64_t shape = static_cast<int64_t>(block_bytes);
  *managed = {DLTensor{data, DLDevice{kDLCPU, 0}, 1, DLDataType{kDLUInt, 8, 1}, &shape, nullptr, 0},
              reinterpret_cast<void*>(total), [](DLManagedTensor* t) {
                ::munmap(t->dl_tensor.data, reinterpret_cast<size_t>(t->manager_ctx));
                delete t;
              }};
  DLManagedTensor* t = managed.release();
  try {
    return NDArray::FromDLPack(t);  // copies the shape; on failure, consumes nothing
  } catch (...) {
    t->deleter(t);
    throw;
  }
}

}  // namespace

PlannedExecutor::PlannedExecutor(std::shared_ptr<const PlannedModel> model, DLDevice device,
                                 const ExecutorOptions& options, ExecutorArena arena)
    : arena_(arena),
      memory_(arena_.defined() ? static_cast<std::pmr::memory_resource*>(&arena_) : std::pmr::new_delete_resource()),
      model_(std::move(model)),
      device_storages_(memory_),
      pool_buffers_(memory_),
      entry_data_(memory_),
      arg_tensors_(memory_),
      arg_values_(memory_),
      arg_codes_(memory_),
      raw_args_(memory_),
      inputs_(memory_),
      outputs_(memory_),
      num_threads_(options.num_threads) {
  if (const auto* heap = std::get_if<ExecutorOptions::Heap>(&options.memory); heap && !arena_.defined()) {
    check_bounds_ = heap->check_bounds;
    huge_pages_ = heap->huge_pages;
  }
  model_->CheckDevice(device);
  if (!IsAcceptedCpuDevice(device)) {
    device_ = device;
    AOTRT_REQUIRE(!arena_.defined(), kInvalidArgument, model_->display(), ": an executor on ", DeviceName(device),
                  " keeps its tensors in device memory; ExecutorOptions::Arena applies to executors on the CPU");
  }
  AOTRT_REQUIRE(num_threads_ >= 0 && num_threads_ <= kMaxParallelTasks, kInvalidArgument, "ExecutorOptions::num_threads is ",
                num_threads_, ": expected 0 (the default) or a thread count in [1, ", kMaxParallelTasks, "]");
  if (on_device()) {
    model_->PrepareDevice(device_);
    AllocDeviceStorages();
  }
  if (arena_.defined()) {
    block_data_ = static_cast<uint8_t*>(memory_->allocate(model_->plan().block_bytes, kAllocAlignment));
    if (!arena_.zeroed()) std::memset(block_data_, 0, model_->plan().block_bytes);  // inputs read as zeros until set
  } else if (!on_device() || model_->has_host_storage()) {
    MapHeapMemory(options);
  }
  SetUpArgs();
  inputs_.resize(model_->inputs().size());
  outputs_.resize(model_->outputs().size());
  for (const PlannedModel::SharedEntry& s : model_->shared_entries()) Rebind(s.entry, s.data);
  PlacePools(options);
  if (arena_.defined()) {
    auto [region, bytes] = arena_.TakeRest();
    arena_workspace_ = ArenaWorkspace(region, bytes);
  }
  BindParams(on_device() ? model_->DeviceParams(device_) : model_->bound_params());
}

// On a device, each storage of the plan's block is a buffer of its own (a device pointer cannot
// be offset into: an OpenCL buffer is a handle).
void PlannedExecutor::AllocDeviceStorages() {
  const MemoryPlan& plan = model_->plan();
  AOTRT_REQUIRE(model_->pools().empty(), kNotImplemented, model_->display(), ": workspace pools on ",
                DeviceName(device_), " are not supported");
  device_storages_.resize(plan.storage_bytes.size());
  for (size_t sid = 0; sid < plan.storage_bytes.size(); ++sid) {
    if (plan.storage_offset[sid] == MemoryPlan::kNotInBlock || model_->host_storage(sid)) continue;
    if (const PlannedTexture* t = model_->texture(sid)) {
      try {
        device_storages_[sid] = NDArray::Empty(t->shape, t->dtype, device_, t->scope);
      } catch (const Error& e) {
        throw Error(e.code(), StrCat(model_->display(), " (", model_->what(), "): storage ", sid, ": ", e.what()));
      }
      continue;
    }
    device_storages_[sid] = NDArray::Empty({static_cast<int64_t>(plan.storage_bytes[sid])}, DLDataType{kDLUInt, 8, 1},
                                           device_);
  }
}

// Each entry where the plan puts it, and the argument tensors of every call over them.
void PlannedExecutor::SetUpArgs() {
  const MemoryPlan& plan = model_->plan();
  entry_data_.assign(model_->num_entries(), nullptr);
  for (uint32_t eid = 0; eid < entry_data_.size(); ++eid) {
    uint32_t sid = model_->storage(eid);
    size_t offset = plan.storage_offset[sid];
    if (offset == MemoryPlan::kNotInBlock) continue;
    entry_data_[eid] = OnDevice(eid) ? device_storages_[sid].data() : block_data_ + offset;
  }
  const std::vector<PlannedArg>& args = model_->args();
  arg_tensors_.resize(args.size());
  arg_values_.resize(args.size());
  arg_codes_.assign(args.size(), kTVMDLTensorHandle);
  for (size_t a = 0; a < args.size(); ++a) {
    uint32_t eid = args[a].entry;
    arg_tensors_[a] = TensorOn(EntryDevice(eid), entry_data_[eid], args[a].flat_shape.empty() ? model_->shape(eid) : args[a].flat_shape,
                                model_->dtype(eid));
    arg_values_[a].v_handle = &arg_tensors_[a];
  }
  if (model_->HasCall(PlannedCall::kCRun)) raw_args_.resize(args.size());
}

// On the heap, one block: the plan's storages, then each workspace pool the caller does not give,
// with its reserve and guard (README "When a model writes past its memory"). Without such pools,
// the block alone, from NDArray::Empty.
void PlannedExecutor::MapHeapMemory(const ExecutorOptions& options) {
  const size_t block_bytes = model_->plan().block_bytes;
  std::vector<std::pair<const PlannedPool*, size_t>> own;  // each pool the executor makes, at its offset
  size_t end = RoundUp(block_bytes + TailSlack(block_bytes), PageSize()), align = ReservedSpanAlignment(block_bytes);
  for (const PlannedPool& p : model_->pools()) {
    size_t bytes = PoolBytes(*model_, p);
    if (CallerPool(options, p, bytes, model_->display()) != nullptr) continue;
    size_t span = ReservedSpanBytes(bytes), at = RoundUp(end, ReservedSpanAlignment(bytes));
    AOTRT_REQUIRE(span != 0 && at + span > at, kOutOfMemory, "workspace pool '", p.name, "' of ", model_->display(),
                  " of ", GroupedNumber(bytes), " bytes cannot be mapped");
    own.emplace_back(&p, at);
    end = at + span;
    align = std::max(align, ReservedSpanAlignment(bytes));
  }
  block_ = own.empty() ? NDArray::Empty({static_cast<int64_t>(block_bytes)}, DLDataType{kDLUInt, 8, 1})
                       : MapOneBlock(block_bytes, end, align);
  block_data_ = static_cast<uint8_t*>(block_.data());
  if (huge_pages_) AdviseHugePages(block_data_, block_bytes);
  pool_buffers_.reserve(own.size());
  for (const auto& [p, at] : own) {
    size_t bytes = PoolBytes(*model_, *p);
    std::string label = StrCat("workspace pool '", p->name, "' (", GroupedNumber(bytes), " bytes) of ",
                               model_->display(), " (", model_->what(), ")");
    pool_buffers_.emplace_back(p->name, bytes, label, block_data_ + at);
    if (huge_pages_) AdviseHugePages(pool_buffers_.back().data(), bytes);  // not the reserve
  }
}

// Each workspace pool: the caller's memory, or the region's, or its place in the heap's block.
void PlannedExecutor::PlacePools(const ExecutorOptions& options) {
  const std::vector<PlannedPool>& pools = model_->pools();
  for (const ExecutorOptions::Pool& given : options.workspace_pools) {
    bool known = false;
    std::string names;
    for (const PlannedPool& p : pools) {
      known = known || given.name == p.var_name || given.name == p.name;
      names += (names.empty() ? "'" : ", '") + p.name + "'";
    }
    AOTRT_REQUIRE(known, kNotFound, "ExecutorOptions::workspace_pools: ", model_->display(), " has no workspace pool '",
                  given.name, "'; its pools: ", names.empty() ? "none" : names);
  }
  size_t own = 0;  // the next of pool_buffers_
  for (const PlannedPool& p : pools) {
    size_t bytes = PoolBytes(*model_, p);
    void* memory = CallerPool(options, p, bytes, model_->display());
    if (memory == nullptr && arena_.defined()) {
      memory = memory_->allocate(bytes, kAllocAlignment);
      if (!arena_.zeroed()) std::memset(memory, 0, bytes);
    } else if (memory == nullptr) {
      memory = pool_buffers_[own++].data();
    }
    Rebind(p.entry, memory);
  }
}

void PlannedExecutor::Rebind(uint32_t eid, void* data) {
  uint32_t root = model_->alias_root(eid);
  for (uint32_t e : model_->alias_entries(root)) entry_data_[e] = data;
  for (uint32_t a : model_->alias_args(root)) arg_tensors_[a].data = data;
}

// A param shared with the model's other executors is pointed at where it is read only; where a
// call writes its storage it is copied in.
void PlannedExecutor::BindParams(const std::vector<PlannedModel::BoundParam>& params, bool loaded) {
  for (const PlannedModel::BoundParam& p : params) {
    uint32_t eid = model_->input_entry(p.input);
    Slot& s = inputs_[p.input];
    s.loaded_param = s.loaded_param || loaded;
    s.set = true;
    // Shared where read only and on this executor's device; else copied into storage of its own.
    bool here = SameDevice(p.array->device, EntryDevice(eid)) && !model_->texture(model_->storage(eid));
    if (!model_->read_only(model_->storage(eid)) || !here) {
      BindOwnInput(p.input);
      DLTensor own = EntryTensor(eid);
      CopyTensorBytes(p.array.tensor(), &own);
      continue;
    }
    Rebind(eid, p.array.data());
    s.kind = Slot::kParam;
    s.keep = p.array;
  }
}

DLTensor PlannedExecutor::EntryTensor(uint32_t eid) const {
  return TensorOn(EntryDevice(eid), entry_data_[eid], model_->shape(eid), model_->dtype(eid));
}

NDArray PlannedExecutor::Current(bool output, size_t i) const {
  const std::pmr::vector<Slot>& slots = output ? outputs_ : inputs_;
  CheckIndex(output ? "output" : "input", i, slots.size());
  if (slots[i].keep.defined()) return slots[i].keep;
  uint32_t eid = output ? model_->output_entry(i) : model_->input_entry(i);
  NDArray& array = slots[i].handed;
  if (!array.defined()) array = EntryView(eid);
  array.handle()->data = entry_data_[eid];
  array.handle()->byte_offset = 0;
  return array;
}

NDArray PlannedExecutor::EntryView(uint32_t eid) const {
  uint32_t sid = model_->storage(eid);
  size_t offset = model_->plan().storage_offset[sid];
  if (OnDevice(eid) && offset != MemoryPlan::kNotInBlock && entry_data_[eid] == device_storages_[sid].data()) {
    return device_storages_[sid].CreateView(model_->shape(eid), model_->dtype(eid));
  }
  if (block_.defined() && entry_data_[eid] == block_data_ + offset) {
    return block_.CreateView(model_->shape(eid), model_->dtype(eid), offset);
  }
  return NDArray::Borrow(EntryTensor(eid));
}

// Input i on storage of this executor's own (block, or a heap array where the plan leaves the
// storage to a shared param), keeping the value it has.
void PlannedExecutor::BindOwnInput(size_t i) {
  Slot& s = inputs_[i];
  uint32_t eid = model_->input_entry(i);
  if (s.kind == Slot::kOwn && entry_data_[eid] != nullptr) return;  // on a device a param's storage starts unbound
  size_t offset = model_->plan().storage_offset[model_->storage(eid)];
  const TensorInfo& spec = model_->inputs()[i];
  void* own = nullptr;
  if (offset != MemoryPlan::kNotInBlock) {
    own = OnDevice(eid) ? device_storages_[model_->storage(eid)].data() : block_data_ + offset;
  } else {
    // From the heap even for an executor in a region (the region holds no second copy of the params).
    if (!s.own_heap.defined()) {
      s.own_heap = NDArray::Empty(spec.shape, spec.dtype, EntryDevice(eid));
      if (huge_pages_) AdviseHugePages(s.own_heap.data(), s.own_heap.NumBytes());
    }
    own = s.own_heap.data();
  }
  if (s.kind == Slot::kParam) {
    DLTensor to = TensorOn(EntryDevice(eid), own, spec.shape, spec.dtype);
    CopyTensorBytes(s.keep.tensor(), &to);
  }
  Rebind(eid, own);
  s.kind = Slot::kOwn;
  s.keep = NDArray();
}

void PlannedExecutor::CheckIndex(const char* kind, size_t i, size_t n) const {
  AOTRT_REQUIRE(i < n, kOutOfRange, kind, " index ", i, " out of range: ", model_->display(), " has ", n, " ", kind,
                n == 1 ? "" : "s");
}

void PlannedExecutor::SetInput(size_t i, const DLTensor& t) {
  CheckIndex("input", i, inputs_.size());
  const TensorInfo& spec = model_->inputs()[i];
  CheckTensorAgainstSpec("input", i, spec, t, /*convertible=*/true);
  BindOwnInput(i);
  inputs_[i].set = true;
  DLTensor own = EntryTensor(model_->input_entry(i));
  if (DataTypeEqual(t.dtype, spec.dtype)) return CopyTensorBytes(t, &own);
  // Another dtype: the one conversion rule (aotrt/ndarray.h). Every value is checked before the
  // input is touched, so a refused value leaves the input as it was.
  std::string what = StrCat("input ", i, " ('", spec.name, "')");
  AOTRT_REQUIRE(IsAcceptedCpuDevice(t.device), kTypeMismatch, what, ": a ", DataTypeToString(t.dtype), " tensor on ",
                DeviceName(t.device), " is converted to ", DataTypeToString(spec.dtype),
                " from the CPU only: pass it from the CPU or in the input's dtype");
  if (!OnDevice(model_->input_entry(i))) return ConvertTensor(t, &own, what);
  NDArray host = NDArray::Empty(spec.shape, spec.dtype);
  ConvertTensor(t, host.handle(), what);
  CopyTensorBytes(host.tensor(), &own);
}

void PlannedExecutor::SetZeroCopy(bool output, size_t i, const DLTensor& t, NDArray keep) {
  const char* kind = output ? "output" : "input";
  std::pmr::vector<Slot>& slots = output ? outputs_ : inputs_;
  CheckIndex(kind, i, slots.size());
  const TensorInfo& spec = output ? model_->outputs()[i] : model_->inputs()[i];
  CheckTensorAgainstSpec(kind, i, spec, t);
  uint32_t eid = output ? model_->output_entry(i) : model_->input_entry(i);
  DLDevice at = EntryDevice(eid);
  AOTRT_REQUIRE(SameDevice(t.device, at), kInvalidArgument, kind, " ", i, " ('", spec.name, "'): a zero-copy tensor ",
                "must be where the ", kind, " lives, ", DeviceName(at), " ", at.device_id, "; got one on ",
                DeviceName(t.device), " ", t.device.device_id, " (set_", kind, " copies from any device)");
  size_t input = output ? model_->output_view_of(i) : PlannedModel::kNoInput;
  AOTRT_REQUIRE(input == PlannedModel::kNoInput, kInvalidArgument, "output ", i, " ('", spec.name, "') of ",
                model_->display(), " is input ", input, " ('", model_->inputs()[input].name,
                "') seen through a __nop node (a reshape): it has no memory of its own to place; set input ", input,
                " zero-copy instead, or read the output with get_output");
  auto addr = reinterpret_cast<uintptr_t>(t.data) + t.byte_offset;
  // A device's data pointer is a handle: only an offset of 0 into it can be passed to a kernel.
  AOTRT_REQUIRE(!model_->texture(model_->storage(eid)), kInvalidArgument, kind, " ", i, " ('", spec.name,
                "') lives in texture storage (an image, scope '", model_->texture(model_->storage(eid))->scope,
                "'): zero-copy takes buffers; copy it with set_input or get_output instead");
  bool device = OnDevice(eid);
  AOTRT_REQUIRE(device ? t.byte_offset == 0 : addr % kAllocAlignment == 0, kInvalidArgument, kind, " ", i, " ('",
                spec.name, "'): zero-copy tensor data at 0x", Hex{addr}, device ? " has a byte offset" : " is not ",
                device ? "" : StrCat(kAllocAlignment, "-byte aligned"));
  Rebind(eid, reinterpret_cast<void*>(addr));
  slots[i].kind = Slot::kCaller;
  slots[i].keep = std::move(keep);
  slots[i].set = true;
}

NDArray PlannedExecutor::GetInput(size_t i) {
  CheckIndex("input", i, inputs_.size());
  inputs_[i].set = true;  // the caller may write it
  if (inputs_[i].kind == Slot::kParam) BindOwnInput(i);  // the array returned is writable: not the shared param
  return Current(false, i);
}

void PlannedExecutor::CopyOutputTo(size_t i, DLTensor* out) const {
  CheckIndex("output", i, outputs_.size());
  AOTRT_REQUIRE(out != nullptr, kInvalidArgument, "get_output(", i, ", out): out is null");
  CheckTensorAgainstSpec("output", i, model_->outputs()[i], *out);
  CopyTensorBytes(EntryTensor(model_->output_entry(i)), out);
}

void PlannedExecutor::Sync() const {
  if (on_device()) FindDeviceAPI(device_.device_type)->Sync(device_.device_id, nullptr);
}

// In a region, the run-time workspace comes from it; a failed call never frees its blocks, so
// every call starts with the whole of it.
void PlannedExecutor::CallOps(size_t first, size_t last) {
  if (arena_.defined()) arena_workspace_.Reset();
  ArenaWorkspaceScope in_region(arena_.defined() ? &arena_workspace_ : CurrentArenaWorkspace());
  for (size_t k = first; k < last; ++k) CallOp(k);
}

void PlannedExecutor::CallOp(size_t k) {
  const PlannedCall& op = model_->calls()[k];
  TVMValue* values = &arg_values_[op.first_arg];
  int* codes = &arg_codes_[op.first_arg];
  const int n = static_cast<int>(op.num_args);
  switch (op.kind) {
    case PlannedCall::kNop:
      return;
    case PlannedCall::kCopy:
      return CopyTensorBytes(arg_tensors_[op.first_arg], &arg_tensors_[op.first_arg + 1]);
    case PlannedCall::kPacked: {
      TVMRetValue rv;
      return op.packed.CallPacked(TVMArgs(values, codes, n), &rv);
    }
    case PlannedCall::kCall:
    case PlannedCall::kCRun:
      break;
  }
  TVMValue ret;
  int ret_code = kTVMNullptr;
  uint64_t errors_before = LastErrorSequence();
  size_t workspace_mark = WorkspaceMark();
  int rc;
  if (op.kind == PlannedCall::kCRun) {
    void** raw = &raw_args_[op.first_arg];
    for (int a = 0; a < n; ++a) raw[a] = arg_tensors_[op.first_arg + a].data;
    rc = op.c_run(raw, raw + op.c_inputs, raw + op.c_inputs + op.c_outputs);
  } else {
    rc = op.fn(values, codes, n, &ret, &ret_code, nullptr);
  }
  if (rc == 0) return;
  WorkspaceReleaseTo(workspace_mark);
  std::string call = op.node.empty() ? "" : StrCat(": node ", op.node_id, " ('", op.node, "', function ", op.function, ")");
  ThrowCalleeFailure(errors_before, StrCat(model_->display(), " (", model_->what(), ")", call));
}

PlannedExecutor::OpDescription PlannedExecutor::DescribeOp(size_t k) const {
  const PlannedCall& op = model_->calls()[k];
  OpDescription d{op.node, op.function, ""};
  for (uint32_t a = op.first_arg; a < op.first_arg + op.num_args; ++a) {
    uint32_t eid = model_->args()[a].entry;
    const std::vector<int64_t>& shape = model_->shape(eid);
    d.shapes += StrCat(a > op.first_arg ? ", " : "", DataTypeToString(model_->dtype(eid)),
                       ShapeToString(shape.data(), static_cast<int>(shape.size())));
  }
  return d;
}

size_t PlannedExecutor::InputIndex(const std::string& name) const {
  if (const size_t* i = model_->FindInput(name)) return *i;
  std::vector<bool> loaded(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i) loaded[i] = inputs_[i].loaded_param;
  model_->ThrowInvalidInput(name, loaded);
}

void PlannedExecutor::WarnUnsetInputs() {
  unset_checked_ = true;
  if (!model_->calls_are_operators()) return;  // a graph's; an AOT model's unset inputs go unremarked
  std::string unset;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (!inputs_[i].set) unset += StrCat(unset.empty() ? "'" : ", '", model_->inputs()[i].name, "'");
  }
  if (unset.empty()) return;
  AOTRT_LOG_WARN(model_->display(), " (", model_->what(), ") runs with input",
                 unset.find(',') == std::string::npos ? " " : "s ", unset, " never set, read as zeros: set them "
                 "(set_input), or give the graph's params (load_params with the params file's bytes, "
                 "Model::LoadGraph's params, aotrt run --params mod.params)");
}

void PlannedExecutor::Run() {
  ScopedThreadLimit threads(num_threads_);
  if (check_bounds_) return RunChecked();  // never in a region
  CallOps(0, model_->calls().size());
  if (on_device() && !ran_on_device_) {
    ran_on_device_ = true;
    model_->PrepareDevice(device_, /*first_run_done=*/true);
  }
}

void PlannedExecutor::RunChecked() {
  WorkspaceBoundsCheck blocks;
  try {
    CallOps(0, model_->calls().size());
  } catch (...) {
    for (PoolBuffer& p : pool_buffers_) p.TakeOverrun();  // the next run is checked afresh
    throw;
  }
  std::string what;
  for (PoolBuffer& p : pool_buffers_) {
    Overrun o = p.TakeOverrun();
    if (o.found() && what.empty()) {
      what = OverrunMessage(model_->display(), o, StrCat("workspace pool '", p.name(), "' (", GroupedNumber(p.bytes()), " bytes)"));
    }
  }
  WorkspaceOverrun w = blocks.overrun();
  if (w.found() && what.empty()) {
    what = OverrunMessage(model_->display(), Overrun{w.bytes_past, w.zeros_to},
                          StrCat("a TVMBackendAllocWorkspace block (", GroupedNumber(w.block_bytes), " bytes)"));
  }
  AOTRT_REQUIRE(what.empty(), kModelError, what, " in ", model_->what(),
                ": a bug in the model's generated code (the runtime's reserve absorbed the write)");
}

}  // namespace aotrt

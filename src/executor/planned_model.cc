#include "executor/planned_model.h"

#include <algorithm>

#include "aotrt/dtype.h"
#include "base/error_util.h"
#include "device/texture.h"
#include "executor/executor_module.h"

namespace aotrt {
namespace {

constexpr size_t kMaxEntryBytes = size_t{1} << 40;

size_t EntryBytes(const std::vector<int64_t>& shape, DLDataType t, const std::string& where) {
  size_t n = 1;
  for (int64_t d : shape) {
    AOTRT_REQUIRE(d == 0 || n <= kMaxEntryBytes / static_cast<size_t>(d), kFormatError, where, " has absurd shape ",
                  ShapeToString(shape.data(), static_cast<int>(shape.size())));
    n *= static_cast<size_t>(d);
  }
  AOTRT_REQUIRE(n <= kMaxEntryBytes / std::max<size_t>(DataTypeBytes(t), 1), kFormatError, where, " is ",
                DataTypeToString(t), ShapeToString(shape.data(), static_cast<int>(shape.size())), ": ",
                n * DataTypeBytes(t), " bytes, over the limit of 1 TiB for one tensor");
  return n * DataTypeBytes(t);
}

}  // namespace

uint32_t PlannedModel::AddEntry(std::vector<int64_t> shape, DLDataType dtype, uint32_t storage, const std::string& where) {
  size_t bytes = EntryBytes(shape, dtype, where);
  auto eid = static_cast<uint32_t>(entries_.size());
  entries_.push_back({std::move(shape), dtype, storage, bytes});
  alias_root_.push_back(eid);
  return eid;
}

void PlannedModel::AddInput(uint32_t eid, std::string name) {
  AOTRT_REQUIRE(input_index_.Insert(name, inputs_.size()) == nullptr, kFormatError, what_, ": two inputs of ", display_,
                " are named '", name, "'");
  input_entries_.push_back(eid);
  inputs_.push_back(TensorInfo{std::move(name), shape(eid), dtype(eid), entry_bytes(eid)});
}

void PlannedModel::AddOutput(uint32_t eid, std::string name) {
  output_index_.Insert(name, outputs_.size());  // the first output of a name answers to it
  output_entries_.push_back(eid);
  outputs_.push_back(TensorInfo{std::move(name), shape(eid), dtype(eid), entry_bytes(eid)});
}

void PlannedModel::AddCall(PlannedCall call, const std::vector<uint32_t>& args, const std::vector<uint32_t>& writes,
                           bool flatten) {
  call.first_arg = static_cast<uint32_t>(args_.size());
  call.num_args = static_cast<uint32_t>(args.size());
  for (uint32_t eid : args) {
    PlannedArg a{eid, {}};
    if (flatten) {
      int64_t n = 1;
      for (int64_t d : shape(eid)) n *= d;  // bounded: AddEntry checked the entry's size
      a.flat_shape = {n};
    }
    args_.push_back(std::move(a));
  }
  for (uint32_t eid : writes) {
    if (storage(eid) >= written_.size()) written_.resize(storage(eid) + 1, false);
    written_[storage(eid)] = true;
  }
  calls_.push_back(std::move(call));
}

const std::vector<PlannedModel::BoundParam>& PlannedModel::DeviceParams(DLDevice device) const {
  std::lock_guard<std::mutex> lock(device_params_mu_);
  for (const auto& [at, params] : device_params_) {
    if (at.device_type == device.device_type && at.device_id == device.device_id) return params;
  }
  std::vector<BoundParam> made;
  for (const BoundParam& p : bound_) {
    if (host_storage(storage(input_entries_[p.input]))) {
      made.push_back(p);
      continue;
    }
    NDArray copy = NDArray::Empty(p.array.Shape(), p.array.dtype(), device);
    copy.CopyFrom(p.array.tensor());
    made.push_back({p.input, copy});
  }
  return device_params_.emplace_back(device, std::move(made)).second;
}

void PlannedModel::PlaceInTexture(uint32_t eid, const std::string& scope, const std::string& where) {
  const Entry& e = entries_[eid];
  TextureShape image = FlattenToTexture(e.shape.data(), static_cast<int>(e.shape.size()), scope, where);
  if (textures_.size() <= e.storage) textures_.resize(e.storage + 1);
  PlannedTexture& t = textures_[e.storage];
  AOTRT_REQUIRE(t.scope.empty() || (t.scope == scope && DataTypeEqual(t.dtype, e.dtype)), kFormatError, where,
                " is ", DataTypeToString(e.dtype), " in scope '", scope, "' but shares storage ", e.storage,
                " with an entry of ", DataTypeToString(t.dtype), " in scope '", t.scope, "'");
  if (t.scope.empty()) t = PlannedTexture{scope, {0, 0, 4}, e.dtype};
  t.shape[0] = std::max<int64_t>(t.shape[0], image.height);
  t.shape[1] = std::max<int64_t>(t.shape[1], image.width);
}

// Every storage gets the size of its largest entry; the storages that shared params or constants
// fill and the workspace pools stay out of the block, the rest are laid out 64-byte aligned.
void PlannedModel::Finish(std::vector<BoundParam> bound) {
  bound_ = std::move(bound);
  alias_entries_.resize(entries_.size());
  alias_args_.resize(entries_.size());
  for (uint32_t e = 0; e < alias_root_.size(); ++e) alias_entries_[alias_root_[e]].push_back(e);
  for (uint32_t a = 0; a < args_.size(); ++a) alias_args_[alias_root_[args_[a].entry]].push_back(a);
  uint32_t storages = 0;
  for (const Entry& e : entries_) storages = std::max(storages, e.storage + 1);
  plan_.storage_bytes.assign(storages, 0);
  for (const Entry& e : entries_) plan_.storage_bytes[e.storage] = std::max(plan_.storage_bytes[e.storage], e.bytes);
  plan_.storage_offset.assign(storages, 0);
  // An output is handed out writable (get_output): a param it shows is copied, never shared.
  written_.resize(storages);
  for (uint32_t eid : output_entries_) written_[storage(eid)] = true;
  // An output that is an input seen through __nop nodes has no memory of its own to place.
  std::vector<size_t> input_at(entries_.size(), kNoInput);
  for (size_t i = 0; i < input_entries_.size(); ++i) input_at[alias_root(input_entries_[i])] = i;
  for (uint32_t eid : output_entries_) output_view_of_.push_back(input_at[alias_root(eid)]);
  for (const BoundParam& p : bound_) {
    uint32_t sid = storage(input_entries_[p.input]);
    if (read_only(sid)) plan_.storage_offset[sid] = MemoryPlan::kNotInBlock;
  }
  for (const SharedEntry& s : shared_) plan_.storage_offset[storage(s.entry)] = MemoryPlan::kNotInBlock;
  for (const PlannedPool& p : pools_) plan_.storage_offset[storage(p.entry)] = MemoryPlan::kNotInBlock;
  for (size_t sid = 0; sid < storages; ++sid) {
    if (plan_.storage_offset[sid] == MemoryPlan::kNotInBlock) continue;
    plan_.storage_offset[sid] = plan_.block_bytes;
    plan_.block_bytes += (plan_.storage_bytes[sid] + kAllocAlignment - 1) / kAllocAlignment * kAllocAlignment;
  }
}

const size_t* PlannedModel::FindInput(const std::string& name) const {
  const size_t* index = input_index_.Find(name);
  return index != nullptr ? index : input_index_.Find(SanitizeName(name));
}

size_t PlannedModel::InputIndex(const std::string& name) const {
  if (const size_t* index = FindInput(name)) return *index;
  ThrowInvalidInput(name);
}

void PlannedModel::ThrowInvalidInput(const std::string& name, const std::vector<bool>& param) const {
  AOTRT_REQUIRE(!name.empty(), kInvalidArgument, "Invalid input name. Name is empty");
  std::vector<bool> is_param(inputs_.size(), false);
  for (size_t i = 0; i < param.size() && i < is_param.size(); ++i) is_param[i] = param[i];
  for (const BoundParam& p : bound_) is_param[p.input] = true;
  std::string valid, params;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    std::string& list = is_param[i] ? params : valid;
    list += (list.empty() ? "'" : ", '") + inputs_[i].name + "'";
  }
  std::string sanitized = SanitizeName(name);
  AOTRT_THROW(kNotFound, "Invalid input name. '", name, "'", sanitized != name ? " (sanitized '" + sanitized + "')" : "",
              " is not an input of ", display_, " (", what_, "); valid names: ", valid.empty() ? "none" : valid,
              params.empty() ? "" : "; params: ", params);
}

std::vector<PlannedModel::BoundParam> PlannedModel::MatchParams(const std::vector<NamedArray>& params,
                                                                const char* kind) const {
  std::vector<bool> filled(inputs_.size(), false);
  std::vector<BoundParam> bound;
  for (const NamedArray& p : params) {
    AOTRT_REQUIRE(!p.name.empty(), kInvalidArgument, kind, " with an empty name for ", display_);
    size_t input = InputIndex(p.name);
    AOTRT_REQUIRE(!filled[input], kInvalidArgument, kind, " '", p.name, "' fills input ", input, " ('",
                  inputs_[input].name, "') a second time");
    filled[input] = true;
    CheckTensorAgainstSpec("param for input", input, inputs_[input], p.array.tensor());
    bound.push_back({input, p.array});
  }
  return bound;
}

size_t PlannedModel::OutputIndex(const std::string& name) const {
  if (const size_t* index = output_index_.Find(name)) return *index;
  std::string names;
  for (const TensorInfo& o : outputs_) names += (names.empty() ? "'" : ", '") + o.name + "'";
  AOTRT_THROW(kNotFound, "Invalid output name. '", name, "' is not an output of ", display_, " (", what_,
              "); its outputs are ", names.empty() ? "none" : names);
}

const char* ConstantSourceName(ConstantSource source) {
  switch (source) {
    case ConstantSource::kNone: return "none";
    case ConstantSource::kMappedCache: return "mapped from cache";
    case ConstantSource::kBuiltCache: return "own copy, cache file written";
    case ConstantSource::kPrivateCopy: return "private copy";
  }
  return "unknown";
}

}  // namespace aotrt

#include "aot/loaded_model.h"

#include <vector>

#include "base/error_util.h"
#include "base/device.h"

namespace aotrt {
namespace {

std::string SpecString(const TensorSpec& s) {
  return ShapeToString(s.shape.data(), static_cast<int>(s.shape.size())) + " " + DataTypeToString(s.dtype);
}

std::string TensorString(const DLTensor& t) {
  return (t.ndim == 0 || t.shape ? ShapeToString(t.shape, t.ndim) : std::string("[?]")) + " " + DataTypeToString(t.dtype);
}

bool SameShape(const TensorSpec& s, const DLTensor& t) {
  if (static_cast<size_t>(t.ndim) != s.shape.size()) return false;
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] != s.shape[d]) return false;
  }
  return true;
}

std::vector<NamedBytes> ToNamedBytes(const std::vector<TensorSpec>& specs) {
  std::vector<NamedBytes> out;
  out.reserve(specs.size());
  for (const TensorSpec& s : specs) out.push_back({s.name, s.bytes});
  return out;
}

}  // namespace

void CheckTensorAgainstSpec(const char* kind, size_t i, const TensorSpec& spec, const DLTensor& t, bool convertible) {
  AOTRT_REQUIRE(IsAcceptedCpuDevice(t.device), kInvalidArgument, kind, " ", i, " ('",
                spec.name, "'): expected a tensor on CPU 0, got device type ", static_cast<int>(t.device.device_type),
                " id ", t.device.device_id);
  AOTRT_REQUIRE(t.ndim >= 0 && (t.ndim == 0 || t.shape), kInvalidArgument, kind, " ", i, " ('", spec.name,
                "'): invalid tensor (ndim ", t.ndim, ", shape pointer ", static_cast<const void*>(t.shape), ")");
  if (convertible) CheckConversion(t.dtype, spec.dtype, StrCat(kind, " ", i, " ('", spec.name, "')"));
  AOTRT_REQUIRE(convertible || DataTypeEqual(t.dtype, spec.dtype), kTypeMismatch, kind, " ", i, " ('", spec.name, "'): expected dtype ",
                DataTypeToString(spec.dtype), ", got ", DataTypeToString(t.dtype), " (expected ", SpecString(spec),
                ", got ", TensorString(t), ")");
  AOTRT_REQUIRE(SameShape(spec, t), kShapeMismatch, kind, " ", i, " ('", spec.name, "'): expected shape ",
                ShapeToString(spec.shape.data(), static_cast<int>(spec.shape.size())), ", got ",
                ShapeToString(t.shape, t.ndim), " (dtype ", DataTypeToString(t.dtype), ")");
  AOTRT_REQUIRE(IsContiguous(t), kInvalidArgument, kind, " ", i, " ('", spec.name, "'): tensor is not contiguous");
  AOTRT_REQUIRE(spec.bytes == 0 || t.data, kInvalidArgument, kind, " ", i, " ('", spec.name, "'): null data pointer");
}

LoadedModel::LoadedModel(std::string name, ObjectPtr<MetadataModuleNode> metadata_module,
                         std::shared_ptr<const ParamList> params)
    : metadata_module_(std::move(metadata_module)),
      program_(metadata_module_->program()),
      params_(params ? std::move(params) : std::make_shared<const ParamList>()) {
  const ModelMetadata& md = program_->md;
  // As TVM's factory, which sets each param as an input: a name that is not an input is an error.
  std::vector<bool> filled(md.inputs.size(), false);
  bound_.reserve(params_->size());
  for (const NamedArray& p : *params_) {
    AOTRT_REQUIRE(!p.name.empty(), kInvalidArgument, "factory param with an empty name for ", md.DisplayName());
    const size_t* input = md.input_index.Find(SanitizeName(p.name));
    if (input == nullptr) {
      AOTRT_THROW(kNotFound, "factory param '", p.name, "' is not an input of ", md.DisplayName(), " (",
                  program_->library_name, ")");
    }
    AOTRT_REQUIRE(!filled[*input], kInvalidArgument, "factory param '", p.name,
                  "' fills input ", *input, " ('", md.inputs[*input].name, "') a second time");
    filled[*input] = true;
    CheckTensorAgainstSpec("param for input", *input, md.inputs[*input], p.array.tensor());
    bound_.push_back({*input, p.array});
  }
  name_ = std::move(name);
}

const ModelInfo& LoadedModel::info() const {
  std::call_once(info_built_, [this] {
    const ModelMetadata& md = program_->md;
    ModelInfo info;
    info.name = name_;
    info.symbol_prefix = md.mod_name;
    info.library = program_->library_name;
    info.inputs = md.inputs;
    info.outputs = md.outputs;
    info.workspace_pools = ToNamedBytes(md.workspace_pools);
    info.constants.reserve(md.constants.size());
    for (const ConstantSpec& c : md.constants) info.constants.push_back({std::string(c.name), static_cast<size_t>(c.data_len)});
    info.workspace_bytes = program_->WorkspaceBytes();
    info.slack_bytes = program_->WorkspaceSlackBytes();
    std::vector<bool> filled(md.inputs.size(), false);
    for (size_t k = 0; k < bound_.size(); ++k) {  // bound_[k] is the param (*params_)[k]
      filled[bound_[k].input] = true;
      info.params.push_back(md.inputs[bound_[k].input]);
      info.params.back().name = (*params_)[k].name;
    }
    for (size_t i = 0; i < md.inputs.size(); ++i) info.io_bytes += filled[i] ? 0 : md.inputs[i].bytes;
    for (const TensorSpec& o : md.outputs) info.io_bytes += o.bytes;
    info.constant_bytes = program_->constant_pool.bytes();
    info.param_bytes = ParamListBytes(*params_);
    info.constant_source = program_->constant_pool.source();
    info.constant_cache_path = program_->constant_pool.cache_path();
    info.runtime_imports = program_->runtime_imports;
    info.context_pointers = program_->context_pointers;
    info.defines_module_context = program_->defines_module_context;
    if (program_->c_run) {
      info.interface = "c";
      info.c_origin = program_->c_origin;
    }
    info_ = std::move(info);
  });
  return info_;
}

size_t ParamListBytes(const ParamList& params) {
  size_t total = 0;
  for (const NamedArray& p : params) total += p.array.NumBytes();
  return total;
}

}  // namespace aotrt

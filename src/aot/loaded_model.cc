#include "aot/loaded_model.h"

#include <algorithm>
#include <vector>

#include "base/error_util.h"
#include "base/device.h"
#include "executor/executor_module.h"
#include "memory/reserve.h"

namespace aotrt {

LoadedModel::LoadedModel(std::string name, ObjectPtr<MetadataModuleNode> metadata_module,
                         std::shared_ptr<const ParamList> params)
    : PlannedModel(std::move(name), metadata_module->program()->library_name,
                   metadata_module->program()->md.DisplayName()),
      metadata_module_(std::move(metadata_module)),
      program_(metadata_module_->program()),
      params_(params ? std::move(params) : std::make_shared<const ParamList>()) {
  // The entry's arguments as entries, each its own storage: inputs, outputs, then the pools
  // (constant and workspace) in the metadata's order; the one call of the entry.
  const ModelMetadata& md = program_->md;
  std::vector<uint32_t> args, writes;
  auto add = [&](const TensorSpec& t) {
    args.push_back(AddEntry(t.shape, t.dtype, static_cast<uint32_t>(args.size()), StrCat(md.DisplayName(), ": '", t.name, "'")));
    return args.back();
  };
  for (const TensorSpec& t : md.inputs) AddInput(add(t), t.name);
  input_index_ = md.input_index;  // by sanitized name, as TVM looks them up
  for (const TensorSpec& t : md.outputs) {
    AddOutput(add(t), t.name);
    writes.push_back(args.back());
  }
  for (const PoolArg& p : md.pool_args) {
    if (p.is_constant_pool) {
      // shared; the entry only reads it
      const std::vector<int64_t> shape{static_cast<int64_t>(program_->constant_pool.bytes())};  // 0 without constants
      ShareEntry(add(TensorSpec{"constant pool", shape, DLDataType{kDLUInt, 8, 1}, 0}),
                 const_cast<uint8_t*>(program_->constant_pool.data()));
      continue;
    }
    const TensorSpec& spec = md.workspace_pools[p.workspace_index];
    AddPool(add(spec), spec.name, PoolDisplayName(spec.name));
    writes.push_back(args.back());
  }
  PlannedCall call;
  call.function = md.EntryName();
  if (program_->c_run) {
    call.kind = PlannedCall::kCRun;
    call.c_run = program_->c_run;
    call.c_inputs = static_cast<uint32_t>(md.inputs.size());
    call.c_outputs = static_cast<uint32_t>(md.outputs.size());
  } else if (program_->entry) {
    call.fn = program_->entry;
  } else {
    call.kind = PlannedCall::kPacked;
    call.packed = program_->entry_packed;
  }
  AddCall(std::move(call), args, writes);
  Finish(MatchParams(*params_, "factory param"));
}

void LoadedModel::CheckDevice(DLDevice device) const {
  AOTRT_REQUIRE(IsAcceptedCpuDevice(device), kInvalidArgument,
                "AotExecutor supports only execution on kDLCPU 0, got device type ", static_cast<int>(device.device_type),
                " id ", device.device_id);
}

bool LoadedModel::MayUseWorkspace() const {
  const ModelInfo& p = info();
  if (p.runtime_imports.empty() && p.context_pointers.empty()) return true;
  auto has = [](const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); };
  for (const char* fn : {"TVMBackendAllocWorkspace", "TVMBackendGetFuncFromEnv", "TVMFuncCall"}) {
    if (has(p.runtime_imports, fn) || has(p.context_pointers, std::string("__") + fn)) return true;
  }
  return false;
}

void LoadedModel::BuildInfo(ModelInfo* info) const {
  const ModelMetadata& md = program_->md;
  info->symbol_prefix = md.mod_name;
  info->inputs = md.inputs;
  info->outputs = md.outputs;
  for (const TensorSpec& p : md.workspace_pools) {  // each executor allocates its own
    info->workspace_pools.push_back({p.name, p.bytes});
    info->workspace_bytes += p.bytes;
    info->slack_bytes += PoolSlackBytes(p.bytes);
  }
  for (const ConstantSpec& c : md.constants) {
    info->constants.push_back({std::string(c.name), static_cast<size_t>(c.data_len)});
  }
  for (const TensorSpec& t : md.inputs) info->io_bytes += t.bytes;
  for (const TensorSpec& o : md.outputs) info->io_bytes += o.bytes;
  const std::vector<BoundParam>& bound = bound_params();
  for (size_t k = 0; k < bound.size(); ++k) {  // bound[k] is the param (*params_)[k], each input's once
    info->params.push_back(md.inputs[bound[k].input]);
    info->params.back().name = (*params_)[k].name;
    info->io_bytes -= info->params.back().bytes;  // a param's input is bound once, not the caller's
    info->param_bytes += bound[k].array.NumBytes();
  }
  info->constant_bytes = program_->constant_pool.bytes();
  info->constant_source = program_->constant_pool.source();
  info->constant_cache_path = program_->constant_pool.cache_path();
  CollectRuntimeSymbols(metadata_module_.get(), info);  // a C interface's: the library compiled from it
  if (program_->c_run) {
    info->interface = "c";
    info->c_origin = program_->c_origin;
  }
}

}  // namespace aotrt

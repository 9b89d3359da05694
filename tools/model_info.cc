#include "model_info.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <aotrt/container.h>
#include <aotrt/packed_func.h>

namespace aotrt_cli {
namespace {

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

void InferFlavour(const aotrt::ModelInfo& info, ModelDetails* d) {
  if (!d->context_pointers.empty()) {
    d->flavour = "llvm";
    d->flavour_reason = "defines runtime context pointer variables (" + d->context_pointers.front() + ")";
    return;
  }
  for (const std::string& s : d->undefined_runtime_symbols) {
    if (StartsWith(s, "TVMBackend") || s == "TVMAPISetLastError") {
      d->flavour = "c";
      d->flavour_reason = "calls " + s + " directly";
      return;
    }
  }
  if (info.defines_module_context) {
    d->flavour = "c";
    d->flavour_reason = "defines __tvm_module_ctx but no __TVM* pointers";
    return;
  }
  d->flavour = "unknown";
  d->flavour_reason = "no runtime symbols to tell";
}

}  // namespace

bool LaunchesParallelWork(const aotrt::ModelInfo& info) {
  auto has = [](const std::vector<std::string>& v, const char* s) { return std::find(v.begin(), v.end(), s) != v.end(); };
  return has(info.runtime_imports, "TVMBackendParallelLaunch") || has(info.context_pointers, "__TVMBackendParallelLaunch");
}

OperatorThreads OperatorThreadsFor(int op_threads) {
  if (op_threads > 0) return {op_threads, "--op-threads"};
  int pool = static_cast<int>(aotrt::GetGlobalFunction("runtime.NumThreads").Call<int64_t>());
  for (const char* var : {"TVM_NUM_THREADS", "OMP_NUM_THREADS"}) {  // as the runtime reads them
    const char* v = std::getenv(var);
    if (v != nullptr && std::atoi(v) > 0) return {pool, std::string(var) + "=" + v};
  }
  return {pool, "default"};
}

std::string OperatorThreads::Text() const {
  return std::to_string(count) + " (" +
         (source == "default" ? std::string("default: the runtime's pool, from the hardware; --op-threads or "
                                            "TVM_NUM_THREADS to change")
                              : source) +
         ")";
}

std::vector<std::string> ParamNames(const aotrt::Model& model) {
  std::vector<std::string> names;
  for (const aotrt::TensorInfo& p : model.Info().params) names.push_back(p.name);
  return names;
}

ModelDetails GatherDetails(const std::string& path, const aotrt::Model& model) {
  ModelDetails d;
  const aotrt::ModelInfo& info = model.Info();
  aotrt::PackedFunc list = model.module().GetFunction("list_module_names");
  if (list) {
    aotrt::TVMRetValue rv;
    list.CallPacked(aotrt::TVMArgs(nullptr, nullptr, 0), &rv);
    if (auto* arr = dynamic_cast<aotrt::ArrayObj*>(rv.object())) {
      for (const auto& item : arr->items) {
        if (auto* str = dynamic_cast<aotrt::StringObj*>(item.get())) d.model_names.push_back(str->value);
      }
    }
  }
  if (d.model_names.empty()) d.model_names.push_back(info.name);
  for (const aotrt::TensorInfo& p : info.params) {
    d.params.push_back({p.name, p.shape, aotrt::DataTypeToString(p.dtype), p.bytes});
  }
  d.mod_name = info.symbol_prefix;
  for (const aotrt::NamedBytes& p : info.workspace_pools) d.workspace_pools.push_back({p.name, p.bytes});
  for (const aotrt::NamedBytes& c : info.constants) d.constants.push_back({c.name, c.bytes});
  d.constant_pool_bytes = info.constant_bytes;
  if (info.interface == "c") {  // a Model Library Format archive, compiled at load
    d.undefined_runtime_symbols = info.runtime_imports;
    d.flavour = "c";
    d.flavour_reason = "TVM's C interface (Model Library Format), its sources compiled at load: " + info.c_origin;
    return d;
  }
  char magic[4] = {};
  std::ifstream(path, std::ios::binary).read(magic, sizeof(magic));
  if (std::memcmp(magic, "\x7f" "ELF", 4) != 0) {  // an object export (.tar), linked at load
    d.flavour = "objects";
    d.flavour_reason = "an archive of object files (e.g. a system-lib export), linked into a shared library at load";
    return d;
  }
  d.undefined_runtime_symbols = info.runtime_imports;
  d.context_pointers = info.context_pointers;
  InferFlavour(info, &d);
  return d;
}

}  // namespace aotrt_cli

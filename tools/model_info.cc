#include "model_info.h"

#include <algorithm>

#include "aot/factory.h"
#include "aotrt/container.h"
#include "aot/model_state.h"
#include "module/elf_symbols.h"
#include "module/model_contract.h"
#include "npy.h"

namespace aotrt_cli {
namespace {

aotrt::AotExecutorFactoryNode* Factory(const aotrt::Model& model) {
  auto* f = dynamic_cast<aotrt::AotExecutorFactoryNode*>(model.module().node().get());
  if (!f) throw aotrt::Error(aotrt::ErrorCode::kInvalidArgument, "the library's root is not an AotExecutorFactory");
  return f;
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

void InferFlavour(const aotrt::ElfDynamicSymbols& syms, ModelDetails* d) {
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
  if (syms.FindDefined(aotrt::contract::kModuleContext)) {
    d->flavour = "c";
    d->flavour_reason = "defines __tvm_module_ctx but no __TVM* pointers";
    return;
  }
  d->flavour = "unknown";
  d->flavour_reason = "no runtime symbols to tell";
}

}  // namespace

std::vector<std::string> ParamNames(const aotrt::Model& model) {
  std::vector<std::string> names;
  for (const aotrt::NamedArray& p : Factory(model)->params()) names.push_back(p.name);
  return names;
}

ModelDetails GatherDetails(const std::string& path, const aotrt::Model& model) {
  ModelDetails d;
  aotrt::AotExecutorFactoryNode* factory = Factory(model);
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
  if (d.model_names.empty()) d.model_names.push_back(factory->module_name());
  for (const aotrt::NamedArray& p : factory->params()) {
    d.params.push_back({p.name, p.array.Shape(), aotrt::DataTypeToString(p.array.dtype()), p.array.NumBytes()});
  }
  auto* md_module = dynamic_cast<aotrt::MetadataModuleNode*>(factory->imports().at(0).get());
  if (md_module) {
    std::shared_ptr<const aotrt::ModelState> state = md_module->State();
    d.mod_name = state->md.mod_name;
    for (const aotrt::TensorSpec& p : state->md.workspace_pools) d.workspace_pools.push_back({p.name, p.bytes});
    for (const aotrt::ConstantSpec& c : state->md.constants) {
      d.constants.push_back({c.name, static_cast<uint64_t>(c.data_len)});
    }
    d.constant_pool_bytes = state->ConstantBytes();
  }
  std::string file = ReadFile(path);
  if (file.compare(0, 4, "\x7f" "ELF") != 0) {  // an object export (.tar), linked at load
    d.flavour = "objects";
    d.flavour_reason = "an archive of object files (e.g. a system-lib export), linked into a shared library at load";
    return d;
  }
  aotrt::ElfDynamicSymbols syms = aotrt::ReadElfDynamicSymbols(file.data(), file.size(), path);
  for (const std::string& s : syms.undefined) {
    // TVM's C ABI, and the float16 helpers LLVM <= 14 exports expect from the runtime (ABI.md 10.2)
    bool half_helper = s == "__gnu_f2h_ieee" || s == "__gnu_h2f_ieee" || s == "__truncdfhf2";
    if (StartsWith(s, "TVM") || half_helper) d.undefined_runtime_symbols.push_back(s);
  }
  for (const aotrt::ElfSymbol& s : syms.defined) {
    if (StartsWith(s.name, aotrt::contract::kContextPointerPrefix)) d.context_pointers.push_back(s.name);
  }
  std::sort(d.undefined_runtime_symbols.begin(), d.undefined_runtime_symbols.end());
  std::sort(d.context_pointers.begin(), d.context_pointers.end());
  InferFlavour(syms, &d);
  return d;
}

}  // namespace aotrt_cli

// Globals of the module layer with TVM's names and error texts (ABI.md 11.4): the `Module.*`
// properties the Python package reads. The loaders are front doors: api/module_load.cc.
#include "aotrt/module.h"
#include "base/error_util.h"
#include "ffi/registry.h"

namespace aotrt {
namespace {

void RequireArgs(const char* fn, TVMArgs args, int min, int max) {
  AOTRT_REQUIRE(args.size() >= min && args.size() <= max, kInvalidArgument, fn, " takes ", min,
                min == max ? "" : StrCat(" to ", max), " arguments, got ", args.size());
}

void GetTypeKey(TVMArgs args, TVMRetValue* rv) { rv->SetString(args[0].AsModule()->type_key()); }

void GetImport(TVMArgs args, TVMRetValue* rv) {
  RequireArgs("runtime.ModuleGetImport", args, 2, 2);
  auto m = args[0].AsModule();
  int64_t i = args[1].AsInt();
  AOTRT_REQUIRE(i >= 0 && i < static_cast<int64_t>(m->imports().size()), kOutOfRange, "import index ", i,
                " out of range [0, ", m->imports().size(), ")");
  rv->SetObject(m->imports()[i]);
}

void ImportsSize(TVMArgs args, TVMRetValue* rv) {
  rv->SetInt(static_cast<int64_t>(args[0].AsModule()->imports().size()));
}

void SaveToBinary(TVMArgs args, TVMRetValue* rv) { rv->SetBytes(args[0].AsModule()->SaveToBinary()); }

void GetPropertyMask(TVMArgs args, TVMRetValue* rv) { rv->SetInt(args[0].AsModule()->GetPropertyMask()); }

// (Module, name, query_imports) -> 0/1, and (Module, name, query_imports) -> the function or null.
void ImplementsFunction(TVMArgs args, TVMRetValue* rv) {
  RequireArgs("runtime.ModuleImplementsFunction", args, 2, 3);
  bool query = args.size() > 2 && args[2].AsInt() != 0;
  rv->SetInt(Module(args[0].AsModule()).GetFunction(args[1].AsString(), query) ? 1 : 0);
}

void GetFunction(TVMArgs args, TVMRetValue* rv) {
  RequireArgs("runtime.ModuleGetFunction", args, 2, 3);
  bool query = args.size() > 2 && args[2].AsInt() != 0;
  PackedFunc f = Module(args[0].AsModule()).GetFunction(args[1].AsString(), query);
  if (f) rv->SetObject(f.object());
}

// No module aotrt loads has source, a format or a file form of its own (TVM's texts).
template <int kWhat>
void Unsupported(TVMArgs args, TVMRetValue*) {
  static const char* const kNames[] = {"GetFormat", "GetSource", "SaveToFile"};
  AOTRT_THROW(kNotImplemented, "Module[", args[0].AsModule()->type_key(), "] does not support ", kNames[kWhat]);
}

constexpr GlobalDef kDefs[] = {
    {"runtime.ModuleGetTypeKey", GetTypeKey},
    {"runtime.ModuleGetImport", GetImport},
    {"runtime.ModuleImportsSize", ImportsSize},
    {"runtime.ModuleSaveToBinary", SaveToBinary},
    {"runtime.ModuleGetPropertyMask", GetPropertyMask},
    {"runtime.ModuleImplementsFunction", ImplementsFunction},
    {"runtime.ModuleGetFunction", GetFunction},
    {"runtime.ModuleGetFormat", Unsupported<0>},
    {"runtime.ModuleGetSource", Unsupported<1>},
    {"runtime.ModuleSaveToFile", Unsupported<2>},
};

}  // namespace

extern const GlobalTable kModuleGlobals{kDefs};

}  // namespace aotrt

// The front doors that load modules: Module::LoadFromFile / LoadFromMemory / SystemLib and the
// loader globals with TVM's names (runtime.module.loadfile_<fmt>, runtime.ModuleLoadFromFile,
// runtime.SystemLib). Each reads the environment once (RuntimeConfig) and passes the load's
// context down as a parameter.
#include "aotrt/module.h"
#include "module/runtime_config.h"
#include "base/error_util.h"
#include "ffi/registry.h"
#include "module/library_module.h"
#include "module/loader/load.h"
#include "module/loader/system_lib.h"

namespace aotrt {

Module Module::LoadFromFile(const std::string& path, const std::string& format, const LoadOptions& options) {
  return LoadModuleFile(path, format, FrontDoorLoadContext(options, path));
}

Module Module::LoadFromMemory(const void* data, size_t size, const LoadOptions& options) {
  return LoadModuleBytes(data, size, FrontDoorLoadContext(options, StrCat("<in-memory library of ", size, " bytes>")));
}

Module Module::SystemLib(const std::string& prefix) {
  return LoadSystemLib(prefix, FrontDoorLoadContext(LoadOptions(), "system library"));
}

namespace {

// runtime.module.loadfile_<format>(path[, format]): TVM's loader of a file of that format.
template <const char* kName>
void LoadFileAs(TVMArgs args, TVMRetValue* rv) {
  RequireArgCount(kName, args, 1, 2);
  const char* format = kName + sizeof("runtime.module.loadfile_") - 1;
  rv->SetObject(Module::LoadFromFile(args[0].AsString(), format).node());
}

constexpr char kLoadSo[] = "runtime.module.loadfile_so", kLoadTar[] = "runtime.module.loadfile_tar",
               kLoadO[] = "runtime.module.loadfile_o";

void SystemLibGlobal(TVMArgs args, TVMRetValue* rv) {
  rv->SetObject(Module::SystemLib(args.size() > 0 ? args[0].AsString() : "").node());
}

void LoadFromFileGlobal(TVMArgs args, TVMRetValue* rv) {
  RequireArgCount("runtime.ModuleLoadFromFile", args, 1, 2);
  rv->SetObject(Module::LoadFromFile(args[0].AsString(), args.size() > 1 ? args[1].AsString() : "").node());
}

constexpr GlobalDef kDefs[] = {
    {kLoadSo, LoadFileAs<kLoadSo>},
    {kLoadTar, LoadFileAs<kLoadTar>},
    {kLoadO, LoadFileAs<kLoadO>},
    {"runtime.SystemLib", SystemLibGlobal},
    {"runtime.ModuleLoadFromFile", LoadFromFileGlobal},
};

}  // namespace

extern const GlobalTable kLoadGlobals{kDefs};

}  // namespace aotrt

// The `library` module: functions of a model library (dlopened file or system library), each
// symbol wrapped as a packed function, plus the lookup generated code does through
// TVMBackendGetFuncFromEnv.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <tvm/runtime/c_backend_api.h>

#include "aotrt/module.h"
#include "module/load_context.h"
#include "module/symbol_source.h"

namespace aotrt {

class LibraryModuleNode : public ModuleNode {
 public:
  explicit LibraryModuleNode(std::shared_ptr<SymbolSource> lib) : lib_(std::move(lib)) {}
  ~LibraryModuleNode() override;
  const char* type_key() const override { return "library"; }
  int GetPropertyMask() const override { return kModuleBinarySerializable | kModuleRunnable; }
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override;

  const SymbolSource& library() const { return *lib_; }
  const std::shared_ptr<SymbolSource>& shared_library() const { return lib_; }
  // The function `name` from the imports, then the global registry; cached for the library's
  // lifetime because generated code keeps the borrowed handle forever. Throws kNotFound.
  PackedFuncObj* GetFuncFromEnv(const std::string& name);

 private:
  std::shared_ptr<SymbolSource> lib_;
  std::mutex env_mu_;
  std::map<std::string, PackedFunc> env_cache_;
};

// Wrap an exported TVMBackendPackedCFunc; `keep` stays alive as long as the function.
// A non-zero return becomes Error(kModelError) carrying the message the model set.
PackedFunc WrapBackendFunction(TVMBackendPackedCFunc f, std::string name, ObjectPtr<Object> keep);

// The library module of `lib`. Loads of one library share one node, because they share the
// library's globals: the context pointers and __tvm_module_ctx are written once, by the load that
// creates the node, and stay valid while any load is alive. Thread-safe.
ObjectPtr<LibraryModuleNode> AcquireLibraryModule(std::shared_ptr<SymbolSource> lib);

// Build the module tree of a library: the shared library module (above), then the modules of
// __tvm_dev_mblob, each read with `ctx`. Returns the root (the library module itself when there
// is no blob).
Module LoadFromSymbolSource(std::shared_ptr<SymbolSource> lib, const LoadContext& ctx);

// The loads behind Module::LoadFromFile / LoadFromMemory, with the front door's context: `format`
// "" means the extension; so, tar and o are built in, another format goes to a host-registered
// `runtime.module.loadfile_<format>` or, without one, is told by the file's content. Throw as
// Module::LoadFromFile documents.
Module LoadModuleFile(const std::string& path, const std::string& format, const LoadContext& ctx);
Module LoadModuleBytes(const void* data, size_t size, const LoadContext& ctx);
// How a library loaded from `size` bytes in memory is named in messages.
std::string InMemoryName(size_t size);
// The system library's module tree for `prefix`, made once per prefix (the first call's `ctx`
// applies) and shared by every later call. Thread-safe.
Module LoadSystemLib(const std::string& prefix, const LoadContext& ctx);

}  // namespace aotrt

// The `library` module: functions of a model library (dlopened file or system library), each
// symbol wrapped as a packed function, plus the lookup generated code does through
// TVMBackendGetFuncFromEnv.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "aotrt/module.h"
#include "module/symbol_source.h"

namespace aotrt {

class LibraryModuleNode : public ModuleNode {
 public:
  explicit LibraryModuleNode(std::shared_ptr<SymbolSource> lib) : lib_(std::move(lib)) {}
  ~LibraryModuleNode() override;
  const char* type_key() const override { return "library"; }
  int GetPropertyMask() const override { return kModuleBinarySerializable | kModuleRunnable; }
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override;
  std::string MissingFunctionHint(const std::string&) const override {
    if (!imports().empty()) return "";
    return "the library holds operators only, no model (no __tvm_dev_mblob): a graph export's library, which runs "
           "with its graph JSON (aotrt::Model::LoadGraph; tvm.graph_executor.create(graph_json, lib, device))";
  }

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

// The library module that defines `symbol` ("": any library module) in the tree under `node`,
// `node` first, then its imports depth first; nullptr when none.
LibraryModuleNode* FindLibraryModule(ModuleNode* node, const std::string& symbol = "");

// The library module of `lib`. Loads of one library share one node, because they share the
// library's globals: the context pointers and __tvm_module_ctx are written once, by the load that
// creates the node, and stay valid while any load is alive. Thread-safe.
ObjectPtr<LibraryModuleNode> AcquireLibraryModule(std::shared_ptr<SymbolSource> lib);
}  // namespace aotrt

// Modules: named collections of packed functions with imports, as TVM's runtime::Module.
//
// A module loaded from a model library owns (through its import tree) the dlopen handle: the
// library stays loaded while any module or function obtained from it is alive. Module objects are
// immutable after loading except for Import(), which must not race with lookups on the same module.
// GetFunction may be called from any thread; what the returned function does decides its own
// thread-safety (an AotExecutor's functions: one thread at a time per executor).
#pragma once

#include <string>
#include <vector>

#include "aotrt/error.h"
#include "aotrt/export.h"
#include "aotrt/object.h"
#include "aotrt/options.h"
#include "aotrt/packed_func.h"

namespace aotrt {

// Property bits of a module (TVM's ModulePropertyMask).
enum ModuleProperty : int {
  kModuleBinarySerializable = 1,
  kModuleRunnable = 2,
  kModuleDSOExportable = 4,
};

class AOTRT_API ModuleNode : public Object {
 public:
  ModuleNode() : Object(kTypeModule) {}
  // The type key, e.g. "library", "metadata_module", "AotExecutorFactory", "AotExecutor".
  virtual const char* type_key() const = 0;
  // The function called `name`, or an empty PackedFunc. `self` is this module (functions keep it
  // alive). Throws only for errors other than "not found".
  virtual PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) = 0;
  virtual int GetPropertyMask() const { return 0; }
  // What to tell a caller who asked for the missing function `name` (e.g. the names that do
  // exist), or "". Used in the messages of GetFunctionOrThrow.
  virtual std::string MissingFunctionHint(const std::string& name) const { (void)name; return std::string(); }
  // The module's payload in the blob format of its type key. Throws kNotImplemented by default.
  virtual std::string SaveToBinary() const;
  // Called once by the loader when the whole import tree is linked, imports before importers: a
  // module that depends on its imports builds and validates its state here, so that a bad model
  // fails at load. Throws to fail the load. Does nothing by default.
  virtual void OnImportsLinked() {}

  const std::vector<ObjectPtr<ModuleNode>>& imports() const { return imports_; }
  // Append `dep` to the imports; throws kInvalidArgument if that would create a cycle.
  void Import(ObjectPtr<ModuleNode> dep);

 private:
  std::vector<ObjectPtr<ModuleNode>> imports_;
};

class AOTRT_API Module {
 public:
  Module() = default;
  explicit Module(ObjectPtr<ModuleNode> node) : node_(std::move(node)) {}

  // Load a model library exported by TVM (dlopened RTLD_LAZY|RTLD_LOCAL) and return the root of
  // its import tree (for an AOT export, the AotExecutorFactory). `format` "" means the file
  // extension. `options` as for Model::Load (aotrt/options.h). Throws kNotFound (missing file or
  // loader), kIOError (not a loadable library), kFormatError (corrupt blob), kInvalidArgument (an
  // AOTRT_* variable with a value it does not take).
  static Module LoadFromFile(const std::string& path, const std::string& format = "",
                             const LoadOptions& options = LoadOptions());
  // Load a model library from bytes in memory (an in-memory file, never written to disk). The
  // bytes are borrowed for the call only. Throws like LoadFromFile.
  static Module LoadFromMemory(const void* data, size_t size, const LoadOptions& options = LoadOptions());
  // The module of the system library linked into this process (models built with
  // --system-lib register themselves at start-up). `prefix` as given at build time.
  static Module SystemLib(const std::string& prefix = "");

  // Look a function up in this module, then (if query_imports) in its imports depth first.
  // Returns an empty PackedFunc when absent.
  PackedFunc GetFunction(const std::string& name, bool query_imports = false) const;
  // Like GetFunction but throws Error(kNotFound) naming the function and the module when absent.
  PackedFunc GetFunctionOrThrow(const std::string& name, bool query_imports = false) const;
  // TVM's module.time_evaluator is aotrt::TimeEvaluator(module, ...), in aotrt/profiling.h.
  // The accessors below throw kInvalidArgument on an empty module (ThrowEmptyHandle).
  void Import(const Module& other) { checked().Import(other.node_); }
  std::vector<Module> imports() const;
  std::string type_key() const { return checked().type_key(); }
  bool defined() const { return static_cast<bool>(node_); }
  ModuleNode* operator->() const { return &checked(); }
  const ObjectPtr<ModuleNode>& node() const { return node_; }

 private:
  std::string MissingFunction(const std::string& name) const;  // "module 'X' has no function 'y'[: hint]"
  ModuleNode& checked() const {
    if (!node_) ThrowEmptyHandle("Module");
    return *node_;
  }
  ObjectPtr<ModuleNode> node_;
};

}  // namespace aotrt

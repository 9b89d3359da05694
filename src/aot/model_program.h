// The compiled part of a loaded model, shared read-only by every factory and executor made from
// one metadata module: validated metadata, the constant pool and the resolved entry function.
// Built and validated once, when the library is loaded (the metadata module's OnImportsLinked);
// immutable after, so any thread may read it.
#pragma once

#include <memory>
#include <string>

#include <tvm/runtime/c_backend_api.h>

#include "constant_cache/constant_cache.h"
#include "aot/metadata.h"
#include "aotrt/module.h"
#include "executor/planned_model.h"
#include "module/symbol_source.h"

namespace aotrt {

struct ModelProgram {
  const TVMMetadata* raw = nullptr;
  ModelMetadata md;
  ConstantPoolMemory constant_pool;       // source() kNone when the model has no constants
  TVMBackendPackedCFunc entry = nullptr;  // direct pointer when a library module defines the entry
  PackedFunc entry_packed;                // otherwise the packed function found through imports
  std::string library_name;               // names the model library in messages
  // A C-interface archive's run function (aot/c_interface), called instead of `entry`; null for
  // packed exports. `c_origin` says where its code came from.
  PlannedCall::CRunFunc c_run = nullptr;
  std::string c_origin;
};

// Fills runtime_imports, context_pointers and defines_module_context of `p` (an AOT or graph
// model's ModelInfo) from the dynamic symbols of the first library module in `tree` (none: nothing).
void CollectRuntimeSymbols(ModuleNode* tree, ModelInfo* p);

// What names a model's constant pool in the cache (constant_cache.h), from its metadata alone (a
// hit reads none of the constants): the library file's identity (FileIdentityKey; for a library
// with no file of its own, `lib` null included, a hash of the constants' serialized bytes), the
// model's mod_name, and each constant's name, offset and serialized length, in order.
std::string ConstantPoolKey(const ModelMetadata& md, const SymbolSource* lib);

// The `metadata_module` node: gives `get_metadata`, and holds the ModelProgram of its imports.
class MetadataModuleNode : public ModuleNode {
 public:
  // `cache`: where the constant pool comes from (the load's options; a module made without a load,
  // by tvm.aot_executor_factory.create, keeps a private copy).
  explicit MetadataModuleNode(ConstantCacheOptions cache) : cache_(std::move(cache)) {}
  // Around a program built elsewhere (a C-interface archive's), which OnImportsLinked keeps.
  explicit MetadataModuleNode(std::shared_ptr<const ModelProgram> program) : program_(std::move(program)) {}
  const char* type_key() const override { return "metadata_module"; }
  int GetPropertyMask() const override { return kModuleBinarySerializable; }  // as TVM
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override;
  std::string SaveToBinary() const override { return std::string(); }  // empty payload
  // Builds the program from the imports (get_c_metadata, the entry symbol); nothing without
  // imports. Throws kNotFound (no get_c_metadata or entry) or kFormatError (invalid metadata or
  // constants).
  void OnImportsLinked() override;

  // The program; kNotFound when the module has no imports yet (OnImportsLinked not called).
  const std::shared_ptr<const ModelProgram>& program() const;

 private:
  ConstantCacheOptions cache_;
  std::shared_ptr<const ModelProgram> program_;
};

}  // namespace aotrt

// The per-model state every executor of one loaded model shares, read-only: validated metadata,
// the constant pool, the resolved entry function. Built once by the metadata module.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <tvm/runtime/c_backend_api.h>

#include "aot/metadata.h"
#include "aotrt/module.h"

namespace aotrt {

struct ModelState {
  const TVMMetadata* raw = nullptr;
  ModelMetadata md;
  PoolBuffer constant_pool;               // undefined when the model has no constants
  std::vector<int64_t> constant_pool_shape;  // {constant_pool.bytes()}, for the entry's DLTensor
  TVMBackendPackedCFunc entry = nullptr;  // direct pointer when a library module defines the entry
  PackedFunc entry_packed;                // otherwise the packed function found through imports
  std::string library_name;               // names the model library in messages

  // Bytes of every workspace pool (each executor allocates its own).
  size_t WorkspaceBytes() const;
  // Bytes of the constant pool (one, shared by every executor).
  size_t ConstantBytes() const { return constant_pool.bytes(); }
  // Bytes of tail slack one executor adds (its workspace pools), and the shared constant pool's.
  size_t WorkspaceSlackBytes() const;
  size_t ConstantSlackBytes() const { return constant_pool.slack(); }
};

// The `metadata_module` node: gives `get_metadata` and the shared ModelState.
class MetadataModuleNode : public ModuleNode {
 public:
  const char* type_key() const override { return "metadata_module"; }
  int GetPropertyMask() const override { return kModuleBinarySerializable; }  // as TVM
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override;
  std::string SaveToBinary() const override { return std::string(); }  // empty payload

  // Built on first use from the imports (get_c_metadata, the entry symbol); thread-safe. Throws
  // kNotFound (no get_c_metadata or entry) or kFormatError (invalid metadata or constants).
  std::shared_ptr<const ModelState> State();

 private:
  std::mutex mu_;
  std::shared_ptr<const ModelState> state_;
};

}  // namespace aotrt

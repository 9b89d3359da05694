// AotExecutorFactory: the root module of an AOT export. Holds the model name and params and
// imports the metadata module; `factory[<model name>](device)` creates an AotExecutor.
// Immutable after loading: safe to use from several threads.
#pragma once

#include <memory>
#include <string>

#include "aot/executor.h"
#include "aotrt/module.h"

namespace aotrt {

class AotExecutorFactoryNode : public ModuleNode {
 public:
  AotExecutorFactoryNode(std::string module_name, std::shared_ptr<const ParamList> params)
      : module_name_(std::move(module_name)), params_(std::move(params)) {}
  const char* type_key() const override { return "AotExecutorFactory"; }
  int GetPropertyMask() const override { return kModuleBinarySerializable; }  // as TVM
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override;
  std::string MissingFunctionHint(const std::string& name) const override;
  // Payload of ABI.md 6.3: u64 count, names, arrays, module name.
  std::string SaveToBinary() const override;

  const std::string& module_name() const { return module_name_; }
  const ParamList& params() const { return *params_; }
  // A new executor on `device`, checking bounds when `check_bounds` or AOTRT_CHECK_BOUNDS=1.
  // Throws kInvalidArgument (device, bad AOTRT_CHECK_BOUNDS), kNotFound/kFormatError (model).
  ObjectPtr<AotExecutorNode> CreateExecutor(DLDevice device, bool check_bounds = false);

 private:
  std::string module_name_;
  std::shared_ptr<const ParamList> params_;
};

}  // namespace aotrt

// AotExecutorFactory: the root module of an AOT export. Holds the model name and params and
// imports the metadata module; once linked (OnImportsLinked) it holds the LoadedModel, and
// `factory[<model name>](device)` creates an executor of it (aot/executor_module.h).
// Immutable after loading: safe to use from several threads.
#pragma once

#include <memory>
#include <string>

#include "aot/executor_module.h"
#include "aotrt/module.h"
#include "executor/executor_interface.h"

namespace aotrt {

class AotExecutorFactoryNode : public ExecutorFactoryNode {
 public:
  AotExecutorFactoryNode(std::string module_name, std::shared_ptr<const ParamList> params,
                         const ExecutorOptions& executor_floor)
      : ExecutorFactoryNode(std::move(module_name), executor_floor), params_(std::move(params)) {}
  const char* type_key() const override { return "AotExecutorFactory"; }
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override;
  // Payload of ABI.md 6.3: u64 count, names, arrays, module name.
  std::string SaveToBinary() const override;

  // Builds the LoadedModel from import 0, the metadata module. Throws kNotFound (no metadata
  // module) and what LoadedModel throws for the params.
  void OnImportsLinked() override;

  void RequireModel() const override { model(); }
  const ModelInfo& info() const override { return model()->info(); }
  // The model; kNotFound when the factory is not linked to a metadata module.
  const std::shared_ptr<const LoadedModel>& model() const;
  // A new executor on `device` with `options`, whose switches the executor floor can turn on; in
  // options.arena when one is given (executor/executor_in_arena.h). Throws kInvalidArgument (device,
  // arena), kOutOfMemory.
  ObjectPtr<ExecutorModuleNode> CreateExecutor(DLDevice device, const ExecutorOptions& options) override;
  // The bytes of arena an executor with `options` needs (Model::ArenaBytes).
  size_t ArenaBytes(const ExecutorOptions& options) const override;

 private:
  std::shared_ptr<const ParamList> params_;
  std::shared_ptr<const LoadedModel> model_;
};

}  // namespace aotrt

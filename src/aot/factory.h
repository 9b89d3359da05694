// AotExecutorFactory: the root module of an AOT export. Holds the model name and params and
// imports the metadata module; once linked (OnImportsLinked) it holds the LoadedModel, and
// `factory[<model name>](device)` creates an executor of it (executor/executor_module.h).
// Immutable after loading: safe to use from several threads.
#pragma once

#include <memory>
#include <string>

#include "aot/loaded_model.h"
#include "aotrt/module.h"
#include "executor/executor_factory.h"

namespace aotrt {

class AotExecutorFactoryNode : public ExecutorFactoryOf<LoadedModel> {
 public:
  AotExecutorFactoryNode(std::string module_name, std::shared_ptr<const ParamList> params,
                         const ExecutorDefaults& defaults)
      : ExecutorFactoryOf(std::move(module_name), defaults), params_(std::move(params)) {}
  const char* type_key() const override { return "AotExecutorFactory"; }
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override;

  // Builds the LoadedModel from import 0, the metadata module. Throws kNotFound (no metadata
  // module) and what LoadedModel throws for the params.
  void OnImportsLinked() override;

 private:
  std::string NoModelReason() const override {
    return "has no imported metadata module: Expected a module with PackedFunc get_metadata";
  }
  const ParamList& params() const override { return *params_; }
  ObjectPtr<ExecutorFactoryNode> WithoutParams() const override {
    return MakeObject<AotExecutorFactoryNode>(module_name_, std::make_shared<ParamList>(), defaults_);
  }
  std::shared_ptr<const ParamList> params_;
};

}  // namespace aotrt

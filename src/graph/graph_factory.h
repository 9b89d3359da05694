// GraphExecutorFactory, the root of a graph export's library (graph JSON, module name, params; it
// imports the library of operators): factory["<name>"](device) makes a GraphExecutor module of its
// GraphModel. Immutable after loading: safe to use from several threads.
#pragma once

#include <string>

#include "aotrt/module.h"
#include "aotrt/options.h"
#include "executor/executor_factory.h"
#include "graph/graph_model.h"

namespace aotrt {

class GraphExecutorFactoryNode : public ExecutorFactoryOf<GraphModel> {
 public:
  // The model is built when the library is linked (OnImportsLinked).
  GraphExecutorFactoryNode(std::string graph_json, std::vector<NamedArray> params, std::string module_name,
                           const ExecutorDefaults& defaults)
      : ExecutorFactoryOf(std::move(module_name), defaults), graph_json_(std::move(graph_json)),
        params_(std::move(params)) {}
  const char* type_key() const override { return "GraphExecutorFactory"; }
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override;
  // Parses the graph and resolves its functions in import 0, the library. Throws what
  // ParseGraphJson and GraphModel throw; kNotFound without an import.
  void OnImportsLinked() override;

 private:
  std::string NoModelReason() const override { return "has no imported library of operators"; }
  const std::vector<NamedArray>& params() const override { return params_; }
  void SaveHead(dmlc::Stream* s) const override;  // the graph JSON
  ObjectPtr<ExecutorFactoryNode> WithoutParams() const override {
    return MakeObject<GraphExecutorFactoryNode>(graph_json_, std::vector<NamedArray>(), module_name_, defaults_);
  }
  std::string graph_json_;
  std::vector<NamedArray> params_;
};

// The factory over an already loaded library of operators (relay.build's classic triple): the
// graph JSON text and the params file's bytes ("" for none), named "default" as TVM names it.
// `defaults`: the load's ExecutorDefaults. Throws as ParseGraphJson, LoadParams and GraphModel.
Module MakeGraphFactory(const Module& library, const std::string& graph_json, const std::string& params,
                        const ExecutorDefaults& defaults);

}  // namespace aotrt

// The graph executor's modules: GraphExecutorFactory, the root of a graph export's library (graph
// JSON, module name, params; it imports the library of operators), and GraphExecutor, as
// factory["<name>"](device) and tvm.graph_executor.create return it.
// The factory is immutable after loading: safe to use from several threads.
#pragma once

#include <memory>
#include <string>

#include "aotrt/module.h"
#include "aotrt/options.h"
#include "executor/executor_factory.h"
#include "executor/planned_executor.h"
#include "graph/graph_model.h"

namespace aotrt {

class GraphExecutorModuleNode : public ExecutorModuleNode {
 public:
  // `debug`: also the debug executor's functions (tvm.graph_executor_debug.create).
  // In a region (`arena`), ExecutorOptions::on_destroyed is called once the node's memory is left
  // (executor/executor_in_arena.h); on the heap, as the node is destroyed.
  GraphExecutorModuleNode(std::shared_ptr<const GraphModel> model, DLDevice device, const ExecutorOptions& options,
                          const ExecutorOptions& floor, ExecutorArena arena = ExecutorArena(), bool debug = false)
      : model_(model), executor_(std::move(model), device, options, floor, arena), debug_(debug),
        on_destroyed_(arena.defined() ? nullptr : options.on_destroyed), on_destroyed_data_(options.on_destroyed_data) {}
  ~GraphExecutorModuleNode() override;
  const char* type_key() const override { return debug_ ? "GraphExecutorDebug" : "GraphExecutor"; }
  int GetPropertyMask() const override { return kModuleRunnable; }
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override;
  PlannedExecutor& executor() override { return executor_; }
  const GraphModel& model() const { return *model_; }

 private:
  std::shared_ptr<const GraphModel> model_;
  PlannedExecutor executor_;
  bool debug_;
  void (*on_destroyed_)(void*);
  void* on_destroyed_data_;
};

class GraphExecutorFactoryNode : public ExecutorFactoryOf<GraphExecutorModuleNode, GraphModel> {
 public:
  // The model is built when the library is linked (OnImportsLinked).
  GraphExecutorFactoryNode(std::string graph_json, std::vector<NamedArray> params, std::string module_name,
                           const ExecutorOptions& executor_floor)
      : ExecutorFactoryOf(std::move(module_name), executor_floor), graph_json_(std::move(graph_json)),
        params_(std::move(params)) {}
  const char* type_key() const override { return "GraphExecutorFactory"; }
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override;
  // Payload: graph JSON, u64 count, names, arrays, module name (TVM's GraphExecutorFactory).
  std::string SaveToBinary() const override;
  // Parses the graph and resolves its functions in import 0, the library. Throws what
  // ParseGraphJson and GraphModel throw; kNotFound without an import.
  void OnImportsLinked() override;

 private:
  std::string NoModelReason() const override { return "has no imported library of operators"; }
  const std::vector<NamedArray>& params() const override { return params_; }
  ObjectPtr<ExecutorFactoryNode> WithoutParams() const override {
    return MakeObject<GraphExecutorFactoryNode>(graph_json_, std::vector<NamedArray>(), module_name_, executor_floor_);
  }
  std::string graph_json_;
  std::vector<NamedArray> params_;
};

// A graph model over `library` (the module whose functions the graph names): what
// tvm.graph_executor.create and Model::LoadGraph build. Throws as ParseGraphJson and GraphModel.
std::shared_ptr<const GraphModel> MakeGraphModel(const std::string& name, const std::string& graph_json,
                                                 const Module& library, std::vector<NamedArray> params);

// The factory over an already loaded library of operators (relay.build's classic triple): the
// graph JSON text and the params file's bytes ("" for none), named "default" as TVM names it.
// `floor`: the load's executor options. Throws as ParseGraphJson, LoadParams and GraphModel.
Module MakeGraphFactory(const Module& library, const std::string& graph_json, const std::string& params,
                        const ExecutorOptions& floor);

}  // namespace aotrt

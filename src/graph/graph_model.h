// A graph (graph/graph_json.h) as a PlannedModel (executor/planned_model.h): one call per operator
// node, its function resolved once, over the graph's storage plan, with the params bound.
// Immutable after construction and shared like every PlannedModel: any thread may read it.
#pragma once

#include <string>
#include <vector>

#include "executor/planned_model.h"
#include "graph/graph_json.h"

namespace aotrt {

class GraphModel final : public PlannedModel {
 public:
  // `library` is the module whose functions the nodes name (its imports are searched too); it is
  // kept alive. `params` fill graph inputs of their names. Throws kFormatError (a storage too small
  // or an entry of absurd size), kNotFound (a node's function missing from the library, a param
  // that is no input), kTypeMismatch / kShapeMismatch (a param unlike its input: both named).
  GraphModel(std::string name, GraphDef graph, Module library, std::vector<NamedArray> params, std::string what);

  const GraphDef& graph() const { return graph_; }
  // TVM's CPU device ignores the id; pinned host memory is host memory.
  void CheckDevice(DLDevice device) const override;
  void PrepareDevice(DLDevice device, bool first_run_done) const override;
  const char* ExecutorTypeKey(bool debug) const override { return debug ? "GraphExecutorDebug" : "GraphExecutor"; }
  // The GraphExecutor's functions with TVM v0.14's names and semantics, and the debug executor's
  // (graph/graph_functions.cc).
  PackedFunc ExecutorModuleFunction(PlannedExecutor* ex, const std::string& name, const ObjectPtr<ModuleNode>& self,
                                    bool debug) const override;

 private:
  void BuildInfo(ModelInfo* info) const override;

  GraphDef graph_;
  Module library_;
};

}  // namespace aotrt

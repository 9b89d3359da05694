// The packed functions of the GraphExecutor module beyond those every executor shares
// (executor/executor_module.h), with TVM v0.14's names and semantics, and those of the debug
// executor (tvm.graph_executor_debug.create).
#include <cstring>

#include "aotrt/container.h"
#include "aotrt/profiling.h"
#include "base/error_util.h"
#include "ffi/registry.h"
#include "executor/executor_module.h"
#include "graph/graph_model.h"
#include "profiling/internal.h"

namespace aotrt {
namespace {

const GraphModel& Graph(const PlannedExecutor* ex) { return static_cast<const GraphModel&>(ex->model()); }

std::vector<NamedArray> ParamsArg(TVMArgValue a) {
  std::string bytes = a.AsString();
  return LoadParams(bytes.data(), bytes.size());
}

// A graph node by index or name.
uint32_t NodeArg(const PlannedExecutor* ex, TVMArgValue a) {
  const std::vector<GraphNode>& nodes = Graph(ex).graph().nodes;
  if (a.IsString()) {
    std::string name = a.AsString();
    for (uint32_t nid = 0; nid < nodes.size(); ++nid) {
      if (nodes[nid].name == name) return nid;
    }
    AOTRT_THROW(kNotFound, "graph '", ex->model().name(), "' has no node named '", name, "'");
  }
  int64_t nid = a.AsInt();
  AOTRT_REQUIRE(nid >= 0 && nid < static_cast<int64_t>(nodes.size()), kOutOfRange, "node index ", nid,
                " out of range: graph '", ex->model().name(), "' has ", nodes.size(), " nodes");
  return static_cast<uint32_t>(nid);
}

// Runs every operator up to and including node `nid`, in graph order.
void RunThrough(PlannedExecutor* ex, uint32_t nid) {
  const std::vector<PlannedCall>& ops = ex->model().calls();
  for (size_t k = 0; k < ops.size() && ops[k].node_id <= nid; ++k) ex->RunOp(k);
}

// (number, repeat, min_repeat_ms, limit_zero_time_iterations, cooldown_interval_ms,
// repeats_to_cooldown) from args[first] on: TimeEvaluatorOptions' first fields, in order.
TimeEvaluatorOptions TimingArgs(TVMArgs args, int first) {
  auto at = [&](int k) { return static_cast<int>(args[first + k].AsInt()); };
  TimeEvaluatorOptions o{at(0), at(1), at(2), at(3), at(4), at(5)};
  AOTRT_REQUIRE(o.number > 0 && o.repeat > 0, kInvalidArgument, "run_individual: number (", o.number, ") and repeat (",
                o.repeat, ") must be positive");
  ValidateTimeEvaluatorOptions(o);
  return o;
}

// `repeat` doubles, the mean seconds of node `nid` per call in each measurement (0 for an input node).
std::string TimeNode(PlannedExecutor* ex, uint32_t nid, const TimeEvaluatorOptions& o) {
  const std::vector<PlannedCall>& ops = ex->model().calls();
  for (size_t k = 0; k < ops.size(); ++k) {
    if (ops[k].node_id != nid) continue;
    PackedFunc run_op([ex, k](TVMArgs, TVMRetValue*) { ex->RunOp(k); });
    TVMRetValue rv;
    WrapTimeEvaluator(run_op, ex->device(), o).CallPacked(TVMArgs(nullptr, nullptr, 0), &rv);
    return rv.str();
  }
  return std::string(sizeof(double) * o.repeat, '\0');  // +0.0 doubles
}

// One run's per-node times (warmed up as TVM does) as TVM's profiling report JSON (Report.from_json
// reads it): the debug executor's profile_rpc.
OperatorProfile ProfileOnce(PlannedExecutor* ex) {
  OperatorProfileOptions o;
  o.runs = 1;
  o.warmup = 3;  // as TVM
  return ProfileMeasured(*ex, o);
}

const ExecutorMethod kMethods[] = {
    // As TVM's GraphExecutor: a name the graph does not take is -1 / None here, not an error (TVM's
    // Python set_input(**params) asks get_input for each param and skips those the graph lacks).
    {"get_input_index", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       RequireArgCount("get_input_index", args, 1);
       AOTRT_REQUIRE(args[0].IsString(), kTypeMismatch, "Input key is not a string (got ",
                     TypeCodeName(args[0].type_code()), ")");
       const size_t* i = ex->model().FindInput(args[0].AsString());
       rv->SetInt(i != nullptr ? static_cast<int64_t>(*i) : -1);
     }},
    {"get_input", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       if (args.size() > 0 && args[0].IsString() && ex->model().FindInput(args[0].AsString()) == nullptr) return;
       ExecutorFunction(ex, "get_input", ObjectPtr<ModuleNode>()).CallPacked(args, rv);
     }},
    {"get_input_info", [](PlannedExecutor* ex, TVMArgs, TVMRetValue* rv) {
       std::vector<TensorInfo> inputs;
       for (size_t i = 0; i < ex->Info().inputs.size(); ++i) {
         if (!ex->LoadedParam(i)) inputs.push_back(ex->Info().inputs[i]);
       }
       SetTensorInfoResult(rv, inputs);
     }},
    {"load_params", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue*) {
       RequireArgCount("load_params", args, 1);
       ex->BindParams(Graph(ex).MatchParams(ParamsArg(args[0])), /*loaded=*/true);
     }},
    {"share_params", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue*) {
       RequireArgCount("share_params", args, 2);
       auto* other = dynamic_cast<ExecutorModuleNode*>(args[0].AsModule().get());
       AOTRT_REQUIRE(other != nullptr && dynamic_cast<const GraphModel*>(&other->model()) != nullptr, kInvalidArgument,
                     "share_params: argument 0 is not a GraphExecutor module");
       std::vector<PlannedModel::BoundParam> shared;
       for (const NamedArray& p : ParamsArg(args[1])) {
         size_t i = ex->model().InputIndex(p.name);
         shared.push_back({i, other->executor().InputArray(other->executor().InputIndex(p.name))});
         CheckTensorAgainstSpec("shared param for input", i, ex->Info().inputs[i], shared.back().array.tensor());
       }
       ex->BindParams(shared);
     }},
    {"run_from_inputs", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       AOTRT_REQUIRE(args.size() >= 2 && args.size() % 2 == 0, kInvalidArgument,
                     "run_from_inputs takes (device_type, device_id, input, tensor, ...): an even number of arguments");
       for (int i = 2; i < args.size(); i += 2) ex->SetInput(IndexArg(ex, args[i]), *args[i + 1].AsDLTensor());
       ex->Run();
       std::vector<ObjectPtr<Object>> outputs;
       for (size_t i = 0; i < ex->Info().outputs.size(); ++i) {
         const TensorInfo& o = ex->Info().outputs[i];
         NDArray copy = NDArray::Empty(o.shape, o.dtype);
         ex->CopyOutputTo(i, copy.handle());
         outputs.push_back(copy.object());
       }
       rv->SetObject(MakeObject<ArrayObj>(std::move(outputs)), kTVMObjectHandle);
     }},
};

const ExecutorMethod kDebugMethods[] = {
    {"execute_node", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue*) {
       RequireArgCount("execute_node", args, 1);
       RunThrough(ex, NodeArg(ex, args[0]));
     }},
    {"debug_get_output", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue*) {
       RequireArgCount("debug_get_output", args, 2);
       uint32_t nid = NodeArg(ex, args[0]);
       RunThrough(ex, nid);
       CopyTensorBytes(ex->EntryView(Graph(ex).graph().EntryId(nid, 0)).tensor(), args[1].AsDLTensor());
     }},
    {"get_node_output", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       RequireArgCount("get_node_output", args, 2);
       uint32_t nid = NodeArg(ex, args[0]);
       const GraphDef& g = Graph(ex).graph();
       int64_t k = args[1].AsInt();
       AOTRT_REQUIRE(k >= 0 && k < static_cast<int64_t>(g.node_row_ptr[nid + 1] - g.node_row_ptr[nid]), kOutOfRange,
                     "node ", nid, " ('", g.nodes[nid].name, "') has no output ", k);
       uint32_t eid = g.EntryId(nid, static_cast<uint32_t>(k));
       NDArray copy = NDArray::Empty(g.shape[eid], g.dtype[eid]);
       CopyTensorBytes(ex->EntryView(eid).tensor(), copy.handle());
       rv->SetObject(copy.object());
     }},
    {"run_individual", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       RequireArgCount("run_individual", args, 6);
       TimeEvaluatorOptions o = TimingArgs(args, 0);
       ex->Run();  // warm-up, as TVM
       size_t n = Graph(ex).graph().nodes.size();
       std::string blob(sizeof(int64_t), '\0');
       std::memcpy(&blob[0], &n, sizeof(int64_t));
       for (uint32_t nid = 0; nid < n; ++nid) blob += TimeNode(ex, nid, o);
       rv->SetBytes(std::move(blob));
     }},
    {"profile", [](PlannedExecutor* ex, TVMArgs, TVMRetValue* rv) {  // TVM's Report object, as TVM returns
       rv->SetObject(MakeProfileReport(ProfileOnce(ex)), kTVMObjectHandle);
     }},
    {"profile_rpc", [](PlannedExecutor* ex, TVMArgs, TVMRetValue* rv) { rv->SetString(MakeProfileReport(ProfileOnce(ex))->json); }},
    {"run_individual_node", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       RequireArgCount("run_individual_node", args, 7);
       rv->SetBytes(TimeNode(ex, NodeArg(ex, args[0]), TimingArgs(args, 1)));
     }},
};

}  // namespace

PackedFunc GraphModel::ExecutorModuleFunction(PlannedExecutor* ex, const std::string& name,
                                              const ObjectPtr<ModuleNode>& self, bool debug) const {
  if (PackedFunc f = MethodFunction(kMethods, std::end(kMethods), ex, name, self)) return f;
  return debug ? MethodFunction(kDebugMethods, std::end(kDebugMethods), ex, name, self) : PackedFunc();
}

}  // namespace aotrt

#include "graph/graph_model.h"

#include "aot/model_program.h"
#include "executor/executor_module.h"
#include "base/device.h"
#include "base/error_util.h"
#include "device/device_api.h"
#include "device_module/device_module.h"
#include "module/library_module.h"

namespace aotrt {

GraphModel::GraphModel(std::string name, GraphDef graph, Module library, std::vector<NamedArray> params,
                       std::string what)
    : PlannedModel(name, what, StrCat("graph '", name, "'")), graph_(std::move(graph)), library_(std::move(library)) {
  const std::string json = StrCat("graph JSON of ", this->what());  // in messages
  for (uint32_t nid = 0; nid < graph_.nodes.size(); ++nid) {
    for (uint32_t eid = graph_.node_row_ptr[nid]; eid < graph_.node_row_ptr[nid + 1]; ++eid) {
      AddEntry(graph_.shape[eid], graph_.dtype[eid], graph_.storage_id[eid], StrCat(json, ": node entry ", eid,
               " (output ", eid - graph_.node_row_ptr[nid], " of node ", nid, " '", graph_.nodes[nid].name, "')"));
    }
  }
  // A heterogeneous graph's host entries, each storage on one device.
  std::vector<int> storage_device(graph_.device_type == kDLCPU ? 0 : graph_.NumEntries(), -1);
  for (uint32_t eid = 0; eid < storage_device.size(); ++eid) {
    int& at = storage_device[graph_.storage_id[eid]];
    AOTRT_REQUIRE(at < 0 || at == graph_.entry_device[eid], kFormatError, json, ": storage ", graph_.storage_id[eid],
                  " holds entries on device types ", at, " and ", graph_.entry_device[eid], " (node entry ", eid, ")");
    at = graph_.entry_device[eid];
    if (at == kDLCPU) KeepOnHost(graph_.storage_id[eid]);
  }
  // Texture storage: images, each storage wholly in one scope.
  for (uint32_t eid = 0; eid < graph_.storage_scope.size(); ++eid) {
    const std::string& scope = graph_.storage_scope[eid];
    if (!scope.empty()) PlaceInTexture(eid, scope, StrCat(json, ": node entry ", eid));
  }
  for (uint32_t eid = 0; eid < graph_.storage_scope.size(); ++eid) {
    uint32_t sid = graph_.storage_id[eid];
    AOTRT_REQUIRE(!texture(sid) || !graph_.storage_scope[eid].empty(), kFormatError, json, ": storage ", sid,
                  " holds texture entries and node entry ", eid, ", a buffer");
    AOTRT_REQUIRE(!texture(sid) || (graph_.device_type != kDLCPU && graph_.entry_device[eid] != kDLCPU), kFormatError,
                  json, ": node entry ", eid, " is in texture storage (scope '", graph_.storage_scope[eid],
                  "') on the CPU; texture storage is a GPU's (OpenCL images)");
  }
  for (uint32_t nid : graph_.arg_nodes) AddInput(graph_.EntryId(nid, 0), graph_.nodes[nid].name);
  for (size_t i = 0; i < graph_.heads.size(); ++i) {
    AddOutput(graph_.EntryId(graph_.heads[i]), graph_.nodes[graph_.heads[i].node_id].name);
    output_index_.Insert(StrCat(outputs().back().name, ":", i), i);
  }
  // The operator calls, in graph order.
  for (uint32_t nid = 0; nid < graph_.nodes.size(); ++nid) {
    const GraphNode& node = graph_.nodes[nid];
    if (!node.is_op) continue;
    PlannedCall op;
    op.node_id = nid;
    op.node = node.name;
    op.function = node.func_name;
    std::vector<uint32_t> args, outputs;
    for (const GraphEntryRef& e : node.inputs) args.push_back(graph_.EntryId(e));
    for (uint32_t k = 0; k < node.num_outputs; ++k) outputs.push_back(graph_.EntryId(nid, k));
    args.insert(args.end(), outputs.begin(), outputs.end());
    std::string where = StrCat(json, ": node ", nid, " ('", node.name, "')");
    if (node.func_name == "__nop") {
      op.kind = PlannedCall::kNop;
      for (uint32_t out : outputs) {
        if (node.inputs.empty() || storage(out) != storage(args[0])) continue;
        // A view of its input: no larger, or the nodes after it read past the input (a caller's zero-copy buffer).
        AOTRT_REQUIRE(entry_bytes(out) <= entry_bytes(args[0]), kFormatError, where, " is a __nop (a view of its input) ",
                      "whose output ", out - graph_.EntryId(nid, 0), " is ", DataTypeToString(dtype(out)),
                      ShapeToString(shape(out).data(), static_cast<int>(shape(out).size())), ", ", entry_bytes(out),
                      " bytes, larger than its input's ", entry_bytes(args[0]), " bytes");
        Alias(out, args[0]);
      }
      outputs.clear();  // writes nothing
    } else if (node.func_name == "__copy") {
      op.kind = PlannedCall::kCopy;
      AOTRT_REQUIRE(args.size() == 2 && entry_bytes(args[0]) == entry_bytes(args[1]), kFormatError, where,
                    ": __copy needs one input and one output of the same size");
    } else if (LibraryModuleNode* lib = FindLibraryModule(library_.node().get(), node.func_name)) {
      op.fn = reinterpret_cast<TVMBackendPackedCFunc>(lib->library().Lookup(node.func_name));
    } else {
      op.kind = PlannedCall::kPacked;
      op.packed = library_.GetFunction(node.func_name, /*query_imports=*/true);
      auto* model = dynamic_cast<ExecutorFactoryNode*>(library_.node().get());
      AOTRT_REQUIRE(op.packed, kNotFound, where, " calls function '", node.func_name,
                    "', which the library does not define: the graph JSON belongs to another library",
                    model ? StrCat("; this library is ", library_.type_key() == "AotExecutorFactory" ? "an AOT export" :
                                   "a graph export with its graph inside", " (model '", model->module_name(),
                                   "'), which runs without a graph JSON: load it alone (Model::Load; aotrt run ",
                                   "without --graph; tvm.runtime.load_module(path)[\"", model->module_name(),
                                   "\"](device))") : std::string());
    }
    AddCall(std::move(op), args, outputs, node.flatten_data);
  }
  Finish(MatchParams(params));
}

void GraphModel::CheckDevice(DLDevice device) const {
  DLDevice compiled = MakeDevice(graph_.device_type, 0);
  bool cpu = graph_.device_type == kDLCPU;
  int type = DeviceTypeOf(device);
  bool same = cpu ? type == kDLCPU || type == kDLCUDAHost : type == graph_.device_type;
  AOTRT_REQUIRE(same, kInvalidArgument, "GraphExecutor of '", name(), "' (", what(), ") was compiled for ",
                DeviceName(compiled), " (device type ", graph_.device_type, "): create it on ", DeviceName(compiled),
                cpu ? "" : StrCat(" (e.g. tvm.", DeviceName(compiled), "(0), --device ", DeviceName(compiled), ")"), "; got ", DeviceName(device),
                " (device type ", type, ") id ", device.device_id);
  AOTRT_REQUIRE(!cpu || device.device_id == 0, kInvalidArgument, "GraphExecutor of '", name(), "': cpu device ",
                device.device_id, " does not exist (the CPU is device 0)");
  if (!cpu) RequireDevice(device, StrCat("GraphExecutor of '", name(), "' (", what(), "), compiled for ",
                                         DeviceName(compiled)));
}

void GraphModel::PrepareDevice(DLDevice device, bool first_run_done) const {
  PrepareDeviceModules(library_.node().get(), device, first_run_done);
}

void GraphModel::BuildInfo(ModelInfo* info) const {
  info->interface = "graph";
  // What the operators' library imports from the runtime, as an AOT model's.
  CollectRuntimeSymbols(library_.node().get(), info);
  info->inputs = inputs();
  info->outputs = outputs();
  for (const BoundParam& p : bound_params()) {
    info->params.push_back(inputs()[p.input]);
    info->param_bytes += p.array.NumBytes();
  }
  const MemoryPlan& plan = this->plan();
  std::vector<bool> io(plan.storage_bytes.size(), false);
  for (size_t i = 0; i < inputs().size(); ++i) io[storage(input_entry(i))] = true;
  for (size_t i = 0; i < outputs().size(); ++i) io[storage(output_entry(i))] = true;
  for (size_t sid = 0; sid < plan.storage_bytes.size(); ++sid) {
    if (plan.storage_offset[sid] == MemoryPlan::kNotInBlock) continue;
    (io[sid] ? info->io_bytes : info->workspace_bytes) += plan.storage_bytes[sid];
  }
}

}  // namespace aotrt

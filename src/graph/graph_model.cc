#include "graph/graph_model.h"

#include "executor/executor_module.h"
#include "base/error_util.h"
#include "device/device_api.h"
#include "module/library_module.h"

namespace aotrt {

GraphModel::GraphModel(std::string name, GraphDef graph, Module library, std::vector<NamedArray> params,
                       std::string what)
    : PlannedModel(name, what, StrCat("graph '", name, "'")), graph_(std::move(graph)), library_(std::move(library)) {
  for (uint32_t eid = 0; eid < graph_.NumEntries(); ++eid) {
    AddEntry(graph_.shape[eid], graph_.dtype[eid], graph_.storage_id[eid], StrCat(this->what(), ": node entry ", eid));
  }
  for (uint32_t nid : graph_.arg_nodes) AddInput(graph_.EntryId(nid, 0), graph_.nodes[nid].name);
  for (size_t i = 0; i < graph_.heads.size(); ++i) {
    AddOutput(graph_.EntryId(graph_.heads[i]), graph_.nodes[graph_.heads[i].node_id].name);
    output_index_.Insert(StrCat(outputs().back().name, ":", i), i);
  }
  AddNodeCalls();
  Finish(MatchParams(params));
}

void GraphModel::AddNodeCalls() {
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
    std::string where = StrCat(what(), ": node ", nid, " ('", node.name, "')");
    if (node.func_name == "__nop") {
      op.kind = PlannedCall::kNop;
      for (uint32_t out : outputs) {
        if (!node.inputs.empty() && storage(out) == storage(args[0])) Alias(out, args[0]);
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
      AOTRT_REQUIRE(op.packed, kNotFound, where, " calls function '", node.func_name,
                    "', which the library does not define: the graph JSON belongs to another library");
    }
    AddCall(std::move(op), args, outputs, node.flatten_data);
  }
}

void GraphModel::CheckDevice(DLDevice device) const {
  DLDevice compiled{static_cast<DLDeviceType>(graph_.device_type), 0};
  bool cpu = graph_.device_type == kDLCPU;
  bool same = cpu ? device.device_type == kDLCPU || device.device_type == kDLCUDAHost
                  : device.device_type == graph_.device_type;
  AOTRT_REQUIRE(same, kInvalidArgument, "GraphExecutor of '", name(), "' (", what(), ") was compiled for ",
                DeviceName(compiled), " (device type ", graph_.device_type, "): create it on ", DeviceName(compiled),
                cpu ? "" : " (e.g. tvm.opencl(0), Device{kDLOpenCL, 0}, --device opencl)", "; got ", DeviceName(device),
                " (device type ", static_cast<int>(device.device_type), ") id ", device.device_id);
  if (cpu) {
    AOTRT_REQUIRE(device.device_id == 0, kInvalidArgument, "GraphExecutor of '", name(), "': cpu device ",
                  device.device_id, " does not exist (the CPU is device 0)");
    return;
  }
  RequireDevice(device, StrCat("GraphExecutor of '", name(), "' (", what(), "), compiled for ", DeviceName(compiled)));
}

std::vector<GraphModel::BoundParam> GraphModel::MatchParams(const std::vector<NamedArray>& params) const {
  std::vector<BoundParam> bound;
  std::vector<bool> filled(inputs().size(), false);
  for (const NamedArray& p : params) {
    size_t input = InputIndex(p.name);
    AOTRT_REQUIRE(!filled[input], kInvalidArgument, what(), ": param '", p.name, "' is given twice");
    filled[input] = true;
    CheckTensorAgainstSpec("param for input", input, inputs()[input], p.array.tensor());
    bound.push_back({input, p.array});
  }
  return bound;
}

const ModelInfo& GraphModel::info() const {
  std::call_once(info_built_, [this] {
    ModelInfo info;
    info.name = name();
    info.library = what();
    info.interface = "graph";
    info.inputs = inputs();
    info.outputs = outputs();
    for (const BoundParam& p : bound_params()) {
      info.params.push_back(inputs()[p.input]);
      info.param_bytes += p.array.NumBytes();
    }
    const MemoryPlan& plan = this->plan();
    std::vector<bool> io(plan.storage_bytes.size(), false);
    for (size_t i = 0; i < inputs().size(); ++i) io[storage(input_entry(i))] = true;
    for (size_t i = 0; i < outputs().size(); ++i) io[storage(output_entry(i))] = true;
    for (size_t sid = 0; sid < plan.storage_bytes.size(); ++sid) {
      if (plan.storage_offset[sid] == MemoryPlan::kNotInBlock) continue;
      (io[sid] ? info.io_bytes : info.workspace_bytes) += plan.storage_bytes[sid];
    }
    info_ = std::move(info);
  });
  return info_;
}

}  // namespace aotrt

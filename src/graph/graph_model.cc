#include "graph/graph_model.h"

#include <algorithm>

#include "aot/loaded_model.h"
#include "aot/metadata.h"
#include "base/error_util.h"
#include "module/library_module.h"

namespace aotrt {
namespace {

constexpr size_t kMaxEntryBytes = size_t{1} << 40;

// The library module defining `symbol`: `node` itself or one of its imports, depth first.
LibraryModuleNode* LibraryDefining(ModuleNode* node, const std::string& symbol) {
  if (auto* lib = dynamic_cast<LibraryModuleNode*>(node)) {
    if (lib->library().Lookup(symbol)) return lib;
  }
  for (const auto& m : node->imports()) {
    if (LibraryModuleNode* found = LibraryDefining(m.get(), symbol)) return found;
  }
  return nullptr;
}

size_t EntryBytes(const std::vector<int64_t>& shape, DLDataType t, const std::string& where) {
  size_t n = 1;
  for (int64_t d : shape) {
    AOTRT_REQUIRE(d == 0 || n <= kMaxEntryBytes / static_cast<size_t>(d), kFormatError, where, " has absurd shape ",
                  ShapeToString(shape.data(), static_cast<int>(shape.size())));
    n *= static_cast<size_t>(d);
  }
  size_t bits = size_t{t.bits} * t.lanes;
  return n * ((bits + 7) / 8);
}

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;  // bounded by EntryBytes, which every entry passed first
  return n;
}

}  // namespace

GraphModel::GraphModel(std::string name, GraphDef graph, Module library, std::vector<NamedArray> params,
                       std::string what)
    : name_(std::move(name)), what_(std::move(what)), graph_(std::move(graph)), library_(std::move(library)),
      params_(std::move(params)) {
  for (uint32_t nid : graph_.arg_nodes) {
    input_entries_.push_back(graph_.EntryId(nid, 0));
    inputs_.push_back(EntryInfo(input_entries_.back(), graph_.nodes[nid].name));
    AOTRT_REQUIRE(input_index_.Insert(inputs_.back().name, inputs_.size() - 1) == nullptr, kFormatError, what_,
                  ": two graph inputs are named '", inputs_.back().name, "'");
  }
  for (size_t i = 0; i < graph_.heads.size(); ++i) {
    output_entries_.push_back(graph_.EntryId(graph_.heads[i]));
    outputs_.push_back(EntryInfo(output_entries_.back(), graph_.nodes[graph_.heads[i].node_id].name));
    output_index_.Insert(outputs_.back().name, i);  // the first output of a name answers to it
    output_index_.Insert(StrCat(outputs_.back().name, ":", i), i);
  }
  ResolveOps();
  bound_ = MatchParams(params_);
  PlanMemory();
}

TensorInfo GraphModel::EntryInfo(uint32_t eid, std::string name) const {
  return TensorInfo{std::move(name), graph_.shape[eid], graph_.dtype[eid],
                    EntryBytes(graph_.shape[eid], graph_.dtype[eid], StrCat(what_, ": node entry ", eid))};
}

void GraphModel::ResolveOps() {
  written_.assign(graph_.NumEntries() ? *std::max_element(graph_.storage_id.begin(), graph_.storage_id.end()) + 1 : 0,
                  false);
  alias_root_.resize(graph_.NumEntries());
  for (uint32_t e = 0; e < alias_root_.size(); ++e) alias_root_[e] = e;
  for (uint32_t nid = 0; nid < graph_.nodes.size(); ++nid) {
    const GraphNode& node = graph_.nodes[nid];
    if (!node.is_op) continue;
    GraphOp op;
    op.node_id = nid;
    op.first_arg = static_cast<uint32_t>(args_.size());
    auto add_arg = [&](uint32_t eid) {
      GraphArg a{eid, graph_.storage_id[eid], {}};
      if (node.flatten_data) a.flat_shape = {NumElements(graph_.shape[eid])};
      args_.push_back(std::move(a));
    };
    for (const GraphEntryRef& e : node.inputs) add_arg(graph_.EntryId(e));
    for (uint32_t k = 0; k < node.num_outputs; ++k) add_arg(graph_.EntryId(nid, k));
    op.num_args = static_cast<uint32_t>(args_.size()) - op.first_arg;
    std::string where = StrCat(what_, ": node ", nid, " ('", node.name, "')");
    if (node.func_name == "__nop") {
      op.kind = GraphOp::kNop;
    } else if (node.func_name == "__copy") {
      op.kind = GraphOp::kCopy;
      AOTRT_REQUIRE(op.num_args == 2 && EntryInfo(args_[op.first_arg].entry, "").bytes ==
                                             EntryInfo(args_[op.first_arg + 1].entry, "").bytes,
                    kFormatError, where, ": __copy needs one input and one output of the same size");
    } else if (LibraryModuleNode* lib = LibraryDefining(library_.node().get(), node.func_name)) {
      op.fn = reinterpret_cast<TVMBackendPackedCFunc>(lib->library().Lookup(node.func_name));
    } else {
      op.kind = GraphOp::kPacked;
      op.packed = library_.GetFunction(node.func_name, /*query_imports=*/true);
      AOTRT_REQUIRE(op.packed, kNotFound, where, " calls function '", node.func_name,
                    "', which the library does not define: the graph JSON belongs to another library");
    }
    if (op.kind == GraphOp::kNop && !node.inputs.empty()) {
      uint32_t in = graph_.EntryId(node.inputs[0]);
      for (uint32_t k = 0; k < node.num_outputs; ++k) {
        uint32_t out = graph_.EntryId(nid, k);
        if (graph_.storage_id[out] == graph_.storage_id[in]) alias_root_[out] = alias_root_[in];
      }
    }
    if (op.kind != GraphOp::kNop) {
      for (uint32_t k = 0; k < node.num_outputs; ++k) written_[graph_.storage_id[graph_.EntryId(nid, k)]] = true;
    }
    ops_.push_back(std::move(op));
  }
  alias_entries_.resize(graph_.NumEntries());
  alias_args_.resize(graph_.NumEntries());
  for (uint32_t e = 0; e < alias_root_.size(); ++e) alias_entries_[alias_root_[e]].push_back(e);
  for (uint32_t a = 0; a < args_.size(); ++a) alias_args_[alias_root_[args_[a].entry]].push_back(a);
}

std::vector<GraphModel::BoundParam> GraphModel::MatchParams(const std::vector<NamedArray>& params) const {
  std::vector<BoundParam> bound;
  std::vector<bool> filled(inputs_.size(), false);
  for (const NamedArray& p : params) {
    size_t input = InputIndex(p.name);
    AOTRT_REQUIRE(!filled[input], kInvalidArgument, what_, ": param '", p.name, "' is given twice");
    filled[input] = true;
    CheckTensorAgainstSpec("param for input", input, inputs_[input], p.array.tensor());
    bound.push_back({input, p.array});
  }
  return bound;
}

// Every storage gets the size of its largest entry; the storages that shared params fill stay out
// of the block (executors point at the param), the rest are laid out 64-byte aligned.
void GraphModel::PlanMemory() {
  plan_.storage_bytes.assign(written_.size(), 0);
  for (size_t eid = 0; eid < graph_.NumEntries(); ++eid) {
    size_t& bytes = plan_.storage_bytes[graph_.storage_id[eid]];
    bytes = std::max(bytes, EntryInfo(static_cast<uint32_t>(eid), "").bytes);
  }
  plan_.storage_offset.assign(written_.size(), 0);
  for (const BoundParam& p : bound_) {
    uint32_t sid = graph_.storage_id[input_entries_[p.input]];
    if (read_only(sid)) plan_.storage_offset[sid] = GraphMemoryPlan::kNotInBlock;
  }
  for (size_t sid = 0; sid < written_.size(); ++sid) {
    if (plan_.storage_offset[sid] == GraphMemoryPlan::kNotInBlock) continue;
    plan_.storage_offset[sid] = plan_.block_bytes;
    plan_.block_bytes += (plan_.storage_bytes[sid] + kAllocAlignment - 1) / kAllocAlignment * kAllocAlignment;
  }
}

const size_t* GraphModel::FindInput(const std::string& name) const {
  const size_t* index = input_index_.Find(name);
  return index != nullptr ? index : input_index_.Find(SanitizeName(name));
}

size_t GraphModel::InputIndex(const std::string& name) const {
  AOTRT_REQUIRE(!name.empty(), kInvalidArgument, "Invalid input name. Name is empty");
  if (const size_t* index = FindInput(name)) return *index;
  std::string valid;
  for (const TensorInfo& t : inputs_) valid += (valid.empty() ? "'" : ", '") + t.name + "'";
  AOTRT_THROW(kNotFound, "Invalid input name. '", name, "' is not an input of graph '", name_, "' (", what_,
              "); valid names: ", valid.empty() ? "none" : valid);
}

size_t GraphModel::OutputIndex(const std::string& name) const {
  const size_t* index = output_index_.Find(name);
  if (index != nullptr) return *index;
  std::string names;
  for (size_t i = 0; i < outputs_.size(); ++i) names += StrCat(i ? ", '" : "'", outputs_[i].name, ":", i, "'");
  AOTRT_THROW(kNotFound, "Invalid output name. '", name, "' is not an output of graph '", name_, "' (", what_,
              "); its outputs are ", names);
}

const ModelInfo& GraphModel::info() const {
  std::call_once(info_built_, [this] {
    ModelInfo info;
    info.name = name_;
    info.library = what_;
    info.interface = "graph";
    info.inputs = inputs_;
    info.outputs = outputs_;
    for (const BoundParam& p : bound_) {
      info.params.push_back(inputs_[p.input]);
      info.param_bytes += p.array.NumBytes();
    }
    std::vector<bool> io(written_.size(), false);
    for (uint32_t e : input_entries_) io[graph_.storage_id[e]] = true;
    for (uint32_t e : output_entries_) io[graph_.storage_id[e]] = true;
    for (size_t sid = 0; sid < written_.size(); ++sid) {
      if (plan_.storage_offset[sid] == GraphMemoryPlan::kNotInBlock) continue;
      (io[sid] ? info.io_bytes : info.workspace_bytes) += plan_.storage_bytes[sid];
    }
    info_ = std::move(info);
  });
  return info_;
}

}  // namespace aotrt

#include "graph/graph_json.h"

#include <cstdlib>

#include "base/json_fields.h"
#include "device/texture.h"

namespace aotrt {
namespace {

constexpr uint64_t kMaxIndex = (uint64_t{1} << 31) - 1;

uint32_t Index(const Json& v, const std::string& where, const std::string& what) {
  return static_cast<uint32_t>(JsonCount(v, kMaxIndex, where, what));
}

// [node_id, index] or [node_id, index, version]
GraphEntryRef EntryRef(const Json& v, const std::string& where, const std::string& what) {
  AOTRT_REQUIRE(v.is_array() && (v.size() == 2 || v.size() == 3), kFormatError, what, ": ", where,
                " is not an entry [node_id, index, version]: ", v.dump());
  return GraphEntryRef{Index(v[0], where + "[0]", what), Index(v[1], where + "[1]", what)};
}

// The list `v`, each element read by read(element, "<where>[i]", what).
template <typename T>
std::vector<T> List(const Json& v, const std::string& where, const std::string& what,
                    T (*read)(const Json&, const std::string&, const std::string&)) {
  AOTRT_REQUIRE(v.is_array(), kFormatError, what, ": ", where, " is not a list");
  std::vector<T> out;
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) out.push_back(read(v[i], StrCat(where, "[", i, "]"), what));
  return out;
}

// A node attribute: TVM writes every value as a string ("1"), older exports sometimes as a number.
uint32_t AttrCount(const Json& v, const std::string& where, const std::string& what) {
  if (!v.is_string()) return Index(v, where, what);
  const std::string s = v.get<std::string>();
  char* end = nullptr;
  unsigned long n = std::strtoul(s.c_str(), &end, 10);
  AOTRT_REQUIRE(!s.empty() && *end == '\0' && n <= kMaxIndex, kFormatError, what, ": ", where, " is \"", s,
                "\", not a count");
  return static_cast<uint32_t>(n);
}

GraphNode Node(const Json& j, size_t nid, const std::string& what) {
  std::string at = StrCat("nodes[", nid, "]");
  GraphNode n;
  std::string op = JsonString(JsonField(j, "op", at, what), at + ".op", what);
  n.name = JsonString(JsonField(j, "name", at, what), at + ".name", what);
  at += " ('" + n.name + "')";
  AOTRT_REQUIRE(op == "null" || op == "tvm_op", kFormatError, what, ": ", at, ".op is \"", op,
                "\": a graph node is \"null\" (an input) or \"tvm_op\"");
  n.is_op = op == "tvm_op";
  n.inputs = List(JsonField(j, "inputs", at, what), at + ".inputs", what, EntryRef);
  auto attrs = j.find("attrs");
  if (attrs == j.end()) attrs = j.find("attr");
  if (!n.is_op) return n;
  AOTRT_REQUIRE(attrs != j.end(), kFormatError, what, ": operator ", at, " has no attrs (func_name, num_outputs)");
  std::string where = at + ".attrs";
  n.func_name = JsonString(JsonField(*attrs, "func_name", where, what), where + ".func_name", what);
  AOTRT_REQUIRE(!n.func_name.empty(), kFormatError, what, ": ", where, ".func_name is empty");
  n.num_outputs = AttrCount(JsonField(*attrs, "num_outputs", where, what), where + ".num_outputs", what);
  if (auto num_inputs = attrs->find("num_inputs"); num_inputs != attrs->end()) {
    uint32_t declared = AttrCount(*num_inputs, where + ".num_inputs", what);
    AOTRT_REQUIRE(declared == n.inputs.size(), kFormatError, what, ": ", where, ".num_inputs is ", declared, " but ",
                  at, " lists ", n.inputs.size(), " inputs");
  }
  auto flatten = attrs->find("flatten_data");
  n.flatten_data = flatten != attrs->end() && AttrCount(*flatten, where + ".flatten_data", what) != 0;
  return n;
}

void ReadEntryAttrs(const Json& attrs, GraphDef* g, const std::string& what) {
  size_t n = g->node_row_ptr.back();
  // attrs.<key> = ["<type>", [n values]]; null when absent and not `required`.
  auto sized = [&](const char* key, const char* type, bool required) -> const Json* {
    auto it = attrs.find(key);
    if (it == attrs.end()) {
      AOTRT_REQUIRE(!required, kFormatError, what, ": attrs has no \"", key, "\"");
      return nullptr;
    }
    AOTRT_REQUIRE(it->is_array() && it->size() == 2 && (*it)[0] == type, kFormatError, what, ": attrs.", key,
                  " is not [\"", type, "\", [...]]");
    const Json& v = (*it)[1];
    AOTRT_REQUIRE(v.is_array(), kFormatError, what, ": attrs.", key, "[1] is not a list");
    AOTRT_REQUIRE(v.size() == n, kFormatError, what, ": attrs.", key, " has ", v.size(), " values for ", n,
                  " node entries");
    return &v;
  };
  g->storage_id = List(*sized("storage_id", "list_int", true), "attrs.storage_id", what, Index);
  const Json& dltype = *sized("dltype", "list_str", true);
  const Json& shape = *sized("shape", "list_shape", true);
  for (size_t i = 0; i < n; ++i) {
    // A plan has at most one storage per entry; a larger id is corrupt, not a reason to allocate.
    AOTRT_REQUIRE(g->storage_id[i] < n, kFormatError, what, ": attrs.storage_id[", i, "] = ", g->storage_id[i],
                  " is out of range: the graph has ", n, " node entries, so storage ids run from 0 to ", n - 1);
    g->dtype.push_back(JsonDataType(dltype[i], StrCat("attrs.dltype[", i, "]"), what));
    AOTRT_REQUIRE(shape[i].is_array(), kFormatError, what, ": attrs.shape[", i, "] is not a list");
    std::vector<int64_t> dims;
    for (const Json& d : shape[i]) dims.push_back(static_cast<int64_t>(JsonCount(d, kMaxIndex, StrCat("attrs.shape[", i, "]"), what)));
    g->shape.push_back(std::move(dims));
  }
  if (const Json* devices = sized("device_index", "list_int", false)) {
    for (size_t i = 0; i < n; ++i) {
      int type = static_cast<int>(JsonCount((*devices)[i], 64, StrCat("attrs.device_index[", i, "]"), what));
      g->entry_device.push_back(type);
      if (type == kDLCPU || type == g->device_type) continue;
      AOTRT_REQUIRE(g->device_type == kDLCPU, kNotImplemented, what, ": node entry ", i, " is placed on device type ",
                    type, " and others on device type ", g->device_type,
                    ": aotrt runs a graph on the CPU and one device type, not two");
      g->device_type = type;
    }
  }
  if (const Json* scopes = sized("storage_scope", "list_str", false)) {
    for (size_t i = 0; i < n; ++i) {
      std::string s = JsonString((*scopes)[i], StrCat("attrs.storage_scope[", i, "]"), what);
      AOTRT_REQUIRE(s.empty() || s == "global" || IsTextureScope(s), kNotImplemented, what, ": node entry ", i,
                    " has storage scope \"", s, "\": aotrt holds global memory (buffers) and TVM's texture scopes");
      if (IsTextureScope(s)) {
        AsFormatError([&] {
          FlattenToTexture(g->shape[i].data(), static_cast<int>(g->shape[i].size()), s, StrCat(what, ": node entry ", i));
        });
        g->storage_scope.resize(n);
        g->storage_scope[i] = s;
      }
    }
  }
}

// Every reference points at an existing node output; node_row_ptr agrees with the nodes.
void CheckReferences(const GraphDef& g, const std::string& what) {
  const auto& rows = g.node_row_ptr;
  AOTRT_REQUIRE(rows.size() == g.nodes.size() + 1 && rows[0] == 0, kFormatError, what, ": node_row_ptr has ",
                rows.size(), " values for ", g.nodes.size(), " nodes (expected ", g.nodes.size() + 1, ", from 0)");
  for (size_t nid = 0; nid < g.nodes.size(); ++nid) {
    uint32_t outputs = g.nodes[nid].is_op ? g.nodes[nid].num_outputs : 1;
    AOTRT_REQUIRE(rows[nid + 1] >= rows[nid] && rows[nid + 1] - rows[nid] == outputs, kFormatError, what,
                  ": node_row_ptr gives node ", nid, " ('", g.nodes[nid].name, "') ", int64_t{rows[nid + 1]} - rows[nid],
                  " outputs; the node has ", outputs);
  }
  // `where` is built only for a message: a graph of 10^6 nodes checks its references in linear time.
  auto check = [&](const GraphEntryRef& e, const auto& where) {
    AOTRT_REQUIRE(e.node_id < g.nodes.size(), kFormatError, what, ": ", where(), " names node ", e.node_id,
                  ", out of range [0, ", g.nodes.size(), ")");
    uint32_t outputs = rows[e.node_id + 1] - rows[e.node_id];
    AOTRT_REQUIRE(e.index < outputs, kFormatError, what, ": ", where(), " names output ", e.index, " of node ",
                  e.node_id, " ('", g.nodes[e.node_id].name, "'), which has ", outputs);
  };
  for (size_t nid = 0; nid < g.nodes.size(); ++nid) {
    for (const GraphEntryRef& e : g.nodes[nid].inputs) {
      auto where = [&] { return StrCat("an input of node ", nid, " ('", g.nodes[nid].name, "')"); };
      check(e, where);
      // TVM lists nodes in execution order: a node reads earlier nodes only (no self-loop, no cycle).
      AOTRT_REQUIRE(e.node_id < nid, kFormatError, what, ": ", where(), " names node ", e.node_id, " ('",
                    g.nodes[e.node_id].name, "'), ", e.node_id == nid ? "itself" : "a later node",
                    ": nodes run in the order listed, each reading outputs of earlier nodes only");
    }
  }
  for (size_t i = 0; i < g.heads.size(); ++i) check(g.heads[i], [&] { return StrCat("heads[", i, "]"); });
  for (uint32_t nid : g.arg_nodes) {
    AOTRT_REQUIRE(nid < g.nodes.size() && !g.nodes[nid].is_op, kFormatError, what, ": arg_nodes names node ", nid,
                  nid < g.nodes.size() ? StrCat(" ('", g.nodes[nid].name, "'), an operator,") : std::string(),
                  " which is not an input node");
  }
  AOTRT_REQUIRE(!g.heads.empty(), kFormatError, what, ": heads is empty: the graph has no output");
}

// No operator writes the storage of a graph input: a param there would be overwritten by the first
// run, and the next would compute on what the node wrote (TVM's planner gives inputs storage of their own).
void CheckInputStorages(const GraphDef& g, const std::string& what) {
  std::vector<uint32_t> input_of(g.NumEntries(), UINT32_MAX);  // by storage id: the input node there
  for (uint32_t nid : g.arg_nodes) input_of[g.storage_id[g.EntryId(nid, 0)]] = nid;
  for (size_t nid = 0; nid < g.nodes.size(); ++nid) {
    const GraphNode& n = g.nodes[nid];
    if (!n.is_op || n.func_name == "__nop") continue;  // __nop writes nothing
    for (uint32_t k = 0; k < n.num_outputs; ++k) {
      uint32_t eid = g.EntryId(nid, k), input = input_of[g.storage_id[eid]];
      AOTRT_REQUIRE(input == UINT32_MAX, kFormatError, what, ": node ", nid, " ('", n.name, "') writes its output ",
                    k, " to storage ", g.storage_id[eid], ", which holds input node ", input, " ('", g.nodes[input].name,
                    "'): an input's or param's storage is never reused, or the next run would read what the node wrote");
    }
  }
}

}  // namespace

GraphDef ParseGraphJson(std::string_view json, const std::string& what) {
  Json j = ParseJsonText(json, what);
  AOTRT_REQUIRE(j.is_object(), kFormatError, what, ": the top level is not an object");
  GraphDef g;
  const Json& nodes = JsonField(j, "nodes", "the top level", what);
  AOTRT_REQUIRE(nodes.is_array() && !nodes.empty(), kFormatError, what, ": nodes is not a non-empty list");
  for (size_t i = 0; i < nodes.size(); ++i) g.nodes.push_back(Node(nodes[i], i, what));
  g.arg_nodes = List(JsonField(j, "arg_nodes", "the top level", what), "arg_nodes", what, Index);
  g.node_row_ptr = List(JsonField(j, "node_row_ptr", "the top level", what), "node_row_ptr", what, Index);
  g.heads = List(JsonField(j, "heads", "the top level", what), "heads", what, EntryRef);
  CheckReferences(g, what);
  ReadEntryAttrs(JsonField(j, "attrs", "the top level", what), &g, what);
  CheckInputStorages(g, what);
  return g;
}

}  // namespace aotrt

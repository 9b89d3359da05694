// The graph JSON of a TVM GraphExecutor export (`lib.get_graph_json()`, the `graph_json` of a
// GraphExecutorFactory), read and validated into plain values. Format: TVM v0.14
// src/runtime/graph_executor/graph_executor.h (nodes, arg_nodes, node_row_ptr, heads, attrs).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <dlpack/dlpack.h>

namespace aotrt {

struct GraphEntryRef {
  uint32_t node_id = 0;
  uint32_t index = 0;  // which output of the node
};

struct GraphNode {
  bool is_op = false;     // "tvm_op"; false: "null" (a graph input or param)
  std::string name;
  std::string func_name;  // the operator's function in the library, or "__nop" / "__copy"
  uint32_t num_outputs = 1;
  bool flatten_data = false;  // arguments passed as flat 1-d tensors
  std::vector<GraphEntryRef> inputs;
};

struct GraphDef {
  std::vector<GraphNode> nodes;
  std::vector<uint32_t> arg_nodes;     // the graph inputs, params included, in input order
  std::vector<uint32_t> node_row_ptr;  // entry id of node n's first output; nodes.size() + 1 values
  std::vector<GraphEntryRef> heads;    // the outputs
  // Per entry (node output), indexed by entry id:
  std::vector<uint32_t> storage_id;
  std::vector<DLDataType> dtype;
  std::vector<std::vector<int64_t>> shape;
  // The device type of each entry (attrs.device_index; empty: all on the CPU), and the one type
  // besides the CPU among them (kDLCPU when none). A graph with both is heterogeneous: __copy
  // nodes move tensors between the host and the device.
  std::vector<int> entry_device;
  int device_type = kDLCPU;
  // The memory scope of each entry (attrs.storage_scope): "" for buffers, else a texture scope
  // (device/texture.h); empty when no entry is in texture storage.
  std::vector<std::string> storage_scope;

  size_t NumEntries() const { return storage_id.size(); }
  uint32_t EntryId(uint32_t node_id, uint32_t index) const { return node_row_ptr[node_id] + index; }
  uint32_t EntryId(const GraphEntryRef& e) const { return EntryId(e.node_id, e.index); }
};

// Parse and validate `json`; `what` names it in messages (e.g. "graph JSON of model.so"). Throws
// kFormatError naming the field and node for anything malformed or inconsistent (invalid JSON, a
// missing or mistyped field, an index out of range, a list of the wrong length, an unknown dtype);
// kNotImplemented for entries on two device types besides the CPU or a storage scope other than
// global and the texture scopes (kFormatError for an entry in texture storage an image cannot hold).
GraphDef ParseGraphJson(std::string_view json, const std::string& what);

}  // namespace aotrt

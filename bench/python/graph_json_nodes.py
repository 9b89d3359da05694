"""Writes a graph JSON of N nodes (an input, then a chain of __copy nodes: no library function
needed) to time graph loading against the node count (bench/README.md, issue 45).

    python3 bench/python/graph_json_nodes.py 100000 /tmp/g1e5.json
    aotrt inspect SOME_GRAPH_LIBRARY.so --graph /tmp/g1e5.json
"""
import json
import sys

n, path = int(sys.argv[1]), sys.argv[2]
nodes = [{"op": "null", "name": "data", "inputs": []}]
nodes += [{"op": "tvm_op", "name": f"copy_{i}", "inputs": [[i - 1, 0, 0]],
           "attrs": {"func_name": "__copy", "num_inputs": "1", "num_outputs": "1", "flatten_data": "0"}}
          for i in range(1, n)]
graph = {"nodes": nodes, "arg_nodes": [0], "heads": [[n - 1, 0, 0]], "node_row_ptr": list(range(n + 1)),
         "attrs": {"dltype": ["list_str", ["float32"] * n], "shape": ["list_shape", [[1, 4]] * n],
                   "storage_id": ["list_int", [0] + [1 + i % 2 for i in range(n - 1)]]}}
with open(path, "w") as f:
    json.dump(graph, f)

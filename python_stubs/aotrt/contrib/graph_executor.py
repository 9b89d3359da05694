"""GraphModule: TVM's tvm.contrib.graph_executor over libaotrt.

``GraphModule(lib["default"](aotrt.cpu(0)))`` for a factory library, ``create(graph_json, lib, dev)``
for the classic triple (then ``load_params``), or ``load_module`` on a tvmc package / folder of
mod.so, mod.json and mod.params. Everything AotModule offers (numpy in and out, zero-copy, benchmark,
profile, the one conversion rule) works the same on a graph; this adds the graph executor's own calls.
"""
from ..runtime.executor.aot_executor import AotModule
from ..packed_func import get_global_func

__all__ = ["GraphModule", "create", "get_device"]


def get_device(libmod, device):
    """(devices, 0, [device_type, device_id, ...]) as TVM's helper returns them; several devices for a
    heterogeneous graph (its CPU entries stay on the host)."""
    devices = device if isinstance(device, (list, tuple)) else [device]
    flat = []
    for d in devices:
        flat += [int(d.device_type), int(d.device_id)]
    return list(devices), 0, flat


def create(graph_json_str, libmod, device):
    """A GraphModule of ``graph_json_str`` over the library ``libmod`` on ``device`` (TVM's create)."""
    if not isinstance(graph_json_str, str):
        raise TypeError("graph_json_str must be the graph JSON text, got %s" % type(graph_json_str).__name__)
    _, _, flat = get_device(libmod, device)
    return GraphModule(get_global_func("tvm.graph_executor.create")(graph_json_str, libmod, *flat))


class GraphModule(AotModule):
    """Wraps a GraphExecutor module (``lib["default"](dev)`` or ``tvm.graph_executor.create``)."""

    def __init__(self, module):
        if "load_params" not in module and "get_input_index" in module:   # (AotModule says what else it needs)
            raise ValueError("GraphModule needs a graph executor; %r is an AOT executor (its library is an AOT "
                             "export): wrap it with aotrt.runtime.executor.AotModule (tvm.runtime.executor.AotModule)"
                             % (module,))
        super().__init__(module)
        self._load_params = module["load_params"]
        self._share_params = module["share_params"]

    def load_params(self, params_bytes):
        """Bind the params of a params file (``relay.save_param_dict`` bytes) to the inputs of their names."""
        self._load_params(bytearray(params_bytes))

    def share_params(self, other, params_bytes):
        """Use ``other``'s arrays (an executor of the same graph) for the params named in ``params_bytes``."""
        self._share_params(other.module, bytearray(params_bytes))

    def get_input_info(self):
        """({name: shape tuple}, {name: dtype string}) of the inputs, as TVM's: without the params that
        ``load_params`` named."""
        info = self.module["get_input_info"]()
        return {n: tuple(s) for n, s in info["shape"].items()}, dict(info["dtype"])

    def debug_get_output(self, node, out):
        raise RuntimeError("Please compile runtime with USE_PROFILER = ON")   # as TVM's GraphModule

    def __getitem__(self, key):
        return self.module[key]

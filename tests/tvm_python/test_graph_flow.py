"""TVM v0.14's own tvm.contrib.graph_executor (and its debug executor) over libaotrt, on the real graph
exports of ../shared/fixtures/graph: the factory flow, the classic create + load_params flow, bit-exact."""
import glob
import json
import os

import numpy as np
import pytest

import tvm
from tvm.contrib import graph_executor

GRAPH_FIXTURES = os.environ.get("AOTRT_GRAPH_FIXTURES_DIR", "")


def graph_cases():
    if not GRAPH_FIXTURES:
        return []
    return sorted(os.path.dirname(p) for p in glob.glob(os.path.join(GRAPH_FIXTURES, "*", "case.json")))


def load_case(d):
    meta = json.load(open(os.path.join(d, "case.json")))
    with np.load(os.path.join(d, "inputs.npz")) as z:
        inputs = {k: z[k] for k in z.files}
    with np.load(os.path.join(d, "expected.npz")) as z:
        expected = [z["arr_%d" % i] for i in range(len(z.files))]
    return meta, inputs, expected


def graph_module(d, meta):
    if meta["artifact"] == "factory":
        lib = tvm.runtime.load_module(os.path.join(d, "model.so"))
        assert lib.type_key == "GraphExecutorFactory"
        return graph_executor.GraphModule(lib[meta["mod_name"]](tvm.cpu(0))), lib
    lib = tvm.runtime.load_module(os.path.join(d, "mod.so"))
    m = graph_executor.create(open(os.path.join(d, "mod.json")).read(), lib, tvm.cpu(0))
    m.load_params(open(os.path.join(d, "mod.params"), "rb").read())
    return m, lib


@pytest.mark.parametrize("d", graph_cases(), ids=os.path.basename)
def test_graph_module_runs_bit_exact(d):
    meta, inputs, expected = load_case(d)
    m, _ = graph_module(d, meta)
    assert m.get_num_outputs() == len(expected)
    assert m.get_num_inputs() == len(inputs) + len(meta["params"])  # params count, as in TVM
    # A name the graph does not take is skipped by TVM's set_input(**params) (get_input gives None).
    m.set_input(**{k: tvm.nd.array(v) for k, v in inputs.items()}, not_an_input=tvm.nd.array(np.zeros(3, "f")))
    assert m.get_input_index("not_an_input") == -1
    m.run()
    for i, want in enumerate(expected):
        got = m.get_output(i).numpy()
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
        out = tvm.nd.empty(want.shape, str(want.dtype))
        m.get_output(i, out)
        assert out.numpy().tobytes() == want.tobytes()
    shapes, dtypes = m.get_input_info()
    for k, v in inputs.items():
        assert tuple(shapes[k]) == v.shape and dtypes[k] == str(v.dtype)
        assert m.get_input(m.get_input_index(k)).numpy().tobytes() == v.tobytes()
    for p in meta["params"]:  # as TVM's: what load_params named is left out, a factory's params stay
        assert (p in shapes) == (meta["artifact"] == "factory"), p


@pytest.mark.parametrize("d", graph_cases(), ids=os.path.basename)
def test_debug_executor_runs_and_times_every_node(d, tmp_path):
    meta, inputs, expected = load_case(d)
    if meta["artifact"] != "factory":
        pytest.skip("the debug executor of a factory")
    from tvm.contrib.debugger import debug_executor
    lib = tvm.runtime.load_module(os.path.join(d, "model.so"))
    m = debug_executor.GraphModuleDebug(lib["debug_create"]("default", tvm.cpu(0)), [tvm.cpu(0)],
                                        lib["get_graph_json"](), dump_root=str(tmp_path))
    m.set_input(**{k: tvm.nd.array(v) for k, v in inputs.items()})
    m.run()   # the debug run: every node's output dumped, each node timed
    assert m.get_output(0).numpy().tobytes() == expected[0].tobytes()
    times = m.run_individual(number=1, repeat=1, min_repeat_ms=0)
    assert len(times) == meta["nodes"]
    assert all(len(r) == 1 and r[0] >= 0 for r in times)
    # profile() is TVM's Report object, as TVM's debug executor returns it (issue 45 item 7).
    report = m.profile()
    assert isinstance(report, tvm.runtime.profiling.Report), type(report)
    assert "every node timed" in report.table() and report.csv().startswith("Name,Duration (us),")
    assert json.loads(report.json())["calls"]


def test_classic_triple_the_old_ways():
    """Programs of the relay.build era: params given with set_input(**load_param_dict(...)), and the
    debug executor created over mod.so + mod.json (debug_executor.create)."""
    d = os.path.join(GRAPH_FIXTURES, "g_classic_llvm")
    if not os.path.isdir(d):
        pytest.skip("no classic graph export")
    meta, inputs, expected = load_case(d)
    lib = tvm.runtime.load_module(os.path.join(d, "mod.so"))
    graph = open(os.path.join(d, "mod.json")).read()
    params = tvm.runtime.load_param_dict(bytearray(open(os.path.join(d, "mod.params"), "rb").read()))
    assert sorted(params.keys()) == sorted(meta["params"])
    m = graph_executor.create(graph, lib, tvm.cpu(0))
    m.set_input(**params)
    m.set_input("data", tvm.nd.array(inputs["data"]))
    m.run()
    assert m.get_output(0).numpy().tobytes() == expected[0].tobytes()
    from tvm.contrib.debugger import debug_executor
    dbg = debug_executor.create(graph, lib, tvm.cpu(0), dump_root=None)
    dbg.set_input(**params)
    dbg.set_input("data", tvm.nd.array(inputs["data"]))
    dbg.run()
    assert dbg.get_output(0).numpy().tobytes() == expected[0].tobytes()

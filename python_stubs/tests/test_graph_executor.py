"""Real TVM graph exports (../shared/fixtures/graph) through aotrt's own Python package."""
import json
import os

import numpy as np
import pytest

import aotrt
from aotrt.contrib import graph_executor

FIXTURES = os.environ.get("AOTRT_GRAPH_FIXTURES_DIR") or os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "shared", "fixtures", "graph")


def cases():
    if not os.path.isdir(FIXTURES):
        return []
    return sorted(c for c in os.listdir(FIXTURES) if os.path.isfile(os.path.join(FIXTURES, c, "case.json")))


def load(case):
    d = os.path.join(FIXTURES, case)
    meta = json.load(open(os.path.join(d, "case.json")))
    inputs = dict(np.load(os.path.join(d, "inputs.npz")))
    exp = np.load(os.path.join(d, "expected.npz"))
    return d, meta, inputs, [exp["arr_%d" % i] for i in range(len(exp.files))]


def module_of(d, meta):
    if meta["artifact"] == "factory":
        return graph_executor.GraphModule(aotrt.load_module(os.path.join(d, "model.so"))[meta["mod_name"]](aotrt.cpu(0)))
    lib = aotrt.load_module(os.path.join(d, "mod.so"))
    m = graph_executor.create(open(os.path.join(d, "mod.json")).read(), lib, aotrt.cpu(0))
    m.load_params(open(os.path.join(d, "mod.params"), "rb").read())
    return m


@pytest.mark.parametrize("graph_case", cases() or [pytest.param("none", marks=pytest.mark.skip("no graph fixtures"))])
def test_graph_fixture_bit_exact(graph_case):
    d, meta, inputs, expected = load(graph_case)
    m = module_of(d, meta)
    assert m.get_num_outputs() == len(expected)
    m.run(**inputs)
    for i, e in enumerate(expected):
        got = m.get_output(i).numpy()
        assert got.dtype == e.dtype and np.array_equal(got, e), (graph_case, i)


def test_graph_package_folder_loads_as_one_model():
    d = os.path.join(FIXTURES, "g_classic_llvm")
    if not os.path.isdir(d):
        pytest.skip("no graph fixtures")
    _, _, inputs, expected = load("g_classic_llvm")
    lib = aotrt.load_module(d)   # mod.so + mod.json + mod.params
    assert lib.type_key == "GraphExecutorFactory"
    m = graph_executor.GraphModule(lib["default"](aotrt.cpu(0)))
    m.set_input(**inputs)
    m.run()
    assert np.array_equal(m.get_output(0).numpy(), expected[0])
    shapes, dtypes = m.get_input_info()
    assert shapes["data"] == (1, 16, 56, 56) and dtypes["p0"] == "float32"


def test_load_params_of_another_model_is_an_error_naming_the_param():
    d = os.path.join(FIXTURES, "g_classic_llvm")
    if not os.path.isdir(d):
        pytest.skip("no graph fixtures")
    lib = aotrt.load_module(os.path.join(d, "mod.so"))
    m = graph_executor.create(open(os.path.join(d, "mod.json")).read(), lib, aotrt.cpu(0))
    save = aotrt.get_global_func("runtime.SaveParams")
    other = save({"conv_w": aotrt.nd.array(np.zeros(3, np.float32))})
    with pytest.raises(aotrt.TVMError, match="conv_w"):
        m.load_params(other)
    shapes, _ = m.get_input_info()
    assert "p0" in shapes  # a failed load_params names nothing
    m.load_params(open(os.path.join(d, "mod.params"), "rb").read())
    shapes, _ = m.get_input_info()
    assert list(shapes.keys()) == ["data"]  # as TVM's: what load_params named is left out


# Outputs 1 and 3 share the name 'reshape_nop', as relay.build names a tuple's outputs, with other dtypes and
# shapes: a graph of __nop nodes only (run over any graph library), outputs a, reshape(a), b, reshape(b).
def _nop(entry):
    return {"op": "tvm_op", "name": "reshape_nop", "inputs": [[entry, 0, 0]],
            "attrs": {"num_outputs": "1", "num_inputs": "1", "flatten_data": "0", "func_name": "__nop"}}


DUP_NAMES_JSON = json.dumps({
    "nodes": [{"op": "null", "name": "a", "inputs": []}, {"op": "null", "name": "b", "inputs": []}, _nop(0), _nop(1)],
    "arg_nodes": [0, 1], "node_row_ptr": [0, 1, 2, 3, 4], "heads": [[0, 0, 0], [2, 0, 0], [1, 0, 0], [3, 0, 0]],
    "attrs": {"dltype": ["list_str", ["float32", "int8", "float32", "int8"]],
              "shape": ["list_shape", [[2, 2], [32], [4], [2, 16]]],
              "storage_id": ["list_int", [0, 1, 0, 1]], "device_index": ["list_int", [1, 1, 1, 1]]}})


def dup_names_module():
    d = os.path.join(FIXTURES, "g_classic_llvm")
    if not os.path.isdir(d):
        pytest.skip("no graph fixtures")
    return graph_executor.create(DUP_NAMES_JSON, aotrt.load_module(os.path.join(d, "mod.so")), aotrt.cpu(0))


def test_outputs_sharing_a_name_are_read_by_position():
    from aotrt.runtime.executor import AotModule
    m = dup_names_module()
    a, b = np.arange(4, dtype=np.float32).reshape(2, 2), np.arange(-16, 16, dtype=np.int8)
    want = [a, a.reshape(4), b, b.reshape(2, 16)]
    for mod in (m, AotModule(m.module)):
        mod.set_input("a", a)
        mod.set_input("b", b)
        mod.run()
        for i, w in enumerate(want):
            got = mod.get_output(i)
            assert (got.dtype, got.shape) == (str(w.dtype), w.shape), i
            assert got.numpy().tobytes() == w.tobytes(), i
            assert mod.get_output_name(i) == ["a", "reshape_nop", "b", "reshape_nop"][i]
        for got, w in zip(mod.predict(a, b), want):
            assert got.dtype == w.dtype and got.shape == w.shape and got.tobytes() == w.tobytes()
        assert mod.get_output_index("reshape_nop") == 1 and mod.get_output_index("reshape_nop:3") == 3


def test_wrong_input_name_gives_the_valid_names_data_inputs_first():
    d = os.path.join(FIXTURES, "g_classic_llvm")
    if not os.path.isdir(d):
        pytest.skip("no graph fixtures")
    lib = aotrt.load_module(os.path.join(d, "mod.so"))
    m = graph_executor.create(open(os.path.join(d, "mod.json")).read(), lib, aotrt.cpu(0))
    x = np.zeros((1, 16, 56, 56), np.float32)
    for call in (lambda: m.set_input("datax", x), lambda: m.run(datax=x), lambda: m.predict(datax=x),
                 lambda: m.input_view("datax")):
        with pytest.raises(aotrt.error.NotFoundError, match="Invalid input name. 'datax' is not an input of graph "
                           "'default' .*; valid names: 'data', 'p0'"):
            call()
    assert m.get_input_index("datax") == -1   # as TVM's GraphModule
    m.load_params(open(os.path.join(d, "mod.params"), "rb").read())
    with pytest.raises(aotrt.error.NotFoundError, match="valid names: 'data'; params: 'p0'"):
        m.set_input("datax", x)   # once load_params named p0, it is listed apart from the data inputs


def test_graph_module_over_an_aot_executor_says_to_use_aot_module(models):
    from conftest import model_path
    aot = aotrt.load_module(model_path(models, "add_c"))["default"](aotrt.cpu(0))
    with pytest.raises(ValueError, match="GraphModule needs a graph executor; .* is an AOT executor .*: wrap it with "
                       r"aotrt.runtime.executor.AotModule \(tvm.runtime.executor.AotModule\)"):
        graph_executor.GraphModule(aot)


def test_run_with_params_never_set_warns_once_and_runs(capfd):
    """As TVM's, a graph whose params were never set runs (on zeros); aotrt says which and how to supply them."""
    d = os.path.join(FIXTURES, "g_classic_llvm")
    if not os.path.isdir(d):
        pytest.skip("no graph fixtures")
    lib = aotrt.load_module(os.path.join(d, "mod.so"))
    m = graph_executor.create(open(os.path.join(d, "mod.json")).read(), lib, aotrt.cpu(0))
    m.set_input("data", np.ones((1, 16, 56, 56), np.float32))
    m.run()
    m.run()
    err = capfd.readouterr().err
    assert err.count("never set") == 1, err
    assert "graph 'default' (" in err and ("g_classic_llvm/mod.so) runs with input 'p0' never set, read as zeros: set "
                                           "them (set_input), or give the graph's params (load_params with the params "
                                           "file's bytes") in err
    ok = graph_executor.create(open(os.path.join(d, "mod.json")).read(), lib, aotrt.cpu(0))
    ok.load_params(open(os.path.join(d, "mod.params"), "rb").read())
    ok.set_input("data", np.ones((1, 16, 56, 56), np.float32))
    ok.run()
    assert "never set" not in capfd.readouterr().err


def test_debug_executor_profile_is_a_report():
    """The debug executor's profile() is TVM's runtime.profiling.Report: table(), csv(), json()."""
    d = os.path.join(FIXTURES, "g_conv_llvm")
    if not os.path.isdir(d):
        pytest.skip("no graph fixtures")
    _, meta, inputs, _ = load("g_conv_llvm")
    lib = aotrt.load_module(os.path.join(d, "model.so"))
    m = lib["debug_create"](meta["mod_name"], aotrt.cpu(0))
    for k, v in inputs.items():
        m["set_input"](k, aotrt.nd.array(v))
    report = m["profile"]()
    assert type(report).__name__ == "Report"
    table = report.table()
    assert "every node timed on every run (measured, not sampled)" in table
    assert all(len(line) <= 100 for line in table.splitlines()), table
    assert report.csv().startswith("Name,Duration (us),Percent,Count,Argument Shapes\n")
    calls = json.loads(report.json())["calls"]
    assert len(calls) == 4
    assert [c["Percent"]["percent"] for c in calls] == sorted((c["Percent"]["percent"] for c in calls), reverse=True)

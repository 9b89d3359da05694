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

"""aotrt's own graph_executor on the real OpenCL exports (../shared/fixtures/gpu, o_classic): on
the device, and as a heterogeneous graph whose data, param and result stay on the host."""
import json
import os

import numpy as np
import pytest

GPU = os.environ.get("AOTRT_GPU_FIXTURES_DIR") or os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                                                "shared", "fixtures", "gpu")
CASE = os.path.join(GPU, "o_classic")


def on_host_and_device(g):
    """data and p0 on the host, __copy to the device, conv2d and pool there, __copy of the result back."""
    n, a = g["nodes"], g["attrs"]
    copy = lambda name, src: {"op": "tvm_op", "name": name, "inputs": [[src, 0, 0]],
                              "attrs": {"func_name": "__copy", "num_inputs": "1", "num_outputs": "1"}}
    pick = lambda values: [values[i] for i in (0, 1, 0, 1, 2, 3, 3)]
    return {"nodes": n[:2] + [copy("to_dev_data", 0), copy("to_dev_p0", 1), dict(n[2], inputs=[[2, 0, 0], [3, 0, 0]]),
                              dict(n[3], inputs=[[4, 0, 0]]), copy("to_host", 5)],
            "arg_nodes": [0, 1], "heads": [[6, 0, 0]], "node_row_ptr": list(range(8)),
            "attrs": {"dltype": ["list_str", pick(a["dltype"][1])], "shape": ["list_shape", pick(a["shape"][1])],
                      "storage_id": ["list_int", list(range(7))], "device_index": ["list_int", [1, 1, 4, 4, 4, 4, 1]]}}


@pytest.mark.parametrize("hetero", [False, True], ids=["on_the_device", "heterogeneous"])
def test_classic_opencl_export(tvm, hetero):
    from aotrt.contrib import graph_executor
    if not os.path.isdir(CASE):
        pytest.skip("no GPU fixtures: set AOTRT_GPU_FIXTURES_DIR (default ../shared/fixtures/gpu)")
    dev = tvm.opencl(0)
    if not dev.exist:
        pytest.skip("no OpenCL device on this machine")
    graph = json.load(open(os.path.join(CASE, "mod.json")))
    lib = tvm.runtime.load_module(os.path.join(CASE, "mod.so"))
    m = graph_executor.create(json.dumps(on_host_and_device(graph) if hetero else graph), lib,
                              [tvm.cpu(0), dev] if hetero else dev)
    m.load_params(open(os.path.join(CASE, "mod.params"), "rb").read())
    with np.load(os.path.join(CASE, "inputs.npz")) as z:
        m.set_input("data", z["data"])
    m.run()
    with np.load(os.path.join(CASE, "expected.npz")) as z:
        want = z["arr_0"]
    out = m.get_output(0)
    assert out.device.device_type == (1 if hetero else 4)
    assert out.numpy().tobytes() == want.tobytes()

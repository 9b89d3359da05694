"""TVM v0.14's own tvm.contrib.graph_executor over libaotrt on the real GPU exports of
../shared/fixtures/gpu: OpenCL (o_*) on tvm.opencl(0) (pocl here) and Vulkan (k_*) on tvm.vulkan(0)
(lavapipe here): the factory and classic flows, device arrays in and out, bit-exact with TVM's own
runtime on the same device."""
import glob
import json
import os

import numpy as np
import pytest

import tvm
from tvm.contrib import graph_executor

GPU_FIXTURES = os.environ.get("AOTRT_GPU_FIXTURES_DIR", "")


def gpu_cases(prefix):
    if not GPU_FIXTURES:
        return []
    return sorted(os.path.dirname(p) for p in glob.glob(os.path.join(GPU_FIXTURES, prefix + "*", "case.json"))
                  if "mobilenet" not in p)  # MobileNet: the C++ suite and the CLI


def opencl_cases():
    return gpu_cases("o_")


@pytest.fixture(scope="module")
def dev():
    d = tvm.opencl(0)
    if not d.exist:
        pytest.skip("no OpenCL device on this machine")
    return d


@pytest.fixture(scope="module")
def vk():
    d = tvm.vulkan(0)
    if not d.exist:
        pytest.skip("no Vulkan device on this machine")
    return d


@pytest.mark.parametrize("d", opencl_cases(), ids=os.path.basename)
def test_opencl_export_runs_bit_exact(d, dev):
    run_bit_exact(d, dev)


@pytest.mark.parametrize("d", gpu_cases("k_"), ids=os.path.basename)
def test_vulkan_export_runs_bit_exact(d, vk):
    run_bit_exact(d, vk)


def run_bit_exact(d, dev):
    meta = json.load(open(os.path.join(d, "case.json")))
    if meta["artifact"] == "factory":
        lib = tvm.runtime.load_module(os.path.join(d, "model.so"))
        m = graph_executor.GraphModule(lib["default"](dev))
    else:
        lib = tvm.runtime.load_module(os.path.join(d, "mod.so"))
        m = graph_executor.create(open(os.path.join(d, "mod.json")).read(), lib, dev)
        m.load_params(open(os.path.join(d, "mod.params"), "rb").read())
    with np.load(os.path.join(d, "inputs.npz")) as z:
        m.set_input(**{k: tvm.nd.array(z[k], dev) for k in z.files})  # device arrays in
    m.run()
    with np.load(os.path.join(d, "expected.npz")) as z:
        for i in range(len(z.files)):
            want = z["arr_%d" % i]
            out = m.get_output(i)
            assert out.device == dev
            got = out.numpy()
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_opencl_device_answers_tvms_attributes(dev):
    assert dev.max_threads_per_block > 0
    assert isinstance(dev.device_name, str) and dev.device_name
    assert tvm.opencl(99).exist is False
    a = tvm.nd.array(np.arange(6, dtype="float32"), dev)
    assert a.device == dev
    assert a.numpy().tolist() == list(range(6))
    b = a.copyto(tvm.cpu(0))
    assert b.numpy().tolist() == list(range(6))
    dev.sync()


def heterogeneous_graph(g):
    """The classic conv2d export's graph made heterogeneous as relay.build makes one with a CPU
    fallback: data and the param on the host, __copy nodes to the device and the result back."""
    nodes = g["nodes"]
    copy = lambda name, src: {"op": "tvm_op", "name": name, "inputs": [[src, 0, 0]],
                              "attrs": {"func_name": "__copy", "num_inputs": "1", "num_outputs": "1",
                                        "flatten_data": "0"}}
    conv, pool = dict(nodes[2], inputs=[[2, 0, 0], [3, 0, 0]]), dict(nodes[3], inputs=[[4, 0, 0]])
    shapes, dtypes = g["attrs"]["shape"][1], g["attrs"]["dltype"][1]
    return {
        "nodes": [nodes[0], nodes[1], copy("copy_data", 0), copy("copy_p0", 1), conv, pool, copy("copy_out", 5)],
        "arg_nodes": [0, 1], "heads": [[6, 0, 0]], "node_row_ptr": list(range(8)),
        "attrs": {"dltype": ["list_str", dtypes[:2] + dtypes[:2] + dtypes[2:] + dtypes[3:]],
                  "device_index": ["list_int", [1, 1, 4, 4, 4, 4, 1]],
                  "storage_id": ["list_int", list(range(7))],
                  "shape": ["list_shape", shapes[:2] + shapes[:2] + shapes[2:] + shapes[3:]]},
    }


def test_heterogeneous_graph_keeps_host_entries_on_the_cpu(dev):
    if not GPU_FIXTURES:
        pytest.skip("the GPU fixtures are not here")
    d = os.path.join(GPU_FIXTURES, "o_classic")
    graph = json.dumps(heterogeneous_graph(json.load(open(os.path.join(d, "mod.json")))))
    lib = tvm.runtime.load_module(os.path.join(d, "mod.so"))
    with np.load(os.path.join(d, "inputs.npz")) as z:
        data = z["data"]
    with np.load(os.path.join(d, "expected.npz")) as z:
        want = z["arr_0"]
    for devices in ([tvm.cpu(0), dev], [dev, tvm.cpu(0)], dev):  # TVM's list in any order; the device alone
        m = graph_executor.create(graph, lib, devices)
        m.load_params(open(os.path.join(d, "mod.params"), "rb").read())
        m.set_input("data", data)
        m.run()
        out = m.get_output(0)
        assert out.device == tvm.cpu(0)  # copy_out's entry lives on the host
        assert out.numpy().tobytes() == want.tobytes()
        assert m.get_input("data").device == tvm.cpu(0)


def test_vulkan_device_answers_tvms_attributes(vk):
    assert vk.max_threads_per_block > 0 and vk.warp_size >= 1
    assert isinstance(vk.device_name, str) and vk.device_name
    assert vk.compute_version.count(".") == 2
    assert tvm.vulkan(99).exist is False
    a = tvm.nd.array(np.arange(6, dtype="float32"), vk)
    assert a.device == vk
    assert a.copyto(tvm.cpu(0)).numpy().tolist() == list(range(6))
    vk.sync()


@pytest.mark.parametrize("case", ["k_add", "o_add"])
def test_time_evaluator_and_benchmark_wait_for_the_device(case):
    dev = tvm.vulkan(0) if case.startswith("k_") else tvm.opencl(0)
    if not GPU_FIXTURES or not dev.exist:
        pytest.skip("no GPU fixtures or no %s device" % dev)
    m = graph_executor.GraphModule(tvm.runtime.load_module(os.path.join(GPU_FIXTURES, case, "model.so"))["default"](dev))
    m.set_input("a", np.ones((1, 2), "uint8"))
    m.set_input("b", np.ones((1, 2), "uint8"))
    assert m.module.time_evaluator("run", dev, number=3, repeat=2)().mean > 0
    assert m.benchmark(dev, number=2, repeat=2).mean > 0
    assert m.get_output(0).numpy().tolist() == [[2, 2]]
    with pytest.raises(tvm.TVMError, match="device 5 does not exist"):
        m.module.time_evaluator("run", tvm.vulkan(5) if case.startswith("k_") else tvm.opencl(5))

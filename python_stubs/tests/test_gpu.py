"""aotrt's Python on the real GPU exports of ../shared/fixtures/gpu: OpenCL (o_*) on aotrt.opencl(0)
and Vulkan (k_*) on aotrt.vulkan(0), the factory and classic flows, numpy in, device arrays out,
bit-exact with TVM's own GraphExecutor on the same device; skipped where the device is absent."""
import glob
import json
import os

import numpy as np
import pytest

import aotrt
from aotrt.contrib import graph_executor

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GPU = os.environ.get("AOTRT_GPU_FIXTURES_DIR") or os.path.join(REPO, "..", "shared", "fixtures", "gpu")
CASES = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(GPU, "[ok]_*", "case.json")) if "mobilenet" not in p)


@pytest.mark.parametrize("d", CASES, ids=os.path.basename)
def test_gpu_export_runs_bit_exact(d):
    dev = aotrt.vulkan(0) if os.path.basename(d).startswith("k_") else aotrt.opencl(0)
    if not dev.exist:
        pytest.skip("no %s device on this machine" % dev)
    meta = json.load(open(os.path.join(d, "case.json")))
    if meta["artifact"] == "factory":
        m = graph_executor.GraphModule(aotrt.load_module(os.path.join(d, "model.so"))["default"](dev))
    else:
        m = graph_executor.create(open(os.path.join(d, "mod.json")).read(), aotrt.load_module(os.path.join(d, "mod.so")), dev)
        m.load_params(open(os.path.join(d, "mod.params"), "rb").read())
    with np.load(os.path.join(d, "inputs.npz")) as z:
        m.set_input(**{k: z[k] for k in z.files})
    m.run()
    with np.load(os.path.join(d, "expected.npz")) as z:
        for i in range(len(z.files)):
            out = m.get_output(i)
            assert out.device.device_type == dev.device_type
            assert out.numpy().tobytes() == z["arr_%d" % i].tobytes()

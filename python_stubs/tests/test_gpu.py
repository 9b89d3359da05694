"""aotrt's Python on the real GPU exports of ../shared/fixtures/gpu: OpenCL (o_*) on aotrt.opencl(0)
and Vulkan (k_*) on aotrt.vulkan(0), the factory and classic flows, numpy in, device arrays out,
bit-exact with TVM's own GraphExecutor on the same device; skipped where the device is absent."""
import ctypes
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
        lib = aotrt.load_module(os.path.join(d, "mod.so"))
        m = graph_executor.create(open(os.path.join(d, "mod.json")).read(), lib, dev)
        m.load_params(open(os.path.join(d, "mod.params"), "rb").read())
    with np.load(os.path.join(d, "inputs.npz")) as z:
        m.set_input(**{k: z[k] for k in z.files})
    m.run()
    with np.load(os.path.join(d, "expected.npz")) as z:
        for i in range(len(z.files)):
            out = m.get_output(i)
            assert out.device.device_type == dev.device_type
            assert out.numpy().tobytes() == z["arr_%d" % i].tobytes()


# Two SPIR-V kernels assembled with spirv-as from the same source (out[i] = a + f + i for an int32 a
# and a float32 f): "k_push" takes its scalars as push constants, "k_ubo" in a uniform buffer at the
# binding after its buffers (the shader map's flag 1), as TVM's codegen lays them out (8 bytes each).
SHADERS = {
    "k_push": (0, (
        "AwIjBwADAQAAAAcAJAAAAAAAAAARAAIAAQAAAA4AAwAAAAAAAQAAAA8ABgAFAAAAAQAAAGtfcHVzaAAAAgAAABAABgABAAAA"
        "EQAAAAEAAAABAAAAAQAAAEcABAACAAAACwAAABwAAABHAAQAAwAAAAYAAAAEAAAASAAFAAQAAAAAAAAAIwAAAAAAAABHAAMA"
        "BAAAAAIAAABHAAQABQAAACIAAAAAAAAARwAEAAUAAAAhAAAAAAAAAEgABQAGAAAAAAAAACMAAAAAAAAASAAFAAYAAAABAAAA"
        "IwAAAAgAAABHAAMABgAAAAIAAAATAAIABwAAACEAAwAIAAAABwAAABYAAwAJAAAAIAAAABUABAAKAAAAIAAAAAEAAAAVAAQA"
        "CwAAACAAAAAAAAAAFwAEAAwAAAALAAAAAwAAACAABAANAAAAAQAAAAwAAAA7AAQADQAAAAIAAAABAAAAHQADAAMAAAAJAAAA"
        "HgADAAQAAAADAAAAIAAEAA4AAAAMAAAABAAAADsABAAOAAAABQAAAAwAAAAeAAQABgAAAAoAAAAJAAAAIAAEAA8AAAAJAAAA"
        "BgAAADsABAAPAAAAEAAAAAkAAAAgAAQAEQAAAAkAAAAKAAAAIAAEABIAAAAJAAAACQAAACAABAATAAAADAAAAAkAAAArAAQA"
        "CgAAABQAAAAAAAAAKwAEAAoAAAAVAAAAAQAAACAABAAWAAAAAQAAAAsAAAArAAQACwAAABcAAAAAAAAANgAFAAcAAAABAAAA"
        "AAAAAAgAAAD4AAIAGAAAAEEABQAWAAAAGQAAAAIAAAAXAAAAPQAEAAsAAAAaAAAAGQAAAEEABQARAAAAGwAAABAAAAAUAAAA"
        "PQAEAAoAAAAcAAAAGwAAAEEABQASAAAAHQAAABAAAAAVAAAAPQAEAAkAAAAeAAAAHQAAAG8ABAAJAAAAHwAAABwAAABwAAQA"
        "CQAAACAAAAAaAAAAgQAFAAkAAAAhAAAAHwAAAB4AAACBAAUACQAAACIAAAAhAAAAIAAAAEEABgATAAAAIwAAAAUAAAAUAAAA"
        "GgAAAD4AAwAjAAAAIgAAAP0AAQA4AAEA")),
    "k_ubo": (1, (
        "AwIjBwADAQAAAAcAJAAAAAAAAAARAAIAAQAAAA4AAwAAAAAAAQAAAA8ABgAFAAAAAQAAAGtfdWJvAAAAAgAAABAABgABAAAA"
        "EQAAAAEAAAABAAAAAQAAAEcABAACAAAACwAAABwAAABHAAQAAwAAAAYAAAAEAAAASAAFAAQAAAAAAAAAIwAAAAAAAABHAAMA"
        "BAAAAAIAAABHAAQABQAAACIAAAAAAAAARwAEAAUAAAAhAAAAAAAAAEgABQAGAAAAAAAAACMAAAAAAAAASAAFAAYAAAABAAAA"
        "IwAAAAgAAABHAAMABgAAAAIAAABHAAQABwAAACIAAAAAAAAARwAEAAcAAAAhAAAAAQAAABMAAgAIAAAAIQADAAkAAAAIAAAA"
        "FgADAAoAAAAgAAAAFQAEAAsAAAAgAAAAAQAAABUABAAMAAAAIAAAAAAAAAAXAAQADQAAAAwAAAADAAAAIAAEAA4AAAABAAAA"
        "DQAAADsABAAOAAAAAgAAAAEAAAAdAAMAAwAAAAoAAAAeAAMABAAAAAMAAAAgAAQADwAAAAwAAAAEAAAAOwAEAA8AAAAFAAAA"
        "DAAAAB4ABAAGAAAACwAAAAoAAAAgAAQAEAAAAAIAAAAGAAAAOwAEABAAAAAHAAAAAgAAACAABAARAAAAAgAAAAsAAAAgAAQA"
        "EgAAAAIAAAAKAAAAIAAEABMAAAAMAAAACgAAACsABAALAAAAFAAAAAAAAAArAAQACwAAABUAAAABAAAAIAAEABYAAAABAAAA"
        "DAAAACsABAAMAAAAFwAAAAAAAAA2AAUACAAAAAEAAAAAAAAACQAAAPgAAgAYAAAAQQAFABYAAAAZAAAAAgAAABcAAAA9AAQA"
        "DAAAABoAAAAZAAAAQQAFABEAAAAbAAAABwAAABQAAAA9AAQACwAAABwAAAAbAAAAQQAFABIAAAAdAAAABwAAABUAAAA9AAQA"
        "CgAAAB4AAAAdAAAAbwAEAAoAAAAfAAAAHAAAAHAABAAKAAAAIAAAABoAAACBAAUACgAAACEAAAAfAAAAHgAAAIEABQAKAAAA"
        "IgAAACEAAAAgAAAAQQAGABMAAAAjAAAABQAAABQAAAAaAAAAPgADACMAAAAiAAAA/QABADgAAQA=")),
}


def vulkan_module_library(tmp_path, extra_int32_args=0):
    """A library whose blob holds only `_lib` and a `vulkan` module with the two kernels."""
    import base64
    import struct
    import subprocess
    u64 = lambda v: struct.pack("<Q", v)  # noqa: E731
    text = lambda s: u64(len(s)) + s  # noqa: E731
    fmap, smap = u64(len(SHADERS)), u64(len(SHADERS))
    for name, (flag, words) in sorted(SHADERS.items()):
        # handle, int32, float32 (and more int32)
        types = bytes([3, 64, 1, 0, 0, 32, 1, 0, 2, 32, 1, 0] + [0, 32, 1, 0] * extra_int32_args)
        tags = u64(2) + text(b"blockIdx.x") + text(b"threadIdx.x")
        fmap += text(name.encode()) + text(b"") + u64(3 + extra_int32_args) + types + tags
        spv = base64.b64decode(words)
        smap += text(name.encode()) + struct.pack("<I", flag) + u64(len(spv) // 4) + spv
    body = u64(3) + text(b"_lib") + text(b"vulkan") + text(b"vulkan") + fmap + smap
    body += text(b"_import_tree") + u64(3) + u64(0) + u64(1) + u64(1) + u64(1) + u64(1)
    blob = u64(len(body)) + body
    c = tmp_path / "vk.c"
    c.write_text("const unsigned char __tvm_dev_mblob[%d] = {%s};\n" % (len(blob), ",".join(str(b) for b in blob)))
    so = tmp_path / "vk.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(so), str(c)], check=True)
    return str(so)


@pytest.mark.parametrize("kernel", sorted(SHADERS))
def test_vulkan_scalars_as_push_constants_and_in_a_uniform_buffer(kernel, tmp_path):
    dev = aotrt.vulkan(0)
    if not dev.exist:
        pytest.skip("no Vulkan device on this machine")
    lib = aotrt.load_module(vulkan_module_library(tmp_path))
    k = lib.get_function(kernel, query_imports=True)
    out = aotrt.nd.array(np.zeros(16, "float32"), dev)
    ptr = ctypes.c_void_p(out.handle.contents.data)
    k(ptr, 3, 0.5, 16, 1)
    assert out.numpy().tolist() == [3.5 + i for i in range(16)]
    k(ptr, -7, 0.25, 8, 1)  # recorded after the first: both run, in order
    k(ptr, 1, 0.0, 4, 1)
    want = [1.0 + i for i in range(4)] + [-6.75 + i for i in range(4, 8)] + [3.5 + i for i in range(8, 16)]
    assert out.numpy().tolist() == want


def test_vulkan_push_constants_beyond_the_device_limit_name_the_kernel(tmp_path):
    dev = aotrt.vulkan(0)
    if not dev.exist:
        pytest.skip("no Vulkan device on this machine")
    lib = aotrt.load_module(vulkan_module_library(tmp_path, extra_int32_args=60))
    k = lib.get_function("k_push", query_imports=True)
    out = aotrt.nd.array(np.zeros(4, "float32"), dev)
    with pytest.raises(aotrt.TVMError, match="Vulkan kernel 'k_push' takes 496 bytes of push constants"):
        k(ctypes.c_void_p(out.handle.contents.data), 3, 0.5, *([0] * 60), 4, 1)

"""An OpenCL export run by TVM v0.14's own runtime and by libaotrt, through TVM's own Python package,
one process per measurement, the runtimes alternating.

usage: opencl_vs_tvm.py TVM_RUNTIME_DIR AOTRT_LIBRARY MODEL_DIR [ROUNDS]
  TVM_RUNTIME_DIR  a folder holding TVM's libtvm_runtime.so built with USE_OPENCL
                   (../shared/tools/build_tvm_runtime.sh with TVM_CMAKE_EXTRA=-DUSE_OPENCL=ON)
  AOTRT_LIBRARY    build/src/libaotrt.so
  MODEL_DIR        a factory export folder with model.so and inputs.npz (../shared/fixtures/gpu/o_mobilenet)

Each process measures (all on tvm.opencl(0), pocl's kernel cache off, POCL_KERNEL_CACHE=0, as a vendor
driver without one):
  cold   load + create + first run + sync (TVM builds every kernel; aotrt reads its program cache, which
         the first aotrt process fills)
  run    the median of 20 runs, each run + sync
Needs TVM's Python in ../shared/tvm-python (PYTHONPATH) and /usr/bin/python3 with numpy.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

CHILD = r'''
import json, os, sys, time
import numpy as np
t0 = time.perf_counter()
import tvm
from tvm.contrib import graph_executor
d = sys.argv[1]
dev = tvm.opencl(0)
lib = tvm.runtime.load_module(os.path.join(d, "model.so"))
m = graph_executor.GraphModule(lib["default"](dev))
with np.load(os.path.join(d, "inputs.npz")) as z:
    m.set_input(**{k: tvm.nd.array(z[k], dev) for k in z.files})
m.run()
dev.sync()
cold = time.perf_counter() - t0
times = []
for _ in range(20):
    t = time.perf_counter()
    m.run()
    dev.sync()
    times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"cold_s": cold, "run_ms": times[len(times) // 2] * 1e3}))
'''


def measure(libdir, model_dir, tvm_python):
    env = dict(os.environ, TVM_USE_RUNTIME_LIB="1", TVM_FFI="ctypes", TVM_LIBRARY_PATH=libdir,
               PYTHONPATH=tvm_python, POCL_KERNEL_CACHE="0")
    p = subprocess.run([sys.executable, "-c", CHILD, model_dir], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("measuring with %s failed:\n%s" % (libdir, p.stderr[-3000:]))
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    tvm_dir, aotrt_lib, model_dir = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    here = os.path.dirname(os.path.abspath(__file__))
    tvm_python = os.path.normpath(os.path.join(here, "..", "..", "..", "shared", "tvm-python"))
    aotrt_dir = tempfile.mkdtemp(prefix="aotrt_as_tvm_")
    os.symlink(os.path.abspath(aotrt_lib), os.path.join(aotrt_dir, "libtvm_runtime.so"))
    try:
        measure(aotrt_dir, model_dir, tvm_python)  # fills aotrt's program cache
        rows = []
        for r in range(rounds):
            for name, libdir in (("tvm", tvm_dir), ("aotrt", aotrt_dir)):
                m = measure(libdir, model_dir, tvm_python)
                rows.append((name, m))
                print("round %d %-6s cold %.3f s, run %.2f ms" % (r, name, m["cold_s"], m["run_ms"]), flush=True)
        for name in ("tvm", "aotrt"):
            ms = sorted(m["run_ms"] for n, m in rows if n == name)
            cs = sorted(m["cold_s"] for n, m in rows if n == name)
            print("%-6s median run %.2f ms, median cold start %.3f s" % (name, ms[len(ms) // 2], cs[len(cs) // 2]))
    finally:
        shutil.rmtree(aotrt_dir, True)


if __name__ == "__main__":
    main()

"""A Vulkan export run by libaotrt (and, given its folder, by TVM v0.14's own Vulkan runtime) through TVM's own
Python package, one process per measurement, the runtimes alternating, Mesa's shader cache off
(MESA_SHADER_CACHE_DISABLE=true).

usage: vulkan_bench.py AOTRT_LIBRARY MODEL_DIR [ROUNDS] [TVM_RUNTIME_DIR]
  AOTRT_LIBRARY    build/src/libaotrt.so
  MODEL_DIR        a factory export folder with model.so and inputs.npz (../shared/fixtures/gpu/k_conv)
  TVM_RUNTIME_DIR  a folder holding TVM's libtvm_runtime.so built with USE_VULKAN
                   (../shared/tools/build_tvm_runtime.sh with TVM_CMAKE_EXTRA=-DUSE_VULKAN=ON)

Each process measures on tvm.vulkan(0):
  create  load + create: aotrt builds every pipeline there (TVM at its first run)
  cold    load + create + first run + sync
  run     the median of RUNS runs (default 10), each run + sync
  (wall time, and the process's CPU time, lavapipe's threads included: the machines here are shared)
aotrt is measured with an empty cache directory ("aotrt-fresh": every pipeline compiled) and with the
pipeline cache the fresh process wrote ("aotrt"). Needs TVM's Python in ../shared/tvm-python.
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
t0, c0 = time.perf_counter(), time.process_time()
import tvm
from tvm.contrib import graph_executor
d, runs = sys.argv[1], int(sys.argv[2])
dev = tvm.vulkan(0)
lib = tvm.runtime.load_module(os.path.join(d, "model.so"))
m = graph_executor.GraphModule(lib["default"](dev))
create = time.perf_counter() - t0
with np.load(os.path.join(d, "inputs.npz")) as z:
    m.set_input(**{k: tvm.nd.array(z[k], dev) for k in z.files})
m.run()
dev.sync()
cold, cold_cpu = time.perf_counter() - t0, time.process_time() - c0
times, cpus = [], []
for _ in range(runs):
    t, c = time.perf_counter(), time.process_time()
    m.run()
    dev.sync()
    times.append(time.perf_counter() - t)
    cpus.append(time.process_time() - c)
times.sort()
cpus.sort()
print(json.dumps({"create_s": create, "cold_s": cold, "cold_cpu_s": cold_cpu, "run_ms": times[len(times) // 2] * 1e3,
                  "run_cpu_ms": cpus[len(cpus) // 2] * 1e3}))
'''


def measure(libdir, model_dir, tvm_python, cache_dir, runs):
    env = dict(os.environ, TVM_USE_RUNTIME_LIB="1", TVM_FFI="ctypes", TVM_LIBRARY_PATH=libdir,
               PYTHONPATH=tvm_python, MESA_SHADER_CACHE_DISABLE="true", AOTRT_CACHE_DIR=cache_dir)
    p = subprocess.run([sys.executable, "-c", CHILD, model_dir, str(runs)], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("measuring with %s failed:\n%s" % (libdir, p.stderr[-3000:]))
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    aotrt_lib, model_dir = sys.argv[1:3]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    tvm_dir = sys.argv[4] if len(sys.argv) > 4 else None
    runs = int(os.environ.get("RUNS", "10"))
    here = os.path.dirname(os.path.abspath(__file__))
    tvm_python = os.path.normpath(os.path.join(here, "..", "..", "..", "shared", "tvm-python"))
    aotrt_dir = tempfile.mkdtemp(prefix="aotrt_as_tvm_")
    cache = os.path.join(aotrt_dir, "cache")
    os.symlink(os.path.abspath(aotrt_lib), os.path.join(aotrt_dir, "libtvm_runtime.so"))
    try:
        rows = []
        for r in range(rounds):
            shutil.rmtree(cache, True)
            runtimes = [("aotrt-fresh", aotrt_dir), ("aotrt", aotrt_dir)] + ([("tvm", tvm_dir)] if tvm_dir else [])
            for name, libdir in runtimes:
                m = measure(libdir, model_dir, tvm_python, cache, runs)
                rows.append((name, m))
                print("round %d %-11s create %.3f s, cold %.3f s (cpu %.3f s), run %.1f ms (cpu %.1f ms)" % (
                    r, name, m["create_s"], m["cold_s"], m["cold_cpu_s"], m["run_ms"], m["run_cpu_ms"]), flush=True)
        for name in sorted({n for n, _ in rows}):
            med = lambda key: sorted(m[key] for n, m in rows if n == name)[len([1 for n, _ in rows if n == name]) // 2]
            print("%-11s median create %.3f s, cold start %.3f s (cpu %.3f s), run %.1f ms (cpu %.1f ms)" % (
                name, med("create_s"), med("cold_s"), med("cold_cpu_s"), med("run_ms"), med("run_cpu_ms")))
    finally:
        shutil.rmtree(aotrt_dir, True)


if __name__ == "__main__":
    main()

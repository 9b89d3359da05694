"""The Relay VM exports run by TVM v0.14's own VirtualMachine and by libaotrt's, through TVM's own
Python package, one process per measurement, the runtimes alternating.

usage: vm_vs_tvm.py TVM_RUNTIME_DIR AOTRT_LIBRARY VM_FIXTURES_DIR [ROUNDS]
  TVM_RUNTIME_DIR  a folder holding TVM's libtvm_runtime.so (../shared/tools/build_tvm_runtime.sh)
  AOTRT_LIBRARY    build/src/libaotrt.so
  VM_FIXTURES_DIR  ../shared/fixtures/vm (the CPU cases: v_add_split, v_add_exported, v_dyn_batch, v_control)

Each process loads every case, then per case reports the median of 2000 calls of
`vm.invoke("main", *args)` (the inputs given as NDArrays, so both sides time the VM and not numpy).
Needs TVM's Python in ../shared/tvm-python and /usr/bin/python3 with numpy.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

CASES = ["v_add_split", "v_add_exported", "v_dyn_batch", "v_control"]

CHILD = r'''
import json, os, sys, time
import numpy as np
import tvm
from tvm.runtime import vm as rvm
out = {}
for case in sys.argv[2:]:
    d = os.path.join(sys.argv[1], case)
    if os.path.exists(os.path.join(d, "vm.so")):
        exe = tvm.runtime.load_module(os.path.join(d, "vm.so"))
    else:
        exe = rvm.Executable.load_exec(bytearray(open(os.path.join(d, "code.ro"), "rb").read()),
                                       tvm.runtime.load_module(os.path.join(d, "lib.so")))
    m = rvm.VirtualMachine(exe, tvm.cpu(0))
    with np.load(os.path.join(d, "inputs.npz")) as z:
        args = [tvm.nd.array(z["arg%d" % i]) for i in range(len(z.files))]
    for _ in range(200):
        m.invoke("main", *args)
    times = []
    for _ in range(2000):
        t = time.perf_counter()
        m.invoke("main", *args)
        times.append(time.perf_counter() - t)
    times.sort()
    out[case] = times[len(times) // 2] * 1e6
print(json.dumps(out))
'''


def measure(libdir, fixtures, tvm_python):
    env = dict(os.environ, TVM_USE_RUNTIME_LIB="1", TVM_FFI="ctypes", TVM_LIBRARY_PATH=libdir, PYTHONPATH=tvm_python)
    p = subprocess.run([sys.executable, "-c", CHILD, fixtures] + CASES, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("measuring with %s failed:\n%s" % (libdir, p.stderr[-3000:]))
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    tvm_dir, aotrt_lib, fixtures = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    here = os.path.dirname(os.path.abspath(__file__))
    tvm_python = os.path.normpath(os.path.join(here, "..", "..", "..", "shared", "tvm-python"))
    aotrt_dir = tempfile.mkdtemp(prefix="aotrt_as_tvm_")
    os.symlink(os.path.abspath(aotrt_lib), os.path.join(aotrt_dir, "libtvm_runtime.so"))
    try:
        rows = {"tvm": [], "aotrt": []}
        for r in range(rounds):
            for name, libdir in (("tvm", tvm_dir), ("aotrt", aotrt_dir)):
                rows[name].append(measure(libdir, fixtures, tvm_python))
        print("%-16s %12s %12s %8s" % ("case", "TVM us", "aotrt us", "ratio"))
        for case in CASES:
            med = {n: sorted(r[case] for r in rows[n])[rounds // 2] for n in rows}
            print("%-16s %12.2f %12.2f %8.2f" % (case, med["tvm"], med["aotrt"], med["aotrt"] / med["tvm"]))
    finally:
        shutil.rmtree(aotrt_dir, True)


if __name__ == "__main__":
    main()

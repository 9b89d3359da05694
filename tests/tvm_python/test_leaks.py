"""Calls returning objects, through TVM's package, 100k times: flat RSS (handles and errors freed)."""
import gc
import subprocess
import sys

import numpy as np

import tvm
from tvm.runtime.executor import AotModule


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def growth(fn, n):
    for _ in range(1000):
        fn()
    gc.collect()
    before = rss_bytes()
    for _ in range(n):
        fn()
    gc.collect()
    return rss_bytes() - before


def test_object_results_do_not_leak(export):
    lib = tvm.runtime.load_module(export.path)
    names = lib["list_module_names"]
    m = AotModule(lib["default"](tvm.cpu(0)))
    info = m.module["get_input_info"]
    blob = tvm.runtime.save_param_dict({k: tvm.nd.array(v) for k, v in export.inputs.items()})

    def calls():
        assert list(names()) == [export.mod_name]
        params = tvm.runtime.load_param_dict(blob)
        assert len(params) == len(export.inputs)
        assert set(info()["shape"].keys()) == set(export.inputs)

    grew = growth(calls, 100000 if export.name == "tiny_add_c" else 5000)
    print("RSS growth over the calls: %d KiB" % (grew // 1024))
    assert grew < 4 << 20


def test_python_errors_do_not_leak(export):
    def fail():
        raise ValueError("callback", np.ones(1 << 16))  # 512 KiB per exception: a leak shows at once

    f = tvm.runtime.convert(fail)
    m = AotModule(tvm.runtime.load_module(export.path)["default"](tvm.cpu(0)))

    def calls():
        try:
            f()
        except ValueError:
            pass
        try:
            m.get_input_index("no_such_input")
        except tvm.TVMError:
            pass

    assert growth(calls, 2000) < 8 << 20


EXIT_SCRIPT = """
import ctypes, tvm
@tvm.register_func("aotrt_test.at_exit")
def f(x):
    return x
g = tvm.runtime.convert(lambda: None)
tvm._ffi.base._LIB.TVMAPISetLastPythonError(ctypes.py_object(ValueError("left at exit")))
print("ok")
"""


def test_nothing_python_runs_at_exit():
    """Globals registered from Python and a Python error left recorded are never released after the
    interpreter has gone (that would crash at exit)."""
    proc = subprocess.run([sys.executable, "-c", "import tvm_testing_standin\n" + EXIT_SCRIPT],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]

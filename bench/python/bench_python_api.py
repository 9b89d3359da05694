#!/usr/bin/python3
"""Per-call cost of the aotrt Python API on a one-element model (issue 5's speed targets).

    AOTRT_LIBRARY=build/src/libaotrt.so /usr/bin/python3 bench/python/bench_python_api.py [MODEL.so]

MODEL defaults to the generated add_c model ($AOTRT_TEST_MODELS_DIR, or the models/ folder of the
build the library comes from), else the
tiny_add_c TVM fixture. Prints microseconds per call: the minimum over several repeats of many
calls each (time.perf_counter_ns), for AotModule.run(), set_input(a=numpy_array) and
get_output(0).numpy(). TVM v0.14's own Python runtime takes 2.9 / 32.7 / 12.8 us here; the
targets are 1.5 / 5 / 5 us.
"""
import argparse
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python_stubs"))

import numpy as np  # noqa: E402

import aotrt  # noqa: E402
from aotrt.runtime.executor import AotModule  # noqa: E402

TARGETS_US = {"run()": 1.5, "set_input(a=np)": 5.0, "get_output(0).numpy()": 5.0}
TVM_US = {"run()": 2.9, "set_input(a=np)": 32.7, "get_output(0).numpy()": 12.8}


def default_model():
    # $AOTRT_TEST_MODELS_DIR, else the models of the build the library came from
    lib_build = os.path.dirname(os.path.dirname(os.path.realpath(aotrt._ffi.LIB_PATH)))
    models = os.environ.get("AOTRT_TEST_MODELS_DIR") or os.path.join(lib_build, "models")
    if os.path.exists(os.path.join(models, "add_c.so")):
        return os.path.join(models, "add_c.so")
    fixtures = os.environ.get("AOTRT_FIXTURES_DIR") or os.path.join(REPO, "..", "shared", "fixtures", "tvm")
    path = os.path.join(fixtures, "tiny_add_c", "model.so")
    if os.path.exists(path):
        return path
    sys.exit("no model: pass MODEL.so or set AOTRT_TEST_MODELS_DIR")


def per_call_us(loop, number, repeat):
    """Minimum over ``repeat`` runs of ``loop(number)``, per call, in microseconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter_ns()
        loop(number)
        best = min(best, time.perf_counter_ns() - start)
    return best / number / 1000.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", nargs="?", help="model library (default: add_c / tiny_add_c)")
    ap.add_argument("--number", type=int, default=200000, help="calls per repeat")
    ap.add_argument("--repeat", type=int, default=7, help="repeats (the minimum is reported)")
    args = ap.parse_args()

    path = args.model or default_model()
    ex = AotModule(aotrt.load_module(path)["default"](aotrt.cpu(0)))
    a = np.array([1.5], dtype=np.float32)
    ex.set_input(a=a, b=np.array([2.0], dtype=np.float32))
    ex.run()
    assert ex.get_output(0).numpy().tolist() == [3.5]

    run, set_input, get_output = ex.run, ex.set_input, ex.get_output

    # Plain loops over bound methods: the loop body is exactly the call being measured.
    def loop_run(n):
        for _ in range(n):
            run()

    def loop_set_input(n):
        for _ in range(n):
            set_input(a=a)

    def loop_get_output(n):
        for _ in range(n):
            get_output(0).numpy()

    cases = {"run()": loop_run, "set_input(a=np)": loop_set_input, "get_output(0).numpy()": loop_get_output}
    print("model: %s\nlibrary: %s (aotrt %s), python %s, numpy %s" % (
        path, aotrt._ffi.LIB_PATH, aotrt.runtime_version(), sys.version.split()[0], np.__version__))
    print("%-24s %10s %10s %10s" % ("call", "us/call", "target", "TVM"))
    ok = True
    for name, loop in cases.items():
        us = per_call_us(loop, args.number, args.repeat)
        ok &= us <= TARGETS_US[name]
        print("%-24s %10.3f %10.1f %10.1f" % (name, us, TARGETS_US[name], TVM_US[name]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

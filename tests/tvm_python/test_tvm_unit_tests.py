"""TVM's own runtime unit tests (../shared/tvm-python/tests), unchanged, over libaotrt.

Every test that passes over TVM's own runtime-only library (23) must pass here, and every other test
must fail only for want of a compiler-only global (ABI.md 11.6 B), never because of the runtime.
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

TESTS = os.path.join(os.environ.get("AOTRT_TVM_PYTHON_DIR", ""), "tests")

# The 23 that pass over TVM v0.14.0's libtvm_runtime.so with the stand-ins.
MUST_PASS = {
    "test_device::test_device[cpu-1-0]", "test_device::test_device[cuda-2-0]",
    "test_device::test_device[cuda:0-2-0]", "test_device::test_device[cuda:3-2-3]",
    "test_device::test_device[metal:2-8-2]", "test_device::test_device_with_dev_id[cpu-0-1-0]",
    "test_device::test_device_with_dev_id[cuda-0-2-0]", "test_device::test_device_with_dev_id[2-0-2-0]",
    "test_device::test_device_with_dev_id[cuda-3-2-3]", "test_device::test_device_with_dev_id[8-2-8-2]",
    "test_device::test_deive_error[cpu:0:0-None]", "test_device::test_deive_error[cpu:?-None]",
    "test_device::test_deive_error[cpu:-None]", "test_device::test_deive_error[2-?]",
    "test_ir_container::test_ndarray_container", "test_runtime_container::test_adt_constructor",
    "test_runtime_measure::test_benchmark_result", "test_runtime_ndarray::test_nd_create",
    "test_runtime_ndarray::test_dtype", "test_runtime_packed_func::test_get_global",
    "test_runtime_packed_func::test_convert", "test_runtime_packed_func::test_byte_array",
    "test_runtime_packed_func::test_empty_array",
}

# What a runtime-only library cannot provide: compiler globals, and pickling objects.
COMPILER_ONLY = ("has no attribute", "Cannot find global function testing.",
                 "Do not support object serialization in runtime only mode")


def run_tests(tmp_path):
    xml = str(tmp_path / "results.xml")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tvm_testing_standin",
           "--junitxml", xml, TESTS, "--ignore", os.path.join(TESTS, "test_cpp_aot.py")]
    proc = subprocess.run(cmd, cwd=str(tmp_path), capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]  # 1: some tests failed
    results = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        name = case.get("classname").split(".")[-1] + "::" + case.get("name")
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        skipped = case.find("skipped") is not None
        results[name] = ("skipped", "") if skipped else ("failed", bad.get("message", "")) if bad is not None \
            else ("passed", "")
    return results


def test_tvm_runtime_unit_tests(tmp_path):
    results = run_tests(tmp_path)
    passed = {n for n, (state, _) in results.items() if state == "passed"}
    assert MUST_PASS <= passed, sorted(MUST_PASS - passed)
    for name, (state, message) in results.items():
        if state == "failed":
            assert any(s in message for s in COMPILER_ONLY), (name, message)
    print("TVM runtime unit tests over aotrt: %d passed of %d" % (len(passed), len(results)))

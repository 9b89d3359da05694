"""TVM v0.14's own tvm.runtime.vm (Executable, VirtualMachine) over libaotrt, on the real Relay VM exports of
../shared/fixtures/vm: the two-file form (Executable.load_exec) and the one-file form (load_module of vm.so),
every input set bit-exact. v_opencl waits for the device layer."""
import glob
import json
import os
import shutil
import tempfile

import numpy as np
import pytest

import tvm
from tvm.runtime import vm as tvm_vm

VM_FIXTURES = os.environ.get("AOTRT_VM_FIXTURES_DIR", "")


def vm_cases():
    if not VM_FIXTURES:
        return []
    return sorted(os.path.dirname(p) for p in glob.glob(os.path.join(VM_FIXTURES, "*", "case.json")))


def flatten(r, out):
    if isinstance(r, tvm.runtime.container.ADT):
        for f in r:
            flatten(f, out)
    else:
        out.append(r.numpy())
    return out


def executable(d):
    if os.path.exists(os.path.join(d, "vm.so")):
        return tvm_vm.Executable(tvm.runtime.load_module(os.path.join(d, "vm.so")))
    code = bytearray(open(os.path.join(d, "code.ro"), "rb").read())
    return tvm_vm.Executable.load_exec(code, tvm.runtime.load_module(os.path.join(d, "lib.so")))


@pytest.mark.parametrize("d", vm_cases(), ids=os.path.basename)
def test_vm_export_bit_exact(d):
    dev = tvm.cpu(0)
    if os.path.basename(d) == "v_opencl":
        dev = tvm.opencl(0)
        if not dev.exist:
            pytest.skip("no OpenCL device")
    exe = executable(d)
    assert "main" in exe.bytecode
    assert exe.globals[0] == "main" and exe.primitive_ops and all(p in exe.stats for p in exe.primitive_ops)
    vm = tvm_vm.VirtualMachine(exe, dev)
    for suffix in ["", "_b"]:
        if not os.path.exists(os.path.join(d, "inputs%s.npz" % suffix)):
            continue
        with np.load(os.path.join(d, "inputs%s.npz" % suffix)) as z:
            args = [z["arg%d" % i] for i in range(len(z.files))]
        with np.load(os.path.join(d, "expected%s.npz" % suffix)) as z:
            expected = [z["arr_%d" % i] for i in range(len(z.files))]
        for _ in range(2):
            got = flatten(vm.invoke("main", *args), [])
            assert len(got) == len(expected)
            for g, e in zip(got, expected):
                assert g.dtype == e.dtype and g.shape == e.shape
                assert g.tobytes() == e.tobytes()
        vm.invoke_stateful("main", *args)
        assert vm.get_outputs()[0].numpy().tobytes() == expected[0].tobytes()


def test_vm_benchmark_times_invoke():
    cases = [d for d in vm_cases() if os.path.basename(d) == "v_dyn_batch"]
    if not cases:
        pytest.skip("../shared/fixtures/vm not present")
    exe = executable(cases[0])
    vm = tvm_vm.VirtualMachine(exe, tvm.cpu(0))
    with np.load(os.path.join(cases[0], "inputs.npz")) as z:
        x = z["arg0"]
    result = vm.benchmark(tvm.cpu(0), x, repeat=3, number=2)
    assert len(result.results) == 3 and result.mean > 0
    result = vm.benchmark(tvm.cpu(0), tvm.nd.array(x), repeat=2, number=1, end_to_end=True)
    assert len(result.results) == 2


def test_vm_invoke_with_outputs():
    cases = [d for d in vm_cases() if os.path.basename(d) == "v_dyn_batch"]
    if not cases:
        pytest.skip("../shared/fixtures/vm not present")
    vm = tvm_vm.VirtualMachine(executable(cases[0]), tvm.cpu(0))
    with np.load(os.path.join(cases[0], "inputs_b.npz")) as z:
        x = z["arg0"]
    with np.load(os.path.join(cases[0], "expected_b.npz")) as z:
        want = z["arr_0"]
    out = tvm.nd.empty(want.shape, "float32")
    vm.invoke_with_outputs("main", {"x": x}, [out])
    assert out.numpy().tobytes() == want.tobytes()


def test_vm_profiler_report():
    """TVM's own VirtualMachineProfiler (runtime._VirtualMachineDebug, profile) over aotrt: a Report
    with each primitive the run called."""
    from tvm.runtime import profiler_vm
    cases = [d for d in vm_cases() if os.path.basename(d) == "v_control"]
    if not cases:
        pytest.skip("../shared/fixtures/vm not present")
    assert profiler_vm.enabled()
    exe = executable(cases[0])
    vm = profiler_vm.VirtualMachineProfiler(exe, tvm.cpu(0))
    with np.load(os.path.join(cases[0], "inputs.npz")) as z:
        args = [z["arg%d" % i] for i in range(len(z.files))]
    report = vm.profile(*args, func_name="main")
    assert isinstance(report, tvm.runtime.profiling.Report)
    calls = json.loads(report.json())["calls"]
    assert calls and all(c["Name"]["string"] in exe.primitive_ops for c in calls)
    assert json.loads(report.json())["configuration"]["Executor"]["string"] == "VM"


def test_vm_late_bound_constants():
    """TVM's Executable.move_late_bound_consts / save / load_exec / load_late_bound_consts over aotrt."""
    cases = [d for d in vm_cases() if os.path.basename(d) == "v_dyn_batch"]
    if not cases:
        pytest.skip("../shared/fixtures/vm not present")
    exe = executable(cases[0])
    path = os.path.join(tempfile.mkdtemp(prefix="aotrt_vm_late_"), "consts.params")
    exe.move_late_bound_consts(path, byte_limit=0)
    code, lib = exe.save()
    again = tvm_vm.Executable.load_exec(code, lib)
    again.load_late_bound_consts(path)
    with np.load(os.path.join(cases[0], "inputs.npz")) as z:
        x = z["arg0"]
    with np.load(os.path.join(cases[0], "expected.npz")) as z:
        want = z["arr_0"]
    assert tvm_vm.VirtualMachine(again, tvm.cpu(0)).invoke("main", x).numpy().tobytes() == want.tobytes()
    shutil.rmtree(os.path.dirname(path))

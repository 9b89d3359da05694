"""aotrt.runtime.vm (TVM's tvm.runtime.vm API) on the Relay VM exports of ../shared/fixtures/vm: both forms,
every CPU case and input set bit-exact, tuples as Python tuples."""
import glob
import json
import os

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VM = os.path.join(REPO, "..", "shared", "fixtures", "vm")
CASES = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(VM, "*", "case.json")))


def flatten(r, out):
    if isinstance(r, tuple):
        for x in r:
            flatten(x, out)
    else:
        out.append(r.copyto(r.device.__class__(1, 0)).numpy() if r.device.device_type != 1 else r.numpy())
    return out


@pytest.mark.parametrize("d", CASES, ids=os.path.basename)
def test_vm_fixture(tvm, d):
    from aotrt.runtime import vm as rvm
    spec = json.load(open(os.path.join(d, "case.json")))
    dev = tvm.cpu(0)
    if spec["device"] != "cpu":
        dev = tvm.opencl(0)
        if not tvm.get_global_func("runtime.GetDeviceAttr")(dev.device_type, 0, 0):
            pytest.skip("no OpenCL device")
    if spec["artifact"] == "exported":
        exe = rvm.Executable(tvm.load_module(os.path.join(d, "vm.so")))
    else:
        exe = rvm.Executable.load_exec(os.path.join(d, "code.ro"), os.path.join(d, "lib.so"))
    assert exe.get_function_params("main") == spec["input_names"]
    machine = rvm.VirtualMachine(exe, dev)
    for suffix in ["", "_b"][: spec["input_sets"]]:
        with np.load(os.path.join(d, "inputs%s.npz" % suffix)) as z:
            args = [z["arg%d" % i] for i in range(len(z.files))]
        with np.load(os.path.join(d, "expected%s.npz" % suffix)) as z:
            want = [z["arr_%d" % i] for i in range(len(z.files))]
        got = flatten(machine.invoke("main", *args), [])
        assert [g.tobytes() for g in got] == [w.tobytes() for w in want]
        kwargs = dict(zip(spec["input_names"], args))
        got = flatten(machine.run(**kwargs), [])
        assert [g.tobytes() for g in got] == [w.tobytes() for w in want]


def _case(tvm, name):
    from aotrt.runtime import vm as rvm
    d = os.path.join(VM, name)
    if not os.path.isdir(d):
        pytest.skip("no VM fixtures")
    with np.load(os.path.join(d, "inputs.npz")) as z:
        args = [z["arg%d" % i] for i in range(len(z.files))]
    with np.load(os.path.join(d, "expected.npz")) as z:
        want = [z["arr_%d" % i] for i in range(len(z.files))]
    return d, rvm.Executable.load_exec(os.path.join(d, "code.ro"), os.path.join(d, "lib.so")), args, want


def test_vm_profile_and_outputs_given(tvm):
    """profile() is TVM's Report of each primitive's time; invoke_with_outputs writes into the arrays given."""
    from aotrt.runtime import vm as rvm
    d, exe, args, want = _case(tvm, "v_control")
    machine = rvm.VirtualMachine(exe, tvm.cpu(0))
    report = machine.profile(*args)
    assert type(report).__name__ == "Report"
    calls = json.loads(report.json())["calls"]
    assert calls and all(c["Name"]["string"] in exe.stats for c in calls)
    assert "every kernel call timed" in report.table()
    out = tvm.nd.empty(want[0].shape, str(want[0].dtype))
    params = exe.get_function_params("main")
    machine.invoke_with_outputs("main", dict(zip(params, args)), [out])
    assert out.numpy().tobytes() == want[0].tobytes()


def test_vm_late_bound_constants_round_trip(tvm, tmp_path):
    """Constants moved to a file, the bytecode saved without them, both loaded again: the same bits."""
    from aotrt.runtime import vm as rvm
    d, exe, args, want = _case(tvm, "v_dyn_batch")
    path = str(tmp_path / "consts.params")
    exe.move_late_bound_consts(path, 0)
    code, lib = exe.save()
    again = rvm.Executable.load_exec(code, lib)
    with pytest.raises(Exception, match="load_late_bound_consts"):
        rvm.VirtualMachine(again, tvm.cpu(0))
    again.load_late_bound_consts(path)
    got = rvm.VirtualMachine(again, tvm.cpu(0)).invoke("main", *args)
    assert got.numpy().tobytes() == want[0].tobytes()
    consts = again.get_late_bound_consts(0)
    again.load_late_bound_consts_from_map(consts)
    assert rvm.VirtualMachine(again, tvm.cpu(0)).invoke("main", *args).numpy().tobytes() == want[0].tobytes()

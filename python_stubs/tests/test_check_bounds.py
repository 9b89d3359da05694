"""Models that write past their workspace (issue 10) through the Python package: exact outputs by
default (the runtime's tail slack absorbs the write); AOTRT_CHECK_BOUNDS=1, read when an executor
is created, makes run() raise ModelError naming the model, the pool or block, and the bytes."""
import os

import numpy as np
import pytest

from conftest import Case, model_path

OVERRUN = {
    "overrun_usmp_llvm": "model 'default' wrote 24 bytes past workspace pool 'global_workspace' (248 bytes)",
    "overrun_usmp_c": "model 'default' wrote 24 bytes past workspace pool 'global_workspace' (60 bytes)",
    "overrun_ws_llvm": "model 'default' wrote 24 bytes past a TVMBackendAllocWorkspace block (4,096 bytes)",
    "overrun_ws_c": "model 'default' wrote 8 bytes past a TVMBackendAllocWorkspace block (4,096 bytes)",
}


def executor(tvm, path):
    from aotrt.runtime.executor import AotModule
    return AotModule(tvm.runtime.load_module(path)["default"](tvm.cpu(0)))


def check_outputs(ex, case):
    for i, ref in enumerate(case.expected()):
        got = ex.get_output(i).numpy()
        assert got.dtype == ref.dtype and got.tobytes() == ref.tobytes()


@pytest.mark.parametrize("name", sorted(OVERRUN))
def test_overrun_is_harmless_by_default(tvm, models, name, monkeypatch):
    monkeypatch.delenv("AOTRT_CHECK_BOUNDS", raising=False)
    path = model_path(models, name)
    ex = executor(tvm, path)
    ex.set_input(**Case(os.path.join(models, name + ".case")).inputs())
    for _ in range(5):
        ex.run()
    check_outputs(ex, Case(os.path.join(models, name + ".case")))


@pytest.mark.parametrize("name", sorted(OVERRUN))
def test_check_bounds_env_reports_overrun(tvm, models, name, monkeypatch):
    path = model_path(models, name)
    case = Case(os.path.join(models, name + ".case"))
    monkeypatch.setenv("AOTRT_CHECK_BOUNDS", "1")
    ex = executor(tvm, path)
    ex.set_input(**case.inputs())
    for _ in range(2):                       # reported on every run, the executor stays usable
        with pytest.raises(tvm.error.ModelError) as info:
            ex.run()
        assert OVERRUN[name] in str(info.value)
        assert os.path.basename(path) in str(info.value)
        check_outputs(ex, case)              # the run itself completed


def test_check_bounds_env_passes_correct_models(tvm, models, monkeypatch):
    monkeypatch.setenv("AOTRT_CHECK_BOUNDS", "1")
    for name in ("usmp_both_llvm", "multi_io_c"):
        case = Case(os.path.join(models, name + ".case"))
        ex = executor(tvm, model_path(models, name))
        ex.set_input(**case.inputs())
        ex.run()
        check_outputs(ex, case)


def test_check_bounds_env_bad_value(tvm, models, monkeypatch):
    monkeypatch.setenv("AOTRT_CHECK_BOUNDS", "sometimes")
    lib = tvm.runtime.load_module(model_path(models, "add_c"))
    with pytest.raises(tvm.TVMError, match="AOTRT_CHECK_BOUNDS='sometimes'"):
        lib["default"](tvm.cpu(0))

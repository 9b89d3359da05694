"""Models that write past their workspace (issue 10) through the Python package: exact outputs by
default (the runtime's tail slack absorbs the write); AOTRT_CHECK_BOUNDS=1, read when the model is
loaded, or load_module(..., check_bounds=True) makes run() raise ModelError naming the model, the pool or block, and the bytes."""
import os
import time

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
    with pytest.raises(tvm.TVMError, match="AOTRT_CHECK_BOUNDS='sometimes'"):   # read at load
        tvm.runtime.load_module(model_path(models, "add_c"))


def test_check_bounds_load_option(tvm, models, monkeypatch):
    monkeypatch.delenv("AOTRT_CHECK_BOUNDS", raising=False)
    from aotrt.runtime.executor import AotModule
    name = "overrun_usmp_c"
    case = Case(os.path.join(models, name + ".case"))
    lib = tvm.runtime.load_module(model_path(models, name), check_bounds=True)
    ex = AotModule(lib["default"](tvm.cpu(0)))   # TVM's packed create: the load's option applies
    ex.set_input(**case.inputs())
    with pytest.raises(tvm.error.ModelError, match="wrote 24 bytes past"):
        ex.run()
    ex = AotModule(tvm.runtime.load_module(model_path(models, name), check_bounds=False)["default"](tvm.cpu(0)))
    ex.set_input(**case.inputs())
    ex.run()
    check_outputs(ex, case)


def test_load_options_are_checked(tvm, models):
    path = model_path(models, "add_c")
    with pytest.raises(TypeError, match="unknown option.*bogus"):
        tvm.runtime.load_module(path, bogus=True)
    with pytest.raises(TypeError, match="check_bounds must be a bool"):
        tvm.runtime.load_module(path, check_bounds="yes")
    with pytest.raises(ValueError, match="cache_max_bytes"):
        tvm.runtime.load_module(path, cache_max_bytes=-1)


def test_cache_dir_option_places_the_constant_pool(tvm, models, tmp_path, monkeypatch):
    monkeypatch.delenv("AOTRT_CONSTANT_CACHE", raising=False)
    lib = tvm.runtime.load_module(model_path(models, "usmp_cached_c"), cache_dir=tmp_path / "cache")
    # A miss writes the pool file in the background, off the load's path: wait for it (bounded).
    deadline = time.monotonic() + 30
    while not any(f.name.endswith(".aotrt-pool") for f in (tmp_path / "cache").iterdir()):
        assert time.monotonic() < deadline, "no pool file written within 30 s"
        time.sleep(0.01)
    del lib
    off = tmp_path / "off"
    tvm.runtime.load_module(model_path(models, "usmp_cached_c"), cache_dir=off, constant_cache=False)
    assert not off.exists()

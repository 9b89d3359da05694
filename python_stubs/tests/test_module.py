"""Module: loading, functions, imports, type keys."""
import ctypes
import os

import pytest

from conftest import model_path


def test_library_loaded_global(tvm):
    from aotrt import _ffi
    assert os.path.isfile(_ffi.LIB_PATH)
    if os.environ.get("AOTRT_LIBRARY"):
        assert os.path.samefile(_ffi.LIB_PATH, os.environ["AOTRT_LIBRARY"])
    # RTLD_GLOBAL: the runtime's symbols are visible process-wide (model libraries rely on it)
    assert ctypes.CDLL(None).TVMBackendAllocWorkspace
    assert tvm.runtime_version()


def test_load_and_functions(tvm, models):
    lib = tvm.runtime.load_module(model_path(models, "add_c"))
    assert tvm.load_module is tvm.runtime.load_module
    assert lib.type_key == "AotExecutorFactory"
    assert repr(lib).startswith("Module(AotExecutorFactory")
    assert isinstance(lib["default"], tvm.PackedFunc)
    with pytest.raises(AttributeError):
        lib["missing"]
    with pytest.raises(tvm.TVMError):
        lib.get_function("missing")
    assert "default" in lib and "missing" not in lib
    (meta,) = lib.imports
    assert meta.type_key == "metadata_module"
    assert lib.get_function("get_c_metadata", query_imports=True)
    assert not lib.implements_function("get_c_metadata")
    ex = lib["default"](tvm.cpu(0))
    assert isinstance(ex, tvm.Module) and ex.type_key == "AotExecutor"


def test_import_module(tvm, models):
    a = tvm.runtime.load_module(model_path(models, "add_c"))
    b = tvm.runtime.load_module(model_path(models, "multi_io_c"))
    a.import_module(b)
    assert len(a.imports) == 2
    with pytest.raises(tvm.TVMError):
        b.import_module(a)            # cycle


def test_load_errors(tvm, tmp_path):
    with pytest.raises(ValueError):
        tvm.runtime.load_module(str(tmp_path / "nothing.so"))
    bad = tmp_path / "bad.so"
    bad.write_bytes(b"not an ELF file")
    with pytest.raises(tvm.TVMError):
        tvm.runtime.load_module(str(bad))


def test_load_from_bytes(tvm, models):
    with open(model_path(models, "add_c"), "rb") as f:
        lib = tvm.load_module_from_bytes(f.read())
    assert lib["list_module_names"]() == ["default"]


def test_failing_model_raises_model_error(tvm, models):
    from aotrt.runtime.executor import AotModule
    import numpy as np
    ex = AotModule(tvm.runtime.load_module(model_path(models, "failing_c"))["default"](tvm.cpu(0)))
    for _ in range(3):
        with pytest.raises(tvm.error.ModelError, match="operator failed on purpose"):
            ex.run(a=np.zeros(2, np.float32), b=np.zeros(2, np.float32))

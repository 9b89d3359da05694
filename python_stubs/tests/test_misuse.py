"""Misuse of the Python package (issue 12 item 6): type keys are freed, big-endian data is converted,
a freed NDArray raises instead of crashing, and a string where an array is expected names the input."""
import numpy as np
import pytest

from conftest import model_path
from test_leaks import growth


def test_type_key_copies_are_freed(tvm, models):
    """TVMObjectTypeIndex2Key returns a heap copy the caller frees (c_runtime_api.h)."""
    from aotrt import _ffi, packed_func
    lib = tvm.runtime.load_module(model_path(models, "add_c"))
    freed = []
    real_free = _ffi.free
    _ffi.free = lambda p: (freed.append(p), real_free(p))
    try:
        packed_func._TYPE_KEYS.clear()
        assert packed_func.object_type_key(lib.handle.value) == "runtime.Module"
    finally:
        _ffi.free = real_free
    assert len(freed) == 1 and freed[0]
    assert growth(lambda: packed_func.object_type_key(lib.handle.value), 200000) < 1 << 20


@pytest.mark.parametrize("dtype", [">f4", ">i8", ">u2", ">f8"])
def test_big_endian_arrays_are_converted(tvm, dtype):
    src = np.arange(12, dtype=dtype).reshape(3, 4)
    arr = tvm.nd.array(src)
    assert arr.dtype == np.dtype(dtype).newbyteorder("=").name
    np.testing.assert_array_equal(arr.numpy(), src)
    np.testing.assert_array_equal(tvm.nd.array(src[:, ::2]).numpy(), src[:, ::2])   # strided too


def test_big_endian_arrays_as_function_arguments(tvm):
    dst = tvm.nd.empty((4,), "float32")
    tvm.get_global_func("tvm.contrib.sort.sort")(np.float32([3, 1, 2, 0]).astype(">f4"), dst, 0, True)
    assert dst.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]


def test_big_endian_set_input_and_nd_array_agree(tvm, add_model):
    big = np.float32([2.5]).astype(">f4")
    add_model.set_input("a", big)
    add_model.set_input("b", tvm.nd.array(big))
    add_model.run()
    assert add_model.get_output(0).numpy().tolist() == [5.0]


def test_ndarray_used_after_explicit_del_raises(tvm):
    arr = tvm.nd.array(np.zeros(3, np.float32))
    other = tvm.nd.array(np.ones(3, np.float32))
    arr.__del__()
    arr.__del__()   # a second explicit call is harmless
    for use in (arr.numpy, lambda: arr.copyfrom(np.ones(3, np.float32)), lambda: arr.copyto(other),
                lambda: other.copyto(arr), arr.to_dlpack, lambda: arr.device, lambda: np.from_dlpack(arr),
                lambda: tvm.get_global_func("tvm.contrib.sort.sort")(arr, other, 0, True)):
        with pytest.raises(ValueError, match="NDArray was freed"):
            use()
    assert other.numpy().tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("value", ["abc", b"xy", ["a", "b"], [[1], [1, 2]], {"a": 1}])
def test_non_numeric_values_name_the_input(tvm, value):
    with pytest.raises(tvm.error.InvalidArgumentError, match=r"aotrt\.nd\.array: expected an array-like of numbers, got"):
        tvm.nd.array(value)


def test_string_into_set_input_names_the_input(tvm, add_model):
    with pytest.raises(tvm.error.TypeMismatchError, match=r"input 0 \('a'\).*got <U3"):
        add_model.set_input("a", "abc")


def test_time_evaluator_stops_on_ctrl_c(tvm, add_model):
    """A cooldown of an hour per repeat: SIGINT (Ctrl-C) raises KeyboardInterrupt, and afterwards
    the runtime's interrupt request is withdrawn, so the next timing runs normally."""
    import os
    import signal
    import threading
    timer = add_model.module.time_evaluator("run", tvm.cpu(0), number=1, repeat=3, cooldown_interval_ms=3600000)
    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
    with pytest.raises(KeyboardInterrupt):
        timer()
    assert len(add_model.module.time_evaluator("run", tvm.cpu(0), number=1, repeat=2)().results) == 2


def test_time_evaluator_refuses_absurd_waits(tvm, add_model):
    with pytest.raises(tvm.error.InvalidArgumentError, match="min_repeat_ms must be <= 3600000, got 100000000"):
        add_model.module.time_evaluator("run", tvm.cpu(0), min_repeat_ms=10 ** 8)
    with pytest.raises(tvm.error.InvalidArgumentError, match="cooldown_interval_ms must be <= 3600000"):
        add_model.module.time_evaluator("run", tvm.cpu(0), cooldown_interval_ms=10 ** 8)


def test_interrupted_error_is_a_keyboard_interrupt(tvm):
    assert issubclass(tvm.error.InterruptedRunError, KeyboardInterrupt)
    assert tvm.error.ERROR_CLASSES[12] is tvm.error.InterruptedRunError


def test_params_path_errors_name_the_path(tvm, tmp_path):
    load = tvm.get_global_func("runtime.LoadParamsFromFile")
    with pytest.raises(tvm.error.TVMIOError, match="params file '%s' is a directory, expected a file" % tmp_path):
        load(str(tmp_path))
    with pytest.raises(tvm.error.NotFoundError, match="params file '%s/missing.params': No such file" % tmp_path):
        load(str(tmp_path / "missing.params"))
    save = tvm.get_global_func("runtime.SaveParamsToFile")
    with pytest.raises(tvm.error.TVMIOError, match="cannot open '%s' for writing: Is a directory" % tmp_path):
        save(tvm.get_global_func("runtime.Map")(), str(tmp_path))

"""PackedFunc argument and return conversion, globals and Python callbacks."""
import numpy as np
import pytest


def test_globals(tvm):
    names = tvm.list_global_func_names()
    assert "runtime.ArraySize" in names
    assert tvm.get_global_func("runtime.ArraySize").is_global
    assert tvm.get_global_func("no.such.function", allow_missing=True) is None
    with pytest.raises(ValueError):
        tvm.get_global_func("no.such.function")
    with pytest.raises(tvm.TVMError):
        tvm.get_global_func("no.such.function")


def test_callback_argument_kinds(tvm, models):
    seen = []

    def record(*args):
        # tensor arguments are views valid only during the call (as in TVM): read them now
        seen.append(tuple(a.numpy() if isinstance(a, tvm.nd.NDArray) else a for a in args))
        return len(args)

    f = tvm.convert_to_tvm_func(record)
    lib = tvm.runtime.load_module(models + "/add_c.so")
    nd = tvm.nd.array(np.arange(3, dtype=np.int32))
    other = tvm.get_global_func("runtime.ArraySize")
    assert f(1, 2.5, True, "héllo", b"\x00\x01", tvm.cpu(0), tvm.DataType("int8"), nd,
             np.arange(2, dtype=np.float32), lib, other, None, np.int64(7)) == 13
    (i, fl, b, s, by, dev, dt, a, npa, mod, func, none, n64), = seen
    assert (i, fl, b, s, by) == (1, 2.5, 1, "héllo", b"\x00\x01")
    assert dev == tvm.cpu(0) and str(dt) == "int8"
    assert a.tolist() == [0, 1, 2] and npa.tolist() == [0.0, 1.0]
    assert isinstance(mod, tvm.Module) and mod.type_key == "AotExecutorFactory"
    assert isinstance(func, tvm.PackedFunc) and none is None and n64 == 7


def test_callback_returns(tvm):
    arr = tvm.nd.array(np.ones(2, np.float32))
    for value in (3, 1.5, "text", b"raw\x00bytes", tvm.cpu(0), None):
        assert tvm.convert_to_tvm_func(lambda v=value: v)() == value
    got = tvm.convert_to_tvm_func(lambda: arr)()
    assert isinstance(got, tvm.nd.NDArray) and got.numpy().tolist() == [1, 1]
    echo = tvm.convert_to_tvm_func(lambda x: x)
    assert echo(arr).same_as(arr)
    m = tvm.convert_to_tvm_func(lambda: echo)()
    assert isinstance(m, tvm.PackedFunc) and m(4) == 4


def test_callback_exception_propagates(tvm):
    def boom(x):
        raise KeyError("boom %d" % x)

    f = tvm.convert_to_tvm_func(boom)
    with pytest.raises(KeyError, match="boom 3"):
        f(3)
    with pytest.raises(TypeError):
        f(object())


def test_register_func(tvm):
    @tvm.register_func("aotrt.test.add_one")
    def add_one(x):
        return x + 1

    assert tvm.get_global_func("aotrt.test.add_one")(41) == 42
    with pytest.raises(tvm.TVMError):
        tvm.register_func("aotrt.test.add_one", lambda x: x)
    tvm.register_func("aotrt.test.add_one", lambda x: x + 2, override=True)
    assert tvm.get_global_func("aotrt.test.add_one")(40) == 42
    tvm.remove_global_func("aotrt.test.add_one")
    assert tvm.get_global_func("aotrt.test.add_one", allow_missing=True) is None


def test_array_returns_list(tvm, models):
    lib = tvm.runtime.load_module(models + "/add_c.so")
    assert lib["list_module_names"]() == ["default"]
    assert lib["remove_params"]()["list_module_names"]() == ["default"]


def test_wrong_argument_types_raise(tvm):
    size = tvm.get_global_func("runtime.ArraySize")
    with pytest.raises(tvm.TVMError):
        size(1)
    with pytest.raises(tvm.TVMError):
        size()
    with pytest.raises(TypeError):
        size(object())
    with pytest.raises(tvm.error.TypeMismatchError):
        size("not an array")
    with pytest.raises(TypeError):                 # TypeMismatchError is a TypeError too
        size(2.0)


def test_error_classes(tvm):
    e = tvm.error
    assert issubclass(e.TVMError, RuntimeError)
    for cls, base in [(e.InvalidArgumentError, ValueError), (e.NotFoundError, LookupError),
                      (e.OutOfRangeError, IndexError), (e.TypeMismatchError, TypeError),
                      (e.ShapeMismatchError, ValueError), (e.TVMIOError, OSError),
                      (e.OutOfMemoryError, MemoryError), (e.TVMNotImplementedError, NotImplementedError)]:
        assert issubclass(cls, e.TVMError) and issubclass(cls, base)
    assert sorted(e.ERROR_CLASSES) == list(range(1, 13))
    assert e.ERROR_CLASSES[9] is e.ModelError and e.ERROR_CLASSES[11] is e.InternalError


def test_tvm_v018_bool_type_code(tvm):
    """TVM v0.18+ sends a bool with type code 15 (kTVMArgBool): a callback receives it as a Python
    bool, and a function returning code 15 gives a bool. This package itself still sends a Python
    bool as an int (code 0), as TVM v0.14's does (ABI.md 11.3c)."""
    import ctypes
    from aotrt import _ffi

    seen = []
    f = tvm.convert_to_tvm_func(lambda *a: seen.append(a))
    values = (_ffi.TVMValue * 2)()
    codes = (ctypes.c_int * 2)(15, 0)
    values[0].v_int64, values[1].v_int64 = 1, 1
    ret, ret_code = _ffi.TVMValue(), ctypes.c_int(4)
    assert _ffi.TVMFuncCall(f.handle, ctypes.addressof(values), ctypes.addressof(codes), 2,
                            ctypes.addressof(ret), ctypes.addressof(ret_code)) == 0
    (flag, one), = seen
    assert flag is True and one == 1 and type(one) is int
    seen.clear()
    f(True)   # sent as code 0, as TVM v0.14 sends it: the callback gets an int
    assert seen == [(1,)] and type(seen[0][0]) is int

    def answer_bool(args, type_codes, num_args, ret_handle, _resource):
        v = _ffi.TVMValue()
        v.v_int64 = 0
        code = ctypes.c_int(15)
        return _ffi.TVMCFuncSetReturn(ret_handle, ctypes.byref(v), ctypes.byref(code), 1)

    cfunc = _ffi.PackedCFunc(answer_bool)
    handle = ctypes.c_void_p()
    assert _ffi.TVMFuncCreateFromCFunc(cfunc, None, ctypes.cast(None, _ffi.PackedCFuncFinalizer),
                                       ctypes.byref(handle)) == 0
    g = tvm.PackedFunc(handle.value)
    assert g() is False

"""NDArray, aotrt.nd, devices, dtypes and DLPack."""
import ctypes
import sys

import numpy as np
import pytest

DTYPES = ["float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_array_roundtrip(tvm, dtype):
    src = (np.arange(24).reshape(2, 3, 4) % 7).astype(dtype)
    a = tvm.nd.array(src)
    assert isinstance(a, tvm.nd.NDArray)
    assert a.shape == (2, 3, 4) and a.dtype == dtype and a.ndim == 3
    assert a.device == tvm.cpu(0)
    got = a.numpy()
    assert got.dtype == src.dtype
    np.testing.assert_array_equal(got, src)
    np.testing.assert_array_equal(a.asnumpy(), src)
    assert a.handle.contents.data % 64 == 0           # runtime allocations are 64-byte aligned


def test_numpy_is_a_copy(tvm):
    a = tvm.nd.array(np.zeros(3, np.float32))
    x = a.numpy()
    x[:] = 5
    assert a.numpy().tolist() == [0, 0, 0]


def test_scalar_empty_and_noncontiguous(tvm):
    s = tvm.nd.array(np.float32(2.5))
    assert s.shape == () and s.numpy() == np.float32(2.5)
    e = tvm.nd.array(np.zeros((0, 3), np.int32))
    assert e.shape == (0, 3) and e.numpy().shape == (0, 3)
    src = np.arange(12, dtype=np.int64).reshape(3, 4).T
    np.testing.assert_array_equal(tvm.nd.array(src).numpy(), src)
    np.testing.assert_array_equal(tvm.nd.array([[1, 2], [3, 4]]).numpy(), [[1, 2], [3, 4]])


def test_empty_copyfrom_copyto(tvm):
    a = tvm.nd.empty((2, 2), "int32")
    assert a.shape == (2, 2) and a.dtype == "int32"
    assert a.copyfrom(np.array([[1, 2], [3, 4]])) is a          # int64 source converted
    b = tvm.nd.empty((2, 2), "int32", tvm.cpu(0))
    assert a.copyto(b) is b
    np.testing.assert_array_equal(b.numpy(), [[1, 2], [3, 4]])
    c = a.copyto(tvm.cpu(0))
    assert isinstance(c, tvm.nd.NDArray) and not c.same_as(a)
    np.testing.assert_array_equal(c.numpy(), a.numpy())
    d = tvm.nd.empty((2, 2), "int32")
    d.copyfrom(a)
    np.testing.assert_array_equal(d.numpy(), a.numpy())
    d[:] = np.zeros((2, 2), np.int32)
    assert d.numpy().sum() == 0
    d[:] = a
    np.testing.assert_array_equal(d.numpy(), a.numpy())
    with pytest.raises(ValueError):
        a.copyfrom(np.zeros(3, np.int32))                        # wrong shape
    with pytest.raises(ValueError):
        d[0] = 1
    with pytest.raises(tvm.TVMError):
        a.copyfrom(tvm.nd.empty((3,), "int32"))
    with pytest.raises(ValueError):
        a.copyto("cpu")
    e = tvm.nd.empty(4, np.float32)
    assert e.shape == (4,) and e.dtype == "float32"


def test_repr_and_array_protocol(tvm):
    a = tvm.nd.array(np.array([1, 2], np.int8))
    assert "shape=(2,)" in repr(a) and "cpu(0)" in repr(a)
    assert str(a) == str(np.array([1, 2], np.int8))
    np.testing.assert_array_equal(np.asarray(a), [1, 2])


def test_vector_lanes(tvm):
    a = tvm.nd.empty((3,), "float32x4")
    assert a.dtype == "float32x4"
    a.copyfrom(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert a.numpy().shape == (3, 4)


def test_numpy_from_dlpack(tvm):
    a = tvm.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert a.__dlpack_device__() == (1, 0)
    x = np.from_dlpack(a)
    np.testing.assert_array_equal(x, np.arange(6).reshape(2, 3))
    assert x.ctypes.data == a.handle.contents.data      # shared memory, no copy
    a.copyfrom(np.full((2, 3), 42, np.float32))          # writes through the runtime are visible
    assert x[0, 0] == 42
    del a                                              # the numpy array keeps the memory alive
    assert x[0, 0] == 42


def test_from_dlpack_numpy_and_roundtrip(tvm):
    src = np.arange(10, dtype=np.int16)
    a = tvm.nd.from_dlpack(src)
    assert a.shape == (10,) and a.dtype == "int16"
    assert a.handle.contents.data == src.ctypes.data   # zero copy
    src[0] = -1
    assert a.numpy()[0] == -1
    b = tvm.nd.from_dlpack(a)                          # our own producer
    assert b.handle.contents.data == a.handle.contents.data
    del src, a
    assert b.numpy()[0] == -1


def test_capsule_consumed_once(tvm):
    a = tvm.nd.array(np.ones(3, np.float32))
    cap = a.to_dlpack()
    b = tvm.nd.from_dlpack(cap)
    with pytest.raises(ValueError):
        tvm.nd.from_dlpack(cap)                        # renamed to used_dltensor
    assert b.numpy().tolist() == [1, 1, 1]
    # an unconsumed capsule frees its DLManagedTensor when dropped
    for _ in range(100):
        a.__dlpack__()
    assert sys.getrefcount(a) >= 2


def test_numpy_that_refuses_a_dtype_raises_its_own_error(tvm):
    """Issue 26: np.from_dlpack of a bool array on a numpy without DLPack bool support dropped our
    capsule with its error pending; the capsule destructor (Python) then turned the error into
    "SystemError: ... returned NULL without setting an exception". It is C now: numpy's error
    comes through, and the array is intact and freed normally."""
    a = tvm.nd.array(np.array([True, False, True]))
    assert a.dtype == "bool"
    try:
        x = np.from_dlpack(a)                            # newer numpy takes it
    except SystemError as e:                            # the bug
        pytest.fail("SystemError from np.from_dlpack: %s" % e)
    except (BufferError, RuntimeError, TypeError, ValueError) as e:
        assert "NULL without setting" not in str(e)
    else:
        assert x.tolist() == [True, False, True]
    assert a.numpy().tolist() == [True, False, True]
    for _ in range(1000):                               # refused capsules are freed, not leaked
        try:
            np.from_dlpack(a)
        except (BufferError, RuntimeError, TypeError, ValueError):
            pass
    assert sys.getrefcount(a) == 2


def test_negative_device_id_is_refused(tvm):
    """Issue 26: TVMArrayAlloc took device id -1."""
    with pytest.raises(tvm.error.InvalidArgumentError,
                       match=r"TVMArrayAlloc: cpu device -1 does not exist \(got device type 1 id -1\)"):
        tvm.nd.empty((2,), "float32", tvm.cpu(-1))
    assert tvm.nd.empty((2,), "float32", tvm.cpu(0)).shape == (2,)


def test_device_and_dtype(tvm):
    assert tvm.cpu(0) == tvm.device("cpu", 0) == tvm.device("llvm") == tvm.device(1, 0)
    assert str(tvm.cpu(0)) == "cpu(0)" and repr(tvm.device("cpu:1")) == "cpu(1)"
    assert tvm.cpu().exist and not tvm.rocm().exist
    assert tvm.cuda(1).device_type == 2 and tvm.cuda(1).device_id == 1
    tvm.cpu(0).sync()
    assert len({tvm.cpu(0), tvm.cpu(0), tvm.cpu(1)}) == 2
    with pytest.raises(ValueError):
        tvm.device("tpu")
    dt = tvm.DataType("float32x4")
    assert (dt.type_code, dt.bits, dt.lanes) == (2, 32, 4) and str(dt) == "float32x4"
    assert tvm.DataType("bool") == "bool" and tvm.DataType(np.int8) == "int8"
    assert isinstance(tvm.cpu(0), ctypes.Structure)


def test_nd_errors_do_not_crash(tvm):
    with pytest.raises(tvm.TVMError):
        tvm.nd.empty((2,), "float32", tvm.rocm(0))
    with pytest.raises(ValueError):
        tvm.nd.empty((2,), "complex_thing")
    with pytest.raises(ValueError):
        tvm.nd.array(np.array(["a"]))

"""NDArray: an owned reference to a runtime NDArray (TVMArrayHandle = the DLTensor inside it).

numpy conversion goes through the data pointer (one memcpy), never element by element.
"""
import ctypes
import math

import numpy as np

from . import _ffi
from .device import DataType, Device, cpu, device, dtype_str, dtype_to_str, parse_dtype, str_to_numpy_dtype
from ._convert import checked_array, native_contiguous, numeric_array, _shape_str as _checked_shape_str
from .error import check_call

__all__ = ["NDArray", "array", "empty", "from_dlpack", "cpu", "device", "Device", "DataType"]

_c_int64 = ctypes.c_int64
_u64x6 = ctypes.c_uint64 * 6          # raw words of a DLTensor: data, device, ndim|dtype, shape, strides, offset
_DLTensor = _ffi.DLTensor
_from_buffer = ctypes.c_char.from_buffer
_addressof = ctypes.addressof
_new = object.__new__


def np_data_ptr(a):
    """Address of a C-contiguous numpy array's first element, without numpy's slow ``ctypes`` helper."""
    try:
        return _addressof(_from_buffer(a))
    except (TypeError, ValueError, BufferError):   # read-only or empty buffer
        return a.ctypes.data


def dltensor_of_numpy(a):
    """A DLTensor over a numpy array's own memory (copied first only if not C-contiguous).

    Returns (tensor, keepalive); the caller must keep ``keepalive`` alive while the tensor is used.
    """
    if not a.flags.c_contiguous or not a.dtype.isnative:
        a = native_contiguous(a)
    code, bits, lanes = parse_dtype(dtype_to_str(a.dtype))
    shape = (_c_int64 * max(a.ndim, 1))(*a.shape)
    t = _DLTensor()
    t.data = np_data_ptr(a)
    t.device.device_type = 1
    t.ndim = a.ndim
    t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, lanes
    t.shape = shape
    return t, a


# numpy views over runtime memory, keyed by (address, shape, dtype): numpy() copies out of them.
# A view is only an address range; it is read only while an NDArray owning that memory is alive.
_VIEWS = {}
_MAX_VIEWS = 512


def _view(ptr, shape, npdt):
    key = (ptr, shape, npdt)
    v = _VIEWS.get(key)
    if v is None:
        count = math.prod(shape)
        if count == 0 or not ptr:
            return np.empty(shape, npdt)
        if len(_VIEWS) >= _MAX_VIEWS:
            _VIEWS.clear()
        buf = (ctypes.c_char * (count * npdt.itemsize)).from_address(ptr)
        v = np.frombuffer(buf, npdt, count=count).reshape(shape)
        _VIEWS[key] = v
    return v


_NP_LAYOUTS = {}


def _np_layout(dtype):
    """TVM dtype string -> (numpy dtype of one lane, lanes), cached."""
    hit = _NP_LAYOUTS.get(dtype)
    if hit is None:
        code, bits, lanes = parse_dtype(dtype)
        hit = _NP_LAYOUTS[dtype] = (str_to_numpy_dtype(dtype_str(code, bits, 1)), lanes)
    return hit


class NDArray:
    """A runtime NDArray. ``numpy()`` copies; ``__dlpack__`` shares memory (numpy.from_dlpack works)."""

    __slots__ = ("_h", "is_view", "_shape", "_dtype", "_base", "__weakref__")

    def __init__(self, handle, is_view=False):
        if isinstance(handle, (ctypes.c_void_p, _ffi.DLTensorPtr)):
            handle = ctypes.cast(handle, ctypes.c_void_p).value
        self._h = int(handle)
        self.is_view = is_view
        self._shape = None
        self._dtype = None
        self._base = None

    @property
    def handle(self):
        """ctypes pointer to the DLTensor (TVM's ``NDArray.handle``)."""
        return ctypes.cast(self._h, _ffi.DLTensorPtr)

    @property
    def _tvm_handle(self):
        return self._h

    def _live(self):
        """The handle; ValueError once the array was freed (an explicit ``__del__``)."""
        h = self._h
        if not h:
            raise ValueError("this NDArray was freed (its __del__ was called) and cannot be used")
        return h

    def _tensor(self):
        return _DLTensor.from_address(self._live())

    @property
    def shape(self):
        """Shape as a tuple of ints."""
        s = self._shape
        if s is None:
            t = self._tensor()
            s = self._shape = tuple(t.shape[i] for i in range(t.ndim))
        return s

    @property
    def dtype(self):
        """Data type string, e.g. ``"float32"``."""
        d = self._dtype
        if d is None:
            t = self._tensor().dtype
            d = self._dtype = dtype_str(t.code, t.bits, t.lanes)
        return d

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def device(self):
        t = self._tensor()
        return Device(t.device.device_type, t.device.device_id)

    def _numpy_layout(self):
        """(shape, numpy dtype) of the numpy equivalent; vector lanes become a last axis (as TVM)."""
        npdt, lanes = _np_layout(self.dtype)
        return (self.shape if lanes == 1 else self.shape + (lanes,)), npdt

    def numpy(self):
        """A numpy copy of the contents (copied from the device for a device array)."""
        raw = _u64x6.from_address(self._h or self._live())
        shape, npdt = self._numpy_layout()
        if self._tensor().device.device_type not in (1, 3):  # device memory: its driver copies it out
            out = np.empty(shape, npdt)
            check_call(_ffi.TVMArrayCopyToBytes(self._live(), np_data_ptr(out) if out.nbytes else None, out.nbytes))
            return out
        if raw[4]:  # explicit strides (in elements): copy through an as_strided view
            t = self._tensor()
            el_strides = [t.strides[i] for i in range(t.ndim)]
            if not all(self.shape):
                return np.empty(shape, npdt)
            span = 1 + sum((n - 1) * s for n, s in zip(self.shape, el_strides))
            base = _view(raw[0] + raw[5], (span,), npdt)
            return np.lib.stride_tricks.as_strided(base, shape, [s * npdt.itemsize for s in el_strides]).copy()
        return _view(raw[0] + raw[5], shape, npdt).copy()

    def asnumpy(self):
        """Alias of numpy() (older TVM name)."""
        return self.numpy()

    def __array__(self, dtype=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def copyfrom(self, source_array):
        """Copy from an NDArray or anything numpy.asarray accepts, converted to this dtype by the
        runtime's one rule, as set_input does (aotrt._convert; TypeMismatchError/ShapeMismatchError)."""
        if isinstance(source_array, NDArray):
            check_call(_ffi.TVMArrayCopyFromTo(source_array._live(), self._live(), None))
            return self
        shape, npdt = self._numpy_layout()
        src = checked_array(source_array, npdt, shape, "NDArray %s %s" % (_checked_shape_str(shape), self.dtype))
        check_call(_ffi.TVMArrayCopyFromBytes(self._live(), np_data_ptr(src) if src.nbytes else None, src.nbytes))
        return self

    def copyto(self, target, mem_scope=None):
        """Copy into an NDArray (returned) or onto a Device (a new NDArray)."""
        if isinstance(target, NDArray):
            check_call(_ffi.TVMArrayCopyFromTo(self._live(), target._live(), None))
            return target
        if isinstance(target, _ffi.DLDevice):
            res = empty(self.shape, self.dtype, target, mem_scope)
            check_call(_ffi.TVMArrayCopyFromTo(self._live(), res._h, None))
            return res
        raise ValueError("Unsupported target type %s" % str(type(target)))

    def _copyto(self, target_nd):
        return self.copyto(target_nd)

    def __setitem__(self, in_slice, value):
        """Only ``arr[:] = value`` is supported (as in TVM)."""
        if not isinstance(in_slice, slice) or in_slice.start is not None or in_slice.stop is not None:
            raise ValueError("Array only support set from numpy array")
        if isinstance(value, NDArray):
            if value._h != self._h:
                value.copyto(self)
        elif isinstance(value, (np.ndarray, np.generic)):
            self.copyfrom(value)
        else:
            raise TypeError("type %s not supported" % str(type(value)))

    def same_as(self, other):
        return isinstance(other, NDArray) and other._h == self._h

    # --- DLPack ---------------------------------------------------------------------------------
    def to_dlpack(self):
        """A PyCapsule "dltensor" holding a DLManagedTensor that shares this array's memory."""
        out = ctypes.c_void_p()
        check_call(_ffi.TVMArrayToDLPack(self._live(), ctypes.byref(out)))
        try:
            return _ffi.PyCapsule_New(out.value, _DLTENSOR, _capsule_destructor)
        except BaseException:
            _ffi.TVMDLManagedTensorCallDeleter(out.value)
            raise

    def __dlpack__(self, stream=None):
        if stream is not None and stream != -1:
            raise BufferError("aotrt arrays take no DLPack stream: stream must be None")
        return self.to_dlpack()

    def __dlpack_device__(self):
        t = self._tensor()
        return (int(t.device.device_type), int(t.device.device_id))

    def __repr__(self):
        return "<aotrt.nd.NDArray shape={0}, {1}>\n{2!r}".format(self.shape, self.device, self.numpy())

    def __str__(self):
        return str(self.numpy())

    def __del__(self, _free=_ffi.TVMArrayFree):
        h = getattr(self, "_h", 0)
        if h and not self.is_view:
            self._h = 0
            _free(h)


def _make(handle, shape=None, dtype=None):
    """NDArray owning ``handle`` (a new reference), with optionally known shape/dtype."""
    a = _new(NDArray)
    a._h = handle
    a.is_view = False
    a._shape = shape
    a._dtype = dtype
    a._base = None
    return a


def _make_view(handle, base=None):
    """NDArray over a DLTensor it does not own (kept valid by ``base`` or the caller)."""
    a = _make(handle)
    a.is_view = True
    a._base = base
    return a


# Capsule names must outlive the capsules: module-level constants.
_DLTENSOR = ctypes.c_char_p(b"dltensor")
_USED_DLTENSOR = ctypes.c_char_p(b"used_dltensor")


# The runtime's capsule destructor (C): a consumer that fails, e.g. numpy refusing the bool dtype,
# drops the capsule with its exception pending, when no Python code may run (a destructor in Python
# turned numpy's error into "SystemError ... returned NULL without setting an exception").
_capsule_destructor = ctypes.cast(_ffi.AOTRTDLPackCapsuleDestructor, _ffi._PyCapsuleDestructor)


def empty(shape, dtype="float32", device=cpu(0), mem_scope=None):
    """A new uninitialised array (64-byte aligned)."""
    if mem_scope not in (None, "global"):
        raise ValueError("aotrt supports only the global memory scope, got %r" % mem_scope)
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    if isinstance(dtype, (np.dtype, type)):
        dtype = dtype_to_str(np.dtype(dtype))
    code, bits, lanes = parse_dtype(str(dtype))
    c_shape = (_c_int64 * max(len(shape), 1))(*shape)
    out = ctypes.c_void_p()
    check_call(_ffi.TVMArrayAlloc(c_shape, len(shape), code, bits, lanes, device.device_type, device.device_id,
                                  ctypes.byref(out)))
    return _make(out.value, shape, dtype_str(code, bits, lanes))


def array(arr, device=cpu(0), mem_scope=None):
    """Copy a numpy array (or array_like, or NDArray) into a new NDArray on ``device``."""
    if isinstance(arr, NDArray):
        return arr.copyto(device, mem_scope)
    arr = numeric_array(arr, "aotrt.nd.array")
    src = native_contiguous(arr)   # the same conversion as set_input: big-endian data is swapped
    res = empty(src.shape, dtype_to_str(src.dtype), device, mem_scope)
    if src.nbytes:
        check_call(_ffi.TVMArrayCopyFromBytes(res._h, np_data_ptr(src), src.nbytes))
    return res


def from_dlpack(dltensor):
    """Zero-copy NDArray from a DLPack producer (an object with ``__dlpack__``, or a capsule)."""
    capsule = dltensor.__dlpack__() if hasattr(dltensor, "__dlpack__") else dltensor
    ptr = _ffi.PyCapsule_GetPointer(capsule, _DLTENSOR)   # ValueError if already consumed
    out = ctypes.c_void_p()
    check_call(_ffi.TVMArrayFromDLPack(ptr, ctypes.byref(out)))
    # The runtime now owns the DLManagedTensor: mark the capsule consumed so nobody else deletes it.
    _ffi.PyCapsule_SetName(capsule, _USED_DLTENSOR)
    _ffi.PyCapsule_SetDestructor(capsule, None)
    return _make(out.value)

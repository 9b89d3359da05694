"""PackedFunc calls: Python values -> TVMValue/type codes, results -> Python values, callbacks."""
import ctypes
import itertools
import numbers

import numpy as np

from . import _ffi
from ._ffi import TVMValue
from .device import DataType, dtype_to_str
from .error import GlobalFuncNotFoundError, _callback_error, check_call, last_error
from .ndarray import NDArray, _make, _make_view, dltensor_of_numpy

_c_int = ctypes.c_int
_addressof = ctypes.addressof
_FuncCall = _ffi.TVMFuncCall

# Set by module.py (it imports this file): the class wrapping module handles.
_MODULE_CLASS = None


class Object:
    """An opaque runtime object (type code 8) this package has no Python class for."""

    __slots__ = ("handle", "__weakref__")

    def __init__(self, handle):
        self.handle = ctypes.c_void_p(handle)

    @property
    def type_key(self):
        return object_type_key(self.handle.value)

    def same_as(self, other):
        return isinstance(other, Object) and other.handle.value == self.handle.value

    def __repr__(self):
        return "Object(%s, 0x%x)" % (self.type_key, self.handle.value)

    def __del__(self, _free=_ffi.TVMObjectFree):
        h = self.handle.value if getattr(self, "handle", None) is not None else None
        if h:
            self.handle = None
            _free(h)


_TYPE_KEYS = {}   # type index -> key: the runtime's types are fixed


def object_type_key(h):
    idx = ctypes.c_uint()
    check_call(_ffi.TVMObjectGetTypeIndex(h, ctypes.byref(idx)))
    key = _TYPE_KEYS.get(idx.value)
    if key is None:
        ptr = ctypes.c_void_p()
        check_call(_ffi.TVMObjectTypeIndex2Key(idx.value, ctypes.byref(ptr)))
        try:
            key = _TYPE_KEYS[idx.value] = ctypes.string_at(ptr.value).decode()
        finally:
            _ffi.free(ptr.value)   # the caller owns the copy (c_runtime_api.h)
    return key


class PackedFunc:
    """A callable runtime function (owned handle)."""

    __slots__ = ("handle", "is_global", "_h", "__weakref__")

    def __init__(self, handle, is_global=False):
        self._h = handle
        self.handle = ctypes.c_void_p(handle)
        self.is_global = is_global

    def __call__(self, *args):
        values, codes, keep = make_args(args)
        ret, ret_code = TVMValue(), _c_int()
        rc = _FuncCall(self._h, _addressof(values), _addressof(codes), len(args), _addressof(ret),
                       _addressof(ret_code))
        del keep
        if rc != 0:
            raise last_error()
        return return_value(ret, ret_code.value)

    def __repr__(self):
        return "PackedFunc(0x%x)" % self._h

    def __del__(self, _free=_ffi.TVMFuncFree):
        h = getattr(self, "_h", None)
        if h:
            self._h = None
            _free(h)


# --- arguments ----------------------------------------------------------------------------------------

def make_args(args):
    """(TVMValue array, type-code array, objects that must stay alive during the call)."""
    n = len(args)
    values = (TVMValue * n)()
    codes = (_c_int * n)()
    keep = []
    for i, a in enumerate(args):
        codes[i] = _set_arg(values[i], a, keep)
    return values, codes, keep


def _set_arg(v, a, keep):
    """Store ``a`` into TVMValue ``v``; returns the type code."""
    if a is None:
        v.v_handle = None
        return _ffi.kNull
    if isinstance(a, NDArray):
        v.v_handle = a._live()
        return _ffi.kDLTensor if a.is_view else _ffi.kNDArray
    if isinstance(a, (bool, np.bool_)):
        v.v_int64 = int(a)
        return _ffi.kInt
    if isinstance(a, numbers.Integral):
        v.v_int64 = int(a)
        return _ffi.kInt
    if isinstance(a, numbers.Real):
        v.v_float64 = float(a)
        return _ffi.kFloat
    if isinstance(a, str):
        b = a.encode("utf-8")
        keep.append(b)
        v.v_str = b
        return _ffi.kStr
    if isinstance(a, (bytes, bytearray, memoryview)):
        b = bytes(a)
        arr = _ffi.TVMByteArray(ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p), len(b))
        keep.append((b, arr))
        v.v_handle = _addressof(arr)
        return _ffi.kBytes
    if isinstance(a, np.ndarray):
        t, base = dltensor_of_numpy(a)
        keep.append((t, base))
        v.v_handle = _addressof(t)
        return _ffi.kDLTensor
    if isinstance(a, _ffi.DLDevice):
        v.v_device = a
        return _ffi.kDevice
    if isinstance(a, _ffi.DLDataType):
        v.v_type = a
        return _ffi.kDataType
    if isinstance(a, np.dtype):
        v.v_type = DataType(dtype_to_str(a))
        return _ffi.kDataType
    if _MODULE_CLASS is not None and isinstance(a, _MODULE_CLASS):
        v.v_handle = a.handle.value
        return _ffi.kModule
    if isinstance(a, PackedFunc):
        v.v_handle = a._h
        return _ffi.kFunc
    if isinstance(a, Object):
        v.v_handle = a.handle.value
        return _ffi.kObject
    if isinstance(a, ctypes.c_void_p):
        v.v_handle = a.value
        return _ffi.kHandle
    if isinstance(a, np.generic):
        return _set_arg(v, a.item(), keep)
    if isinstance(a, (dict, list, tuple)):   # containers become Map / Array objects, as TVM's convert
        obj = _container(a)
        keep.append(obj)
        v.v_handle = obj.handle.value
        return _ffi.kObject
    if callable(a):
        f = convert_to_tvm_func(a)
        keep.append(f)
        v.v_handle = f._h
        return _ffi.kFunc
    raise TypeError("Don't know how to handle type %s" % type(a))


def _new_object(name, *args):
    """Call global ``name`` and keep its object result as an Object (not decoded)."""
    values, codes, keep = make_args(args)
    ret, ret_code = TVMValue(), _c_int()
    check_call(_FuncCall(_global(name)._h, _addressof(values), _addressof(codes), len(args), _addressof(ret),
                         _addressof(ret_code)))
    del keep
    return Object(ret.v_handle)


def _container(a):
    """A dict as a runtime.Map, a list/tuple as a runtime.Array, as TVM's convert (strings become
    String objects)."""
    def item(x):
        if isinstance(x, str):
            return _new_object("runtime.String", x)
        return _container(x) if isinstance(x, (dict, list, tuple)) else x
    if isinstance(a, dict):
        return _new_object("runtime.Map", *[item(x) for kv in a.items() for x in kv])
    return _new_object("runtime.Array", *[item(x) for x in a])


# --- return values --------------------------------------------------------------------------------

def return_value(v, code):
    """Convert a TVMValue returned by TVMFuncCall (ownership of handles moves to Python)."""
    if code == _ffi.kNull:
        return None
    if code == _ffi.kInt:
        return v.v_int64
    if code == _ffi.kBool:
        return bool(v.v_int64)
    if code == _ffi.kFloat:
        return v.v_float64
    if code == _ffi.kStr:
        s = v.v_str   # copied now: the runtime's thread-local buffer is reused by the next call
        return s.decode("utf-8", "replace") if s is not None else ""
    if code == _ffi.kNDArray:
        return _make(v.v_handle)
    if code == _ffi.kModule:
        return _MODULE_CLASS(v.v_handle)
    if code == _ffi.kFunc:
        return PackedFunc(v.v_handle)
    if code == _ffi.kObject:
        return _object_value(v.v_handle)
    if code == _ffi.kBytes:
        arr = _ffi.TVMByteArray.from_address(v.v_handle)
        return ctypes.string_at(arr.data, arr.size) if arr.size else b""
    if code == _ffi.kHandle:
        return ctypes.c_void_p(v.v_handle)
    if code == _ffi.kDevice:
        from .device import Device
        return Device(v.v_device.device_type, v.v_device.device_id)
    if code == _ffi.kDataType:
        return DataType(v.v_type)
    if code == _ffi.kDLTensor:
        return _make_view(v.v_handle)
    raise TypeError("unexpected return type code %d" % code)


_kTypeString, _kTypeArray, _kTypeMap, _kTypeShapeTuple = 3, 4, 5, 6   # TVM's type indices
_kTypeProfileReport = 11   # aotrt's index of runtime.profiling.Report


class Report(Object):
    """TVM's ``runtime.profiling.Report``, as the graph debug executor's ``profile()`` returns it:
    ``table()``, ``csv()``, ``json()`` (rows by cost, highest first)."""

    __slots__ = ()

    def table(self, sort=True, aggregate=True, col_sums=True):
        return _global("runtime.profiling.AsTable")(self, sort, aggregate, col_sums)

    def csv(self):
        return _global("runtime.profiling.AsCSV")(self)

    def json(self):
        return _global("runtime.profiling.AsJSON")(self)

    def __str__(self):
        return self.table()


def _object_value(h):
    """An owned object handle -> Python: String -> str, Array -> list, Map -> dict, ShapeTuple ->
    tuple of int, a profiling report -> Report, anything else -> Object."""
    obj = Object(h)   # frees h when dropped
    idx = ctypes.c_uint()
    check_call(_ffi.TVMObjectGetTypeIndex(h, ctypes.byref(idx)))
    idx = idx.value
    if idx == _kTypeProfileReport:
        obj.__class__ = Report
    if idx == _kTypeString:
        return _global("runtime.GetFFIString")(obj)
    if idx == _kTypeArray:
        size, get = _global("runtime.ArraySize"), _global("runtime.ArrayGetItem")
        return [get(obj, i) for i in range(size(obj))]
    if idx == _kTypeMap:
        flat = _global("runtime.MapItems")(obj)
        return dict(zip(flat[0::2], flat[1::2]))
    if idx == _kTypeShapeTuple:
        size, get = _global("runtime.GetShapeTupleSize"), _global("runtime.GetShapeTupleElem")
        return tuple(get(obj, i) for i in range(size(obj)))
    return obj


# --- global functions -------------------------------------------------------------------------------

_GLOBAL_CACHE = {}


def _global(name):
    f = _GLOBAL_CACHE.get(name)
    if f is None:
        f = _GLOBAL_CACHE[name] = get_global_func(name)
    return f


def get_global_func(name, allow_missing=False):
    """The registered global function ``name``; None (allow_missing) or GlobalFuncNotFoundError if absent."""
    h = ctypes.c_void_p()
    check_call(_ffi.TVMFuncGetGlobal(_ffi.c_str(name), ctypes.byref(h)))
    if h.value:
        return PackedFunc(h.value, is_global=True)   # a new reference (ABI.md 3)
    if allow_missing:
        return None
    raise GlobalFuncNotFoundError("Cannot find global function %s" % name)


def list_global_func_names():
    size = _c_int()
    names = ctypes.POINTER(ctypes.c_char_p)()
    check_call(_ffi.TVMFuncListGlobalNames(ctypes.byref(size), ctypes.byref(names)))
    return [names[i].decode() for i in range(size.value)]


def register_func(func_name, f=None, override=False):
    """Register a Python function as a global (also usable as a decorator, like TVM's)."""
    if callable(func_name):
        f, func_name = func_name, func_name.__name__

    def register(myf):
        pf = myf if isinstance(myf, PackedFunc) else convert_to_tvm_func(myf)
        check_call(_ffi.TVMFuncRegisterGlobal(_ffi.c_str(func_name), pf._h, 1 if override else 0))
        _GLOBAL_CACHE.pop(func_name, None)
        return myf

    return register(f) if f is not None else register


def remove_global_func(name):
    check_call(_ffi.TVMFuncRemoveGlobal(_ffi.c_str(name)))
    _GLOBAL_CACHE.pop(name, None)


# --- Python callables as PackedFuncs ---------------------------------------------------------------

_CALLBACKS = {}              # resource handle -> Python callable (dropped by the finalizer)
_next_id = itertools.count(1)


def _callback_arg(values, codes, i):
    """Argument i of a callback as a Python value; object handles get their own reference."""
    v = TVMValue.from_address(values + i * ctypes.sizeof(TVMValue))
    code = _c_int.from_address(codes + i * ctypes.sizeof(_c_int)).value
    if code in (_ffi.kObject, _ffi.kModule, _ffi.kFunc, _ffi.kNDArray, _ffi.kObjectRValueRef):
        code_box = _c_int(code)
        check_call(_ffi.TVMCbArgToReturn(_addressof(v), _addressof(code_box)))   # borrowed -> owned
        code = code_box.value
    return return_value(v, code)


def _trampoline(values, codes, num_args, ret, resource):
    try:
        f = _CALLBACKS[resource]
        args = [_callback_arg(values, codes, i) for i in range(num_args)]
        result = f(*args)
        if result is not None:
            rv, rc, keep = make_args((result,))
            check_call(_ffi.TVMCFuncSetReturn(ret, _addressof(rv), _addressof(rc), 1))
            del keep
        return 0
    except BaseException as e:  # noqa: B902 - never let an exception cross into C
        _callback_error.exc = e
        _ffi.TVMAPISetLastError(("%s: %s" % (type(e).__name__, e)).encode("utf-8", "replace"))
        return -1


def _finalize(resource):
    _CALLBACKS.pop(resource, None)


_c_trampoline = _ffi.PackedCFunc(_trampoline)
_c_finalizer = _ffi.PackedCFuncFinalizer(_finalize)


def convert_to_tvm_func(pyfunc):
    """Wrap a Python callable as a PackedFunc (exceptions become runtime errors)."""
    key = next(_next_id)
    _CALLBACKS[key] = pyfunc
    h = ctypes.c_void_p()
    rc = _ffi.TVMFuncCreateFromCFunc(_c_trampoline, key, _c_finalizer, ctypes.byref(h))
    if rc != 0:
        _CALLBACKS.pop(key, None)
        raise last_error()
    return PackedFunc(h.value)

"""Values given to a tensor of another dtype: converted by the runtime's one rule.

TVM's Python converts anything numpy can convert (300 into int8 becomes 44, 3.7 becomes 3, 1e300
into float32 becomes inf). aotrt has one rule for every input path (C++ SetInput, the packed
set_input, the CLI, AotModule.set_input, NDArray.copyfrom, aotrt.dask), implemented once in the
runtime (aotrt::ConvertTensor, reached here through AOTRTArrayCopyConverted) and written down in
the README ("Inputs in another dtype"): a conversion is accepted when every value survives it
(integers that fit, integers exactly representable in a float, floats that stay finite in a
narrower float, bool into anything); a float into an integer or bool, and anything but bool into
bool, are refused whatever the values. Errors name the tensor, the value and its index.
"""
import ctypes

import numpy as np

from . import _ffi
from .device import dtype_to_str, parse_dtype
from .error import InvalidArgumentError, ShapeMismatchError, TypeMismatchError, last_error


def _shape_str(shape):
    return "[" + ", ".join(str(int(d)) for d in shape) + "]"


def native_contiguous(arr, dtype=None):
    """``arr`` as a C-contiguous array in the machine's byte order (of ``dtype`` if given): the bytes
    the runtime copies. A big-endian array is byte-swapped here, not copied raw."""
    if dtype is None:
        dtype = arr.dtype.newbyteorder("=")
    return arr.astype(dtype, order="C", copy=False)   # not ascontiguousarray: it makes 0-d arrays 1-d


def numeric_array(value, what):
    """``value`` as a numpy array of numbers (bool, int, uint, float); InvalidArgumentError (a
    ValueError) naming ``what`` for anything else (strings, objects, ragged lists)."""
    try:
        arr = np.asarray(value)
    except Exception as e:   # numpy raises ValueError/TypeError for ragged or odd objects
        raise InvalidArgumentError("%s: expected an array-like of numbers, got %s (%s)"
                                % (what, type(value).__name__, e)) from None
    if arr.dtype.kind not in "biuf":
        raise InvalidArgumentError("%s: expected an array-like of numbers, got %s (numpy dtype %s)"
                                % (what, type(value).__name__, arr.dtype))
    return arr


def _tensor(arr):
    """A DLTensor over the C-contiguous native array ``arr`` (kept alive by the caller)."""
    code, bits, lanes = parse_dtype(dtype_to_str(arr.dtype))
    shape = (ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape)
    t = _ffi.DLTensor()
    t.data = arr.ctypes.data if arr.size else None
    t.device.device_type = 1
    t.ndim = arr.ndim
    t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, lanes
    t.shape = shape
    return t, shape


def check_conversion(from_dtype, to_dtype, what):
    """The dtype part of the rule alone (numpy dtypes): TypeMismatchError naming ``what`` when no
    value of ``from_dtype`` would be accepted into ``to_dtype``; the runtime decides."""
    from_dtype, to_dtype = np.dtype(from_dtype), np.dtype(to_dtype)
    if from_dtype.kind not in "biuf":
        raise TypeMismatchError("%s: expected dtype %s, got %s: not an array of numbers" % (what, to_dtype, from_dtype))
    f = parse_dtype(dtype_to_str(from_dtype))
    t = parse_dtype(dtype_to_str(to_dtype))
    if _ffi.AOTRTCheckConversion(f[0], f[1], f[2], t[0], t[1], t[2], what.encode()) != 0:
        raise last_error()


def checked_array(value, npdt, shape, what):
    """``value`` as a C-contiguous numpy array of dtype ``npdt`` and shape ``shape``.

    ``what`` names the destination in errors, e.g. "input 1 ('s')". Raises TypeMismatchError for
    a value that is not an array of numbers, or whose conversion to ``npdt`` the runtime's rule
    refuses (naming the first value that does not survive); ShapeMismatchError for a shape other
    than ``shape``.
    """
    try:
        arr = np.asarray(value)
    except Exception as e:   # numpy raises ValueError/TypeError for ragged or odd objects
        raise TypeMismatchError("%s: expected an array-like of dtype %s, got %s (%s)"
                                % (what, npdt, type(value).__name__, e)) from None
    if arr.dtype.kind not in "biuf":
        raise TypeMismatchError("%s: expected dtype %s, got %s: not an array of numbers (a %s)"
                                % (what, npdt, arr.dtype, type(value).__name__))
    if arr.shape != tuple(shape):
        raise ShapeMismatchError("%s: expected shape %s, got %s (dtype %s)"
                                 % (what, _shape_str(shape), _shape_str(arr.shape), arr.dtype))
    src = native_contiguous(arr)
    if src.dtype == npdt:
        return src
    out = np.empty(src.shape, npdt)
    ts, keep_s = _tensor(src)
    td, keep_d = _tensor(out)
    if _ffi.AOTRTArrayCopyConverted(ctypes.addressof(ts), ctypes.addressof(td), what.encode()) != 0:
        raise last_error()
    return out

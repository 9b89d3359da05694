"""Conversion of Python values to a tensor's dtype, with the checks C++ and the CLI make.

TVM's Python converts anything numpy can convert (300 into int8 becomes 44, 3.7 becomes 3). We keep
the conversions that keep the kind of value (float64 -> float32, int64 -> int32 whose values fit,
bool -> int) and refuse the rest, naming the tensor and both dtypes, as the C++ executor does.
"""
import numpy as np

from .error import InvalidArgumentError, ShapeMismatchError, TypeMismatchError

_INT_KINDS = "iu"


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


def _check_integers_fit(arr, npdt, what):
    """Integer -> integer: accepted when every value is representable (checked, not wrapped)."""
    if arr.size == 0 or np.can_cast(arr.dtype, npdt, casting="safe"):
        return
    info = np.iinfo(npdt)
    lo, hi = arr.min(), arr.max()
    if lo < info.min or hi > info.max:
        raise TypeMismatchError(
            "%s: expected dtype %s, got %s with values outside %s's range [%d, %d] (min %d, max %d); "
            "they would wrap around" % (what, npdt, arr.dtype, npdt, info.min, info.max, lo, hi))


def checked_array(value, npdt, shape, what):
    """``value`` as a C-contiguous numpy array of dtype ``npdt`` and shape ``shape``.

    ``what`` names the destination in errors, e.g. "input 1 ('s')". Raises TypeMismatchError for a
    value that is not array-like, a conversion numpy's same_kind casting refuses (float into int,
    anything but bool into bool, ...) or integers that do not fit; ShapeMismatchError for a shape
    other than ``shape``.
    """
    try:
        arr = np.asarray(value)
    except Exception as e:   # numpy raises ValueError/TypeError for ragged or odd objects
        raise TypeMismatchError("%s: expected an array-like of dtype %s, got %s (%s)"
                                % (what, npdt, type(value).__name__, e)) from None
    if arr.dtype != npdt:
        both_int = arr.dtype.kind in _INT_KINDS and npdt.kind in _INT_KINDS
        if both_int:
            _check_integers_fit(arr, npdt, what)
        elif not np.can_cast(arr.dtype, npdt, casting="same_kind"):
            raise TypeMismatchError(
                "%s: expected dtype %s, got %s: the conversion would change the kind of value "
                "(numpy.can_cast(..., casting='same_kind') refuses it); convert explicitly, "
                "e.g. with .astype('%s'), if that is what you mean" % (what, npdt, arr.dtype, npdt))
    if arr.shape != tuple(shape):
        raise ShapeMismatchError("%s: expected shape %s, got %s (dtype %s)"
                                 % (what, _shape_str(shape), _shape_str(arr.shape), arr.dtype))
    return native_contiguous(arr, npdt)

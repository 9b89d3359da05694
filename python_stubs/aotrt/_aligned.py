"""Writable numpy arrays over aligned memory, for the executor's zero-copy setters.

numpy's allocator gives 16-byte alignment at best, and the executor (like TVM's generated code)
needs 64; np.from_dlpack of an NDArray is read-only under some numpy builds. These helpers give
ordinary, writable numpy arrays instead.
"""
import math

import numpy as np

ALIGNMENT = 64   # what set_input_zero_copy / set_output_zero_copy require (kAllocAlignment)


def empty_aligned(shape, dtype="float32", alignment=ALIGNMENT):
    """A new, uninitialised, writable, C-contiguous numpy array whose data is ``alignment``-byte
    aligned: numpy memory (over-allocated and sliced), freed when the array and its views are."""
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("empty_aligned: negative dimension in shape %s" % (shape,))
    if alignment <= 0 or alignment & (alignment - 1):
        raise ValueError("empty_aligned: alignment must be a power of two, got %r" % (alignment,))
    npdt = np.dtype(dtype)
    nbytes = math.prod(shape) * npdt.itemsize
    raw = np.empty(nbytes + alignment, np.uint8)
    offset = (-raw.ctypes.data) % alignment
    return raw[offset:offset + nbytes].view(npdt).reshape(shape)


def zeros_aligned(shape, dtype="float32", alignment=ALIGNMENT):
    """empty_aligned, filled with zeros."""
    arr = empty_aligned(shape, dtype, alignment)
    arr.fill(0)
    return arr


class _Memory:
    """Exposes runtime memory to numpy as writable, keeping ``owner`` (what owns it) alive."""

    def __init__(self, ptr, shape, npdt, owner):
        self.__array_interface__ = {"data": (ptr, False), "shape": tuple(shape), "typestr": npdt.str,
                                    "version": 3}
        self.owner = owner


def writable_view(ptr, shape, npdt, owner):
    """A writable numpy array over ``ptr`` whose base keeps ``owner`` alive."""
    if not ptr or math.prod(shape) == 0:
        return np.empty(shape, npdt)
    return np.asarray(_Memory(ptr, shape, npdt, owner))

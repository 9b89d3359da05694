"""``aotrt.nd`` (TVM's ``tvm.nd``): NDArray construction and conversion."""
from ._aligned import empty_aligned, zeros_aligned
from .device import cpu, device
from .ndarray import NDArray, array, empty, from_dlpack

__all__ = ["NDArray", "array", "cpu", "device", "empty", "empty_aligned", "from_dlpack", "zeros_aligned"]

"""``aotrt.nd`` (TVM's ``tvm.nd``): NDArray construction and conversion."""
from .device import cpu, device
from .ndarray import NDArray, array, empty, from_dlpack

__all__ = ["NDArray", "array", "cpu", "device", "empty", "from_dlpack"]

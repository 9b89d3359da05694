from .device import cpu as cpu, device as device
from .ndarray import NDArray as NDArray, array as array, empty as empty, from_dlpack as from_dlpack
from ._aligned import empty_aligned as empty_aligned, zeros_aligned as zeros_aligned

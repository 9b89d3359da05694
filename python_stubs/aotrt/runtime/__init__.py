"""TVM's tvm.runtime namespace over aotrt."""
from .. import ndarray
from ..benchmark import BenchmarkResult
from ..device import DataType, Device, cpu, cuda, device
from ..error import TVMError
from ..module import Module, enabled, load_module, load_module_from_bytes, system_lib
from ..ndarray import NDArray
from ..packed_func import Object, PackedFunc, convert_to_tvm_func, get_global_func, register_func
from . import executor
from . import vm

nd = ndarray

__all__ = ["BenchmarkResult", "DataType", "Device", "Module", "NDArray", "Object", "PackedFunc", "TVMError",
           "convert_to_tvm_func", "cpu", "cuda", "device", "enabled", "executor", "get_global_func",
           "load_module", "load_module_from_bytes", "nd", "ndarray", "register_func", "system_lib", "vm"]

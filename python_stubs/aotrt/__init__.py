"""aotrt: TVM's Python runtime API over libaotrt.so (ctypes only), so ``import aotrt as tvm`` works
for deployment code that loads and runs TVM AOT model libraries."""
from . import _ffi
from . import error
from .benchmark import BenchmarkResult
from .device import DataType, Device, cl, cpu, cuda, device, ext_dev, gpu, hexagon, metal, opencl, rocm, vulkan, webgpu
from .error import TVMError, check_call
from .module import Module, load_module, load_module_from_bytes, system_lib
from .ndarray import NDArray
from .packed_func import (Object, PackedFunc, convert_to_tvm_func, get_global_func, list_global_func_names,
                          register_func, remove_global_func)
from . import nd
from . import runtime
from . import contrib

from ._version import __version__


def runtime_version():
    """Version string reported by the loaded libaotrt.so."""
    return _ffi.version()


def set_log_level(level):
    """Runtime log level: 0 trace .. 5 critical, 6 off."""
    check_call(_ffi.AOTRTSetLogLevel(int(level)))


__all__ = ["BenchmarkResult", "DataType", "Device", "Module", "NDArray", "Object", "PackedFunc", "TVMError",
           "cl", "contrib", "convert_to_tvm_func", "cpu", "cuda", "device", "error", "ext_dev", "get_global_func", "gpu",
           "hexagon", "list_global_func_names", "load_module", "load_module_from_bytes", "metal", "nd",
           "opencl", "register_func", "remove_global_func", "rocm", "runtime", "runtime_version",
           "set_log_level", "system_lib", "vulkan", "webgpu"]

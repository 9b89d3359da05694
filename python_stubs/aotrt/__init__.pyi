from . import contrib as contrib, error as error, nd as nd, runtime as runtime
from .benchmark import BenchmarkResult as BenchmarkResult
from .device import (DataType as DataType, Device as Device, cl as cl, cpu as cpu, cuda as cuda, device as device,
                     ext_dev as ext_dev, gpu as gpu, hexagon as hexagon, metal as metal, opencl as opencl,
                     rocm as rocm, vulkan as vulkan, webgpu as webgpu)
from .error import TVMError as TVMError
from .module import (Module as Module, load_module as load_module, load_module_from_bytes as load_module_from_bytes,
                     system_lib as system_lib)
from .ndarray import NDArray as NDArray
from .packed_func import (Object as Object, PackedFunc as PackedFunc, convert_to_tvm_func as convert_to_tvm_func,
                          get_global_func as get_global_func, list_global_func_names as list_global_func_names,
                          register_func as register_func, remove_global_func as remove_global_func)

__version__: str

def runtime_version() -> str: ...
def set_log_level(level: int) -> None: ...

from .. import ndarray as ndarray
from .. import ndarray as nd
from ..benchmark import BenchmarkResult as BenchmarkResult
from ..device import DataType as DataType, Device as Device, cpu as cpu, cuda as cuda, device as device
from ..error import TVMError as TVMError
from ..module import (Module as Module, enabled as enabled, load_module as load_module,
                      load_module_from_bytes as load_module_from_bytes, system_lib as system_lib)
from ..ndarray import NDArray as NDArray
from ..packed_func import (Object as Object, PackedFunc as PackedFunc, convert_to_tvm_func as convert_to_tvm_func,
                           get_global_func as get_global_func, register_func as register_func)
from . import executor as executor
from . import vm as vm

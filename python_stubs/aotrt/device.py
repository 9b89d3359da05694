"""Device and DataType: ctypes structs with TVM's Python API, passed by value in TVMValue."""
import numpy as np

from . import _ffi
from .error import check_call

RPC_SESS_MASK = 128


class Device(_ffi.DLDevice):
    """A DLDevice (``device_type``, ``device_id``); ``str(aotrt.cpu(0)) == "cpu(0)"``."""

    kDLCPU, kDLCUDA, kDLCUDAHost, kDLOpenCL, kDLVulkan, kDLMetal = 1, 2, 3, 4, 7, 8
    kDLVPI, kDLROCM, kDLExtDev, kDLHexagon, kDLWebGPU = 9, 10, 12, 16, 15
    MASK2STR = {1: "cpu", 2: "cuda", 3: "cuda_host", 4: "opencl", 7: "vulkan", 8: "metal", 9: "vpi",
                10: "rocm", 11: "rocm_host", 12: "ext_dev", 13: "cuda_managed", 14: "oneapi", 15: "webgpu",
                16: "hexagon", 32: "aocl", 33: "sdaccel", 35: "microdev"}
    STR2MASK = {"llvm": 1, "stackvm": 1, "cpu": 1, "c": 1, "test": 1, "hybrid": 1, "composite": 1,
                "cuda": 2, "nvptx": 2, "cl": 4, "opencl": 4, "sdaccel": 4, "aocl": 4, "aocl_sw_emu": 4,
                "vulkan": 7, "metal": 8, "vpi": 9, "rocm": 10, "ext_dev": 12, "hexagon": 16, "webgpu": 15}

    def __init__(self, device_type=1, device_id=0):
        super().__init__(int(device_type), int(device_id))

    @property
    def exist(self):
        """Whether this machine has the device (OpenCL needs a platform: pocl, a GPU driver; CUDA the NVIDIA driver)."""
        return bool(self._GetDeviceAttr(self.device_type, self.device_id, 0))

    @property
    def max_threads_per_block(self):
        return self._GetDeviceAttr(self.device_type, self.device_id, 1)

    @property
    def warp_size(self):
        return self._GetDeviceAttr(self.device_type, self.device_id, 2)

    @property
    def max_shared_memory_per_block(self):
        return self._GetDeviceAttr(self.device_type, self.device_id, 3)

    @property
    def compute_version(self):
        return self._GetDeviceAttr(self.device_type, self.device_id, 4)

    @property
    def device_name(self):
        return self._GetDeviceAttr(self.device_type, self.device_id, 5)

    @property
    def max_clock_rate(self):
        return self._GetDeviceAttr(self.device_type, self.device_id, 6)

    @property
    def multi_processor_count(self):
        return self._GetDeviceAttr(self.device_type, self.device_id, 7)

    @property
    def max_thread_dimensions(self):
        import json
        dims = self._GetDeviceAttr(self.device_type, self.device_id, 8)
        return json.loads(dims) if dims else None

    @property
    def driver_version(self):
        return self._GetDeviceAttr(self.device_type, self.device_id, 12)

    @property
    def total_global_memory(self):
        return self._GetDeviceAttr(self.device_type, self.device_id, 14)

    def sync(self):
        """Wait for the device's pending work (a no-op on the CPU)."""
        check_call(_ffi.TVMSynchronize(self.device_type, self.device_id, None))

    def _GetDeviceAttr(self, device_type, device_id, attr_id):
        """runtime.GetDeviceAttr: None where the device has no such attribute."""
        from .packed_func import get_global_func
        return get_global_func("runtime.GetDeviceAttr")(device_type, device_id, attr_id)

    def __eq__(self, other):
        return (isinstance(other, Device) and self.device_type == other.device_type
                and self.device_id == other.device_id)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self.device_type, self.device_id))

    def __reduce__(self):
        return (Device, (self.device_type, self.device_id))

    def __repr__(self):
        dtype = self.device_type
        if dtype >= RPC_SESS_MASK:
            return "remote[%d]:%s(%d)" % (dtype // RPC_SESS_MASK - 1,
                                          Device.MASK2STR.get(dtype % RPC_SESS_MASK, "?"), self.device_id)
        return "%s(%d)" % (Device.MASK2STR.get(dtype, str(dtype)), self.device_id)


def device(dev_type, dev_id=0):
    """``device("cpu", 0)``, ``device("llvm")``, ``device("cpu:1")`` or ``device(1, 0)``."""
    if isinstance(dev_type, Device):
        return Device(dev_type.device_type, dev_type.device_id)
    if isinstance(dev_type, str):
        name = dev_type.split()[0] if dev_type.strip() else dev_type
        if ":" in name:
            name, _, idx = name.partition(":")
            dev_id = int(idx)
        if name not in Device.STR2MASK:
            raise ValueError("Unknown device type %s" % dev_type)
        dev_type = Device.STR2MASK[name]
    return Device(dev_type, dev_id)


def cpu(dev_id=0):
    return Device(1, dev_id)


def cuda(dev_id=0):
    return Device(2, dev_id)


def gpu(dev_id=0):
    return Device(2, dev_id)


def opencl(dev_id=0):
    return Device(4, dev_id)


def vulkan(dev_id=0):
    return Device(7, dev_id)


def metal(dev_id=0):
    return Device(8, dev_id)


def rocm(dev_id=0):
    return Device(10, dev_id)


def ext_dev(dev_id=0):
    return Device(12, dev_id)


def hexagon(dev_id=0):
    return Device(16, dev_id)


def webgpu(dev_id=0):
    return Device(15, dev_id)


cl = opencl
vpi = lambda dev_id=0: Device(9, dev_id)  # noqa: E731


class DataType(_ffi.DLDataType):
    """A DLDataType parsed from TVM's string form (``"float32"``, ``"int8x4"``, ``"bool"``, ...)."""

    CODE2STR = {0: "int", 1: "uint", 2: "float", 3: "handle", 4: "bfloat", 6: "e4m3_float", 7: "e5m2_float"}
    _STR2CODE = [("e4m3_float", 6), ("e5m2_float", 7), ("bfloat", 4), ("float", 2), ("uint", 1), ("int", 0),
                 ("handle", 3)]

    def __init__(self, type_str="float32"):
        if isinstance(type_str, _ffi.DLDataType):
            super().__init__(type_str.code, type_str.bits, type_str.lanes)
            return
        if isinstance(type_str, (np.dtype, type)):
            type_str = dtype_to_str(np.dtype(type_str))
        code, bits, lanes = parse_dtype(str(type_str))
        super().__init__(code, bits, lanes)

    @property
    def type_code(self):
        return self.code

    def __repr__(self):
        return dtype_str(self.code, self.bits, self.lanes)

    __str__ = __repr__

    def __eq__(self, other):
        if isinstance(other, str):
            other = DataType(other)
        if not isinstance(other, _ffi.DLDataType):
            return NotImplemented
        return (self.code, self.bits, self.lanes) == (other.code, other.bits, other.lanes)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash((self.code, self.bits, self.lanes))


_PARSE_CACHE = {}


def parse_dtype(s):
    """TVM dtype string -> (code, bits, lanes)."""
    hit = _PARSE_CACHE.get(s)
    if hit:
        return hit
    base, lanes = s, 1
    if "x" in s and not s.startswith("handle"):
        base, _, lanes_s = s.rpartition("x")
        lanes = int(lanes_s)
    if base == "bool":
        res = (1, 1, lanes)
    elif base == "void":
        res = (3, 0, 0)
    else:
        for prefix, code in DataType._STR2CODE:
            if base.startswith(prefix):
                rest = base[len(prefix):]
                bits = int(rest) if rest else (64 if code == 3 else 32)
                res = (code, bits, lanes)
                break
        else:
            raise ValueError("Unknown data type string %r" % s)
    _PARSE_CACHE[s] = res
    return res


def dtype_str(code, bits, lanes):
    """(code, bits, lanes) -> TVM dtype string."""
    if code == 1 and bits == 1:
        base = "bool"
    elif code == 3 and bits == 0 and lanes == 0:
        return "void"
    else:
        base = DataType.CODE2STR.get(code, "custom[%d]" % code) + str(bits)
    return base if lanes == 1 else "%sx%d" % (base, lanes)


def dtype_to_str(np_dtype):
    """numpy dtype -> TVM dtype string (``bool`` for np.bool_)."""
    return "bool" if np_dtype == np.bool_ else np_dtype.name


def str_to_numpy_dtype(s):
    """TVM dtype string (one lane) -> numpy dtype; bfloat16 is carried as uint16."""
    if s == "bool":
        return np.dtype(np.bool_)
    if s == "bfloat16":
        return np.dtype(np.uint16)
    return np.dtype(s)


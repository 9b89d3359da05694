"""Loading libaotrt.so and declaring the C ABI (ctypes structs, argtypes, restype).

Everything else in the package talks to the runtime through the names defined here.
"""
import ctypes
import ctypes.util
import glob
import os
import sys

# --- C structs (LP64 layouts, ABI.md 1.4) -----------------------------------------------------------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


DLTensorPtr = ctypes.POINTER(DLTensor)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class TVMValue(ctypes.Union):
    _fields_ = [("v_int64", ctypes.c_int64), ("v_float64", ctypes.c_double), ("v_handle", ctypes.c_void_p),
                ("v_str", ctypes.c_char_p), ("v_type", DLDataType), ("v_device", DLDevice)]


class TVMByteArray(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t)]


# Argument / return type codes (ABI.md 1.1).
kInt, kFloat, kHandle, kNull, kDataType, kDevice, kDLTensor = 0, 2, 3, 4, 5, 6, 7
kObject, kModule, kFunc, kStr, kBytes, kNDArray, kObjectRValueRef = 8, 9, 10, 11, 12, 13, 14
# TVM v0.18+'s kTVMArgBool (v_int64 0/1): decoded to a Python bool. This package still *sends* a
# bool as kInt, as TVM v0.14's Python package does (ABI.md 11.3c); libaotrt accepts either.
kBool = 15

# --- finding the library ----------------------------------------------------------------------------

LIBRARY_NAME = "libaotrt.so"
_PKG_DIR = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    """Paths to try, in order (see find_lib_path)."""
    yield os.path.join(_PKG_DIR, "lib", LIBRARY_NAME)
    try:  # written by `cmake --install`: the library installed with this copy of the package
        from ._install_paths import LIBRARY_DIR_FROM_PACKAGE
        yield os.path.normpath(os.path.join(_PKG_DIR, LIBRARY_DIR_FROM_PACKAGE, LIBRARY_NAME))
    except ImportError:
        pass
    # Source tree: python_stubs/aotrt -> repository root -> build*/src
    repo = os.path.dirname(os.path.dirname(_PKG_DIR))
    builds = glob.glob(os.path.join(repo, "build*", "src", LIBRARY_NAME))
    yield from sorted(builds, key=os.path.getmtime, reverse=True)
    for d in ("/usr/local/lib", "/usr/lib", "/usr/local/lib64", "/usr/lib64"):
        yield os.path.join(d, LIBRARY_NAME)
    multiarch = getattr(sys.implementation, "_multiarch", None)
    if multiarch:
        yield os.path.join("/usr/lib", multiarch, LIBRARY_NAME)


def _sanitizer_build(path):
    """Whether a library needs a sanitizer runtime (ASan/TSan builds cannot be dlopened into a plain
    interpreter: they abort it), so the automatic search skips them."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return False
    return any(name in data for name in (b"libasan.so", b"libtsan.so", b"libhwasan.so"))


def find_lib_path():
    """The libaotrt.so to load.

    Order: $AOTRT_LIBRARY (a file, or a folder holding libaotrt.so; an explicit setting that does not
    exist is an error rather than silently ignored), aotrt/lib/ next to this package, the library
    `cmake --install` put beside this package (aotrt/_install_paths.py), ../build*/src/
    of the source tree (newest first), /usr/local/lib and /usr/lib, then ctypes.util.find_library.
    The automatic search skips sanitizer (ASan/TSan) builds.
    """
    env = os.environ.get("AOTRT_LIBRARY")
    if env:
        path = os.path.join(env, LIBRARY_NAME) if os.path.isdir(env) else env
        if not os.path.isfile(path):
            raise OSError("AOTRT_LIBRARY=%r does not name %s" % (env, LIBRARY_NAME))
        return os.path.abspath(path)
    for path in _candidates():
        if os.path.isfile(path) and not _sanitizer_build(path):
            return path
    found = ctypes.util.find_library("aotrt")
    if found:
        return found
    raise OSError("cannot find %s: set AOTRT_LIBRARY, or put it in %s" % (LIBRARY_NAME, os.path.join(_PKG_DIR, "lib")))


LIB_PATH = find_lib_path()
# RTLD_GLOBAL: target-c model libraries leave TVMBackend* symbols undefined and resolve them from the
# global scope (ABI.md 10.2/10.3).
_LIB = ctypes.CDLL(LIB_PATH, mode=ctypes.RTLD_GLOBAL)


def _check_library_version():
    """Refuse a libaotrt.so other than the one this package was made for: its C ABI may differ."""
    from ._version import __version__
    get = getattr(_LIB, "AOTRTGetVersion", None)
    if get is None:
        raise ImportError("%s is not libaotrt (no AOTRTGetVersion); the aotrt Python package %s needs libaotrt %s"
                          % (LIB_PATH, __version__, __version__))
    get.restype = ctypes.c_char_p
    found = get().decode()
    if found != __version__:
        raise ImportError("the aotrt Python package %s needs libaotrt %s, but %s is version %s: install matching "
                          "versions, or point AOTRT_LIBRARY at the right library" % (__version__, __version__,
                                                                                     LIB_PATH, found))


_check_library_version()

# --- declarations -----------------------------------------------------------------------------------

_vp, _i, _cp = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
_pvp = ctypes.POINTER(ctypes.c_void_p)


def _declare(name, restype, *argtypes):
    f = getattr(_LIB, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


TVMGetLastError = _declare("TVMGetLastError", _cp)
TVMAPISetLastError = _declare("TVMAPISetLastError", None, _cp)
AOTRTGetLastErrorCode = _declare("AOTRTGetLastErrorCode", _i)
AOTRTGetVersion = _declare("AOTRTGetVersion", _cp)
AOTRTSetInterrupt = _declare("AOTRTSetInterrupt", None, _i)
AOTRTSetLogLevel = _declare("AOTRTSetLogLevel", _i, _i)
AOTRTModLoadFromMemory = _declare("AOTRTModLoadFromMemory", _i, _vp, ctypes.c_size_t, _pvp)

TVMModLoadFromFile = _declare("TVMModLoadFromFile", _i, _cp, _cp, _pvp)


class AOTRTLoadOptions(ctypes.Structure):
    """aotrt/c_api.h's AOTRTLoadOptions: initialize with AOTRTLoadOptionsInit."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("constant_cache", ctypes.c_int32),
                ("verify_constant_cache", ctypes.c_int32), ("cache_dir", _cp), ("cache_max_bytes", ctypes.c_uint64),
                ("check_bounds", ctypes.c_int32), ("huge_pages", ctypes.c_int32), ("c_compiler", _cp),
                ("compile_cache", ctypes.c_int32), ("c_library", _cp),
                ("num_threads", ctypes.c_int32)]


AOTRTLoadOptionsInit = _declare("AOTRTLoadOptionsInit", None, ctypes.POINTER(AOTRTLoadOptions))
AOTRTModLoadFromFileWithOptions = _declare("AOTRTModLoadFromFileWithOptions", _i, _cp, _cp,
                                           ctypes.POINTER(AOTRTLoadOptions), _pvp)
class AOTRTWorkspacePool(ctypes.Structure):
    """aotrt/c_api.h's AOTRTWorkspacePool: a caller-provided workspace pool."""
    _fields_ = [("name", _cp), ("data", _vp), ("bytes", ctypes.c_size_t)]


class AOTRTExecutorOptions(ctypes.Structure):
    """aotrt/c_api.h's AOTRTExecutorOptions: initialize with AOTRTExecutorOptionsInit."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("check_bounds", ctypes.c_int32), ("huge_pages", ctypes.c_int32),
                ("workspace_pools", ctypes.POINTER(AOTRTWorkspacePool)), ("num_workspace_pools", ctypes.c_size_t),
                ("arena", _vp), ("arena_bytes", ctypes.c_size_t), ("on_destroyed", ctypes.CFUNCTYPE(None, _vp)),
                ("on_destroyed_data", _vp), ("num_threads", ctypes.c_int32)]


AOTRTExecutorOptionsInit = _declare("AOTRTExecutorOptionsInit", None, ctypes.POINTER(AOTRTExecutorOptions))
AOTRTExecutorCreate = _declare("AOTRTExecutorCreate", _i, _vp, _i, _i, ctypes.POINTER(AOTRTExecutorOptions), _pvp)
AOTRTExecutorArenaBytes = _declare("AOTRTExecutorArenaBytes", _i, _vp, ctypes.POINTER(AOTRTExecutorOptions),
                                   ctypes.POINTER(ctypes.c_size_t))

TVMModImport = _declare("TVMModImport", _i, _vp, _vp)
TVMModGetFunction = _declare("TVMModGetFunction", _i, _vp, _cp, _i, _pvp)
TVMModFree = _declare("TVMModFree", _i, _vp)
TVMFuncFree = _declare("TVMFuncFree", _i, _vp)
TVMFuncGetGlobal = _declare("TVMFuncGetGlobal", _i, _cp, _pvp)
TVMFuncRegisterGlobal = _declare("TVMFuncRegisterGlobal", _i, _cp, _vp, _i)
TVMFuncRemoveGlobal = _declare("TVMFuncRemoveGlobal", _i, _cp)
TVMFuncListGlobalNames = _declare("TVMFuncListGlobalNames", _i, ctypes.POINTER(_i), ctypes.POINTER(ctypes.POINTER(_cp)))
TVMObjectFree = _declare("TVMObjectFree", _i, _vp)
TVMObjectRetain = _declare("TVMObjectRetain", _i, _vp)
TVMObjectGetTypeIndex = _declare("TVMObjectGetTypeIndex", _i, _vp, ctypes.POINTER(ctypes.c_uint))
# *out is a heap copy the caller frees with free() (TVM's contract): read as a void*, not c_char_p,
# so that the pointer survives to be freed.
TVMObjectTypeIndex2Key = _declare("TVMObjectTypeIndex2Key", _i, ctypes.c_uint, ctypes.POINTER(_vp))
# The C library's free, as the runtime links it (dlsym through libaotrt.so's dependencies).
free = _LIB.free
free.restype, free.argtypes = None, [_vp]

TVMArrayAlloc = _declare("TVMArrayAlloc", _i, ctypes.POINTER(ctypes.c_int64), _i, _i, _i, _i, _i, _i, _pvp)
TVMArrayFree = _declare("TVMArrayFree", _i, _vp)
TVMArrayCopyFromBytes = _declare("TVMArrayCopyFromBytes", _i, _vp, _vp, ctypes.c_size_t)
TVMArrayCopyToBytes = _declare("TVMArrayCopyToBytes", _i, _vp, _vp, ctypes.c_size_t)
TVMArrayCopyFromTo = _declare("TVMArrayCopyFromTo", _i, _vp, _vp, _vp)
TVMArrayFromDLPack = _declare("TVMArrayFromDLPack", _i, _vp, _pvp)
TVMArrayToDLPack = _declare("TVMArrayToDLPack", _i, _vp, _pvp)
TVMDLManagedTensorCallDeleter = _declare("TVMDLManagedTensorCallDeleter", None, _vp)
AOTRTDLPackCapsuleDestructor = _declare("AOTRTDLPackCapsuleDestructor", None, _vp)
TVMSynchronize = _declare("TVMSynchronize", _i, _i, _i, _vp)
# The one conversion rule of every input path (aotrt::ConvertTensor; README "Inputs in another dtype").
AOTRTArrayCopyConverted = _declare("AOTRTArrayCopyConverted", _i, _vp, _vp, _cp)
AOTRTCheckConversion = _declare("AOTRTCheckConversion", _i, _i, _i, _i, _i, _i, _i, _cp)

TVMCFuncSetReturn = _declare("TVMCFuncSetReturn", _i, _vp, _vp, _vp, _i)
TVMCbArgToReturn = _declare("TVMCbArgToReturn", _i, _vp, _vp)
# Callback types for functions implemented in Python (TVMPackedCFunc / TVMPackedCFuncFinalizer).
PackedCFunc = ctypes.CFUNCTYPE(_i, _vp, _vp, _i, _vp, _vp)
PackedCFuncFinalizer = ctypes.CFUNCTYPE(None, _vp)
TVMFuncCreateFromCFunc = _declare("TVMFuncCreateFromCFunc", _i, PackedCFunc, _vp, PackedCFuncFinalizer, _pvp)

# TVMFuncCall with every pointer passed as a plain address: the hot paths hand it pre-built buffers
# by address, which is markedly cheaper per call than ctypes' pointer-type conversions.
TVMFuncCall = ctypes.CFUNCTYPE(_i, _vp, _vp, _vp, _i, _vp, _vp)(("TVMFuncCall", _LIB))

# --- Python C API for DLPack capsules ----------------------------------------------------------------
_py = ctypes.pythonapi
_PyCapsuleDestructor = ctypes.CFUNCTYPE(None, _vp)
PyCapsule_New = ctypes.PYFUNCTYPE(ctypes.py_object, _vp, _cp, _PyCapsuleDestructor)(("PyCapsule_New", _py))
PyCapsule_GetPointer = ctypes.PYFUNCTYPE(_vp, ctypes.py_object, _cp)(("PyCapsule_GetPointer", _py))
PyCapsule_SetName = ctypes.PYFUNCTYPE(_i, ctypes.py_object, _cp)(("PyCapsule_SetName", _py))
PyCapsule_SetDestructor = ctypes.PYFUNCTYPE(_i, ctypes.py_object, _vp)(("PyCapsule_SetDestructor", _py))
PyCapsule_IsValid = ctypes.PYFUNCTYPE(_i, ctypes.py_object, _cp)(("PyCapsule_IsValid", _py))


def c_str(s):
    return s.encode("utf-8") if isinstance(s, str) else s


def version():
    """Version string of the loaded libaotrt.so."""
    return AOTRTGetVersion().decode()

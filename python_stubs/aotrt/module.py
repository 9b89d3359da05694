"""Module: a runtime module (owned handle), load_module, and Module.time_evaluator."""
import ctypes
import os
import struct

from . import _ffi, packed_func
from .benchmark import BenchmarkResult
from .error import FunctionNotFoundError, TVMNotImplementedError, check_call, interruptible
from .packed_func import PackedFunc, get_global_func


class Module:
    """A runtime module; functions by ``m["name"]`` or ``m.get_function(name)``."""

    __slots__ = ("handle", "_entry", "__weakref__")

    def __init__(self, handle):
        self.handle = ctypes.c_void_p(handle)
        self._entry = None

    def get_function(self, name, query_imports=False):
        """The function ``name``; FunctionNotFoundError (an AttributeError) if absent."""
        h = ctypes.c_void_p()
        check_call(_ffi.TVMModGetFunction(self.handle, _ffi.c_str(name), 1 if query_imports else 0,
                                          ctypes.byref(h)))
        if not h.value:
            raise FunctionNotFoundError("Module has no function '%s'%s" % (name, self._missing_function_hint(name)))
        return PackedFunc(h.value)

    def _missing_function_hint(self, name):
        """For a model library: the models it does hold, and how to create an executor."""
        if self.type_key == "library" and not self.imports:
            return (": the library has no __tvm_dev_mblob (module blob): a graph export's library of operators "
                    "(run it with aotrt.contrib.graph_executor.create(graph_json, lib, device)) or not a TVM export")
        if self.type_key not in ("AotExecutorFactory", "GraphExecutorFactory") or name == "list_module_names":
            return ""
        names = [str(n) for n in self["list_module_names"]()]
        return ": the library's model%s %s; create an executor with lib[%r](device)" % (
            "s are" if len(names) > 1 else " is", ", ".join(repr(n) for n in names), names[0] if names else "default")

    def __getitem__(self, name):
        if not isinstance(name, str):
            raise ValueError("Can only take string as function name")
        return self.get_function(name)

    def __contains__(self, name):
        try:
            self.get_function(name)
            return True
        except FunctionNotFoundError:
            return False

    def implements_function(self, name, query_imports=False):
        try:
            self.get_function(name, query_imports)
            return True
        except FunctionNotFoundError:
            return False

    def __call__(self, *args):
        """Call the module's entry function (``__tvm_main__``), as TVM does."""
        if self._entry is None:
            self._entry = self.get_function("__tvm_main__", query_imports=True)
        return self._entry(*args)

    def import_module(self, module):
        """Add ``module`` to this module's imports."""
        check_call(_ffi.TVMModImport(self.handle, module.handle))

    @property
    def type_key(self):
        return packed_func._global("runtime.ModuleGetTypeKey")(self)

    @property
    def imports(self):
        """The imported modules, in order."""
        size = packed_func._global("runtime.ModuleImportsSize")(self)
        get = packed_func._global("runtime.ModuleGetImport")
        return [get(self, i) for i in range(size)]

    def save_to_bytes(self):
        """The module's binary serialisation (runtime.ModuleSaveToBinary)."""
        return packed_func._global("runtime.ModuleSaveToBinary")(self)

    def time_evaluator(self, func_name, dev, number=10, repeat=1, min_repeat_ms=0,
                       limit_zero_time_iterations=100, cooldown_interval_ms=0, repeats_to_cooldown=1,
                       cache_flush_bytes=0, f_preproc=""):
        """A function that times ``func_name`` (called with the same arguments) and returns a
        BenchmarkResult: ``repeat`` means of ``number`` calls each (TVM semantics, ABI.md 9)."""
        feval = get_global_func("runtime.RPCTimeEvaluator", allow_missing=True)
        if feval is None:
            raise TVMNotImplementedError("runtime.RPCTimeEvaluator is not available in %s" % _ffi.LIB_PATH)
        timer = feval(self, func_name, dev.device_type, dev.device_id, number, repeat, min_repeat_ms,
                      limit_zero_time_iterations, cooldown_interval_ms, repeats_to_cooldown, cache_flush_bytes,
                      f_preproc)

        def evaluator(*args):
            blob = interruptible(timer, *args)   # Ctrl-C stops it (a KeyboardInterrupt)
            return BenchmarkResult(struct.unpack("@" + "d" * (len(blob) // 8), blob))

        return evaluator

    def same_as(self, other):
        return isinstance(other, Module) and other.handle.value == self.handle.value

    def __repr__(self):
        return "Module(%s, %x)" % (self.type_key, self.handle.value)

    def __del__(self, _free=_ffi.TVMModFree):
        h = getattr(self, "handle", None)
        if h is not None and h.value:
            self.handle = None
            _free(h)


packed_func._MODULE_CLASS = Module


_LOAD_OPTIONS = ("constant_cache", "verify_constant_cache", "cache_dir", "cache_max_bytes", "check_bounds",
                 "huge_pages", "c_compiler", "compile_cache", "c_library", "num_threads")


def _load_options(options):
    """An AOTRTLoadOptions with the defaults, changed by the keywords given (None keeps a default)."""
    unknown = sorted(set(options) - set(_LOAD_OPTIONS))
    if unknown:
        raise TypeError("load_module() got unknown option(s) %s; it takes %s" % (", ".join(unknown),
                                                                                ", ".join(_LOAD_OPTIONS)))
    c = _ffi.AOTRTLoadOptions()
    _ffi.AOTRTLoadOptionsInit(ctypes.byref(c))
    for name, value in options.items():
        if value is None:
            continue
        if name in ("cache_dir", "c_compiler", "c_library"):
            setattr(c, name, _ffi.c_str(os.fspath(value)))
        elif name == "num_threads":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1024:
                raise ValueError("num_threads must be an int in [0, 1024] (0: the default), got %r" % (value,))
            c.num_threads = value
        elif name == "cache_max_bytes":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError("cache_max_bytes must be a non-negative int (0: the default), got %r" % (value,))
            c.cache_max_bytes = value
        else:
            if not isinstance(value, bool):
                raise TypeError("%s must be a bool, got %r" % (name, value))
            setattr(c, name, int(value))
    return c


def load_module(path, fmt="", **options):
    """Load a model library; returns the root module (the AotExecutorFactory for AOT exports).

    Keyword options, as C++'s ``aotrt::LoadOptions`` (the environment adds to them: a variable
    can turn a check on or the cache off, never the reverse): ``constant_cache`` (bool, default
    True), ``verify_constant_cache`` (bool), ``cache_dir`` (path; default ``$AOTRT_CACHE_DIR``,
    ``$XDG_CACHE_HOME/aotrt`` or ``~/.cache/aotrt``), ``cache_max_bytes`` (int, 0: default),
    ``check_bounds`` and ``huge_pages`` (bool: for every executor of the model), ``num_threads`` (int:
    the most threads one operator of every executor runs on; 0: the default); for C-interface
    archives ``c_compiler`` (default ``$CC``, else ``cc``), ``compile_cache`` (bool, default True)
    and ``c_library`` (a library you compiled from the archive yourself).

    ``path`` is a shared library (``.so``) or, as TVM's ``load_module`` accepts, an object export
    (``.tar`` of objects or ``.o``, e.g. a system-lib build), which the runtime links into a
    temporary shared library with the system C compiler (``$CC``, default ``cc``) and loads; or a
    Model Library Format archive of TVM's C interface (``.tar``, ``.tar.gz``, ``.tar.xz`` or its
    unpacked folder), whose sources the runtime compiles with ``cc`` into a library kept in its
    compile cache (the constant cache's directory), so that a second load compiles nothing.

    A shared library without a module blob loads as a bare library of operators (what a graph
    export's mod.so is: give it to ``contrib.graph_executor.create`` with its graph JSON); asking it
    for a model's function says so."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ValueError("cannot find file %s" % path)
    path = os.path.realpath(path)
    h = ctypes.c_void_p()
    if options:
        c = _load_options(options)
        check_call(_ffi.AOTRTModLoadFromFileWithOptions(_ffi.c_str(path), _ffi.c_str(fmt), ctypes.byref(c),
                                                        ctypes.byref(h)))
    else:
        check_call(_ffi.TVMModLoadFromFile(_ffi.c_str(path), _ffi.c_str(fmt), ctypes.byref(h)))
    return Module(h.value)


def load_module_from_bytes(data):
    """Load a model library from its bytes (AOTRTModLoadFromMemory; aotrt only)."""
    data = bytes(data)
    h = ctypes.c_void_p()
    check_call(_ffi.AOTRTModLoadFromMemory(data, len(data), ctypes.byref(h)))
    return Module(h.value)


def system_lib(symbol_prefix=""):
    """The module of the libraries linked with ``--system-lib`` (runtime.SystemLib)."""
    return get_global_func("runtime.SystemLib")(symbol_prefix)


def enabled(target):
    """Whether a target's runtime is enabled: only the CPU is."""
    return str(target).split()[0] in ("cpu", "llvm", "c", "stackvm")

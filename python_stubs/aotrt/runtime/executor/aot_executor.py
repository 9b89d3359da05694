"""AotModule: TVM's Python wrapper of an AotExecutor, with cached fast paths.

The hot calls (run, set_input with a numpy array, get_output) reuse pre-built TVMValue / type-code
/ DLTensor buffers and call TVMFuncCall by address. Those buffers are shared by the module's calls,
so they are guarded by a lock taken without blocking: a call that finds it held (another thread is
in a fast call) takes the ordinary PackedFunc path with fresh buffers instead. ``run`` needs no
lock (it reads nothing back). The executor itself, like TVM's, is not meant for concurrent use.
"""
import ctypes
import json
import threading
import time

import numpy as np

from ... import _ffi
from ...device import parse_dtype, str_to_numpy_dtype, dtype_str
from ..._aligned import writable_view
from ..._convert import checked_array
from ...error import OutOfRangeError, check_call, interruptible, last_error
from ...ndarray import NDArray, _make, np_data_ptr
from ...packed_func import get_global_func
from ...benchmark import BenchmarkResult
from ...op_profile import OperatorProfileReport

_FuncCall = _ffi.TVMFuncCall
_NO_TENSOR = np.zeros(0, np.uint8)   # set_input's argument where only its check of the name is wanted
_addressof = ctypes.addressof
_ndarray = np.ndarray
_kNDArray = _ffi.kNDArray


def _numpy_dtype(dtype):
    code, bits, lanes = parse_dtype(dtype)
    return str_to_numpy_dtype(dtype_str(code, bits, 1)), lanes


class _Call:
    """Pre-built arguments of one call: TVMValue/type-code arrays (+ a DLTensor for a tensor arg)."""

    __slots__ = ("values", "codes", "va", "ca", "tensor", "shape_buf", "index", "shape", "npdt", "what")

    def __init__(self, index, tensor_spec=None, name=None):
        n = 1 if tensor_spec is None else 2
        self.values = (_ffi.TVMValue * n)()
        self.codes = (ctypes.c_int * n)()
        self.values[0].v_int64 = index
        self.codes[0] = _ffi.kInt
        self.va, self.ca = _addressof(self.values), _addressof(self.codes)
        self.index = index
        self.tensor = self.shape_buf = self.shape = self.npdt = None
        self.what = "input %d ('%s')" % (index, name)   # names the input in errors, as C++ does
        if tensor_spec is not None:
            shape, dtype = tensor_spec
            code, bits, lanes = parse_dtype(dtype)
            npdt, _ = _numpy_dtype(dtype)
            self.shape = tuple(shape) if lanes == 1 else tuple(shape) + (lanes,)
            self.npdt = npdt
            self.shape_buf = (ctypes.c_int64 * max(len(shape), 1))(*shape)
            t = self.tensor = _ffi.DLTensor()
            t.device.device_type = 1
            t.ndim = len(shape)
            t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, lanes
            t.shape = self.shape_buf
            self.values[1].v_handle = _addressof(t)
            self.codes[1] = _ffi.kDLTensor


def _info_dicts(info):
    shapes = {n: tuple(s) for n, s in zip(info["names"], info["shapes"])}
    dtypes = dict(zip(info["names"], info["dtypes"]))
    return shapes, dtypes


class AotModule:
    """Wraps an executor module: ``AotModule(lib["default"](aotrt.cpu(0)))``."""

    def __init__(self, module):
        self.module = module
        try:
            self._set_input = module["set_input"]
            self._run = module["run"]
            self._get_output = module["get_output"]
            self._get_input = module["get_input"]
            self._get_num_outputs = module["get_num_outputs"]
            self._get_num_inputs = module["get_num_inputs"]
            self._get_input_index = module["get_input_index"]
            self._get_input_name = module["get_input_name"]
        except AttributeError as e:
            raise ValueError("AotModule needs an AOT executor module (lib[\"default\"](dev)), got %r: %s"
                             % (module, e)) from None
        self._num_inputs = self._get_num_inputs()
        self._num_outputs = self._get_num_outputs()
        self._in_info = self._tensor_info("get_input_info", self._num_inputs, self._get_input_name,
                                          self._get_input)
        self._out_info = self._tensor_info("get_output_info", self._num_outputs, self._output_name,
                                           self._get_output)
        self._lock = threading.Lock()
        self._rv, self._rc = _ffi.TVMValue(), ctypes.c_int()
        self._rva, self._rca = _addressof(self._rv), _addressof(self._rc)
        self._run_rv, self._run_rc = _ffi.TVMValue(), ctypes.c_int()   # run's own: never read
        self._run_args = (self._run._h, None, None, 0, _addressof(self._run_rv), _addressof(self._run_rc))
        self._set_input_h = self._set_input._h
        self._get_output_h = self._get_output._h
        self._in_calls = {}    # key (name as given, or index) -> _Call
        specs = list(zip(self._in_info["shapes"], self._in_info["dtypes"]))
        for i, spec in enumerate(specs):
            self._in_calls[i] = _Call(i, spec, self._in_info["names"][i])
        self._out_calls = [_Call(i) for i in range(self._num_outputs)]
        self._out_meta = [(tuple(s), d) for s, d in zip(self._out_info["shapes"], self._out_info["dtypes"])]
        self._zero_copy = {}   # ("in"|"out", index) -> array the runtime reads/writes in place

    # --- metadata ---------------------------------------------------------------------------------
    def _optional(self, name):
        try:
            return self.module[name]
        except AttributeError:
            return None

    def _output_name(self, i):
        f = self._optional("get_output_name")
        return f(i) if f is not None else "output%d" % i

    def _tensor_info(self, fname, count, name_of, tensor_of):
        f = self._optional(fname)
        names = [name_of(i) for i in range(count)]
        info = f() if f is not None else None   # {"shape": {name: shape}, "dtype": {name: dtype}}
        # Keyed by name: only of use when every name is its own (a graph's tuple outputs share theirs,
        # e.g. 'reshape_nop', and a graph's input info lacks load_params' names).
        if info is not None and len(set(names)) == count and all(n in info["shape"] for n in names):
            return {"names": names, "shapes": [list(info["shape"][n]) for n in names],
                    "dtypes": [info["dtype"][n] for n in names]}
        tensors = [tensor_of(i) for i in range(count)]   # runtimes without the info functions
        return {"names": names, "shapes": [list(t.shape) for t in tensors],
                "dtypes": [t.dtype for t in tensors]}

    def get_num_inputs(self):
        return self._num_inputs

    def get_num_outputs(self):
        return self._num_outputs

    def get_input_index(self, name):
        """Index of input ``name`` (original or sanitized); NotFoundError "Invalid input name" if unknown."""
        return self._get_input_index(name)

    def get_input_name(self, index):
        return self._get_input_name(index)

    def get_output_index(self, name):
        f = self._optional("get_output_index")
        if f is not None:
            return f(name)
        return self._out_info["names"].index(name)

    def get_output_name(self, index):
        return self._output_name(index)

    def get_input_info(self):
        """({name: shape tuple}, {name: dtype string}) of the inputs."""
        return _info_dicts(self._in_info)

    def get_output_info(self):
        """({name: shape tuple}, {name: dtype string}) of the outputs (aotrt; names ``output<i>``)."""
        return _info_dicts(self._out_info)

    def get_workspace_size(self):
        return self.module["get_workspace_size"]()

    def get_constant_size(self):
        return self.module["get_constant_size"]()

    def get_params_size(self):
        return self.module["get_params_size"]()

    # --- inputs -----------------------------------------------------------------------------------
    def _input_call(self, key):
        call = self._in_calls.get(key)
        if call is None:
            if isinstance(key, str):
                index = self._get_input_index(key)     # raises for an unknown name (AOT)
                if index < 0:   # a graph's answer (TVM's), whose set_input raises the library's message instead
                    self._set_input(key, _NO_TENSOR)
                    raise KeyError(key)   # not reached
            elif isinstance(key, (int, np.integer)):
                index = int(key)
                if not 0 <= index < self._num_inputs:
                    raise OutOfRangeError("input index %d out of range: the model has %d input%s"
                                          % (index, self._num_inputs, "" if self._num_inputs == 1 else "s"))
            else:
                raise TypeError("input key must be a name or an index, got %s" % type(key).__name__)
            call = self._in_calls[key] = self._in_calls[index]
        return call

    def set_input(self, key=None, value=None, **params):
        """Copy ``value`` into input ``key`` (name or index), and each ``name=value`` of params.

        Values may be NDArrays or anything numpy.asarray takes. Another dtype is converted by the
        runtime's one rule (README "Inputs in another dtype", the same as C++ and the CLI): accepted
        only when every value survives (float64 -> float32 that stays finite, integers that fit or
        that a float holds exactly); otherwise TypeMismatchError naming the input, the value and
        its index (a float into an int input, anything but bool into bool: always). A wrong shape
        raises ShapeMismatchError.
        """
        if key is not None:
            if value is None:
                raise ValueError("set_input(%r): no value given" % (key,))
            self._set_one(key, value)
        for k, v in params.items():
            self._set_one(k, v)

    def _set_one(self, key, value):
        call = self._in_calls.get(key)
        if call is None:
            call = self._input_call(key)
        if (type(value) is not _ndarray or value.dtype != call.npdt or value.shape != call.shape
                or not value.flags.c_contiguous):
            if isinstance(value, NDArray):
                self._set_input(call.index, value)
                return
            value = self._coerce(value, call)
        ptr = np_data_ptr(value)
        lock = self._lock
        if not lock.acquire(False):
            self._set_input(call.index, value)
            return
        try:
            call.tensor.data = ptr
            rc = _FuncCall(self._set_input_h, call.va, call.ca, 2, self._rva, self._rca)
        finally:
            lock.release()
        if rc != 0:
            raise last_error()

    @staticmethod
    def _coerce(value, call):
        return checked_array(value, call.npdt, call.shape, call.what)

    def get_input(self, index, out=None):
        """Input ``index`` (name or index): an NDArray aliasing the executor's buffer, or copied into ``out``."""
        if out is not None:
            self._get_input(index, self._writable_out(out))
            return out
        return self._get_input(index)

    def input_view(self, key):
        """A writable numpy array over the executor's own buffer of input ``key`` (name or index):
        fill it in place, then run(), with no copy (the same effect as set_input, without the copy).

        The memory belongs to the executor; the array keeps this AotModule (and so the executor)
        alive. It is the buffer the executor reads until set_input_zero_copy points that input
        elsewhere; set_input copies into it. Not synchronised with a run on another thread.
        """
        index = self._input_call(key).index
        return self._view_of(self._get_input(index), self._in_info["shapes"][index],
                             self._in_info["dtypes"][index])

    def output_view(self, index):
        """A writable numpy array over the executor's own buffer of output ``index`` (name or index),
        rewritten by each run(); same lifetime rules as input_view."""
        if not isinstance(index, (int, np.integer)):
            index = self.get_output_index(index)
        return self._view_of(self._get_output(int(index)), self._out_info["shapes"][int(index)],
                             self._out_info["dtypes"][int(index)])

    def _view_of(self, nd, shape, dtype):
        npdt, lanes = _numpy_dtype(dtype)
        shape = tuple(shape) if lanes == 1 else tuple(shape) + (lanes,)
        t = nd._tensor()
        return writable_view((t.data or 0) + t.byte_offset, shape, npdt, (self, nd))

    def set_input_zero_copy(self, key, value):
        """Make the executor read input ``key`` straight from ``value`` (64-byte aligned, contiguous,
        exact shape/dtype). ``value`` is kept alive by this AotModule until replaced. For numpy, make
        ``value`` with aotrt.nd.empty_aligned (plain numpy arrays are rarely 64-byte aligned), or
        fill input_view(key) in place instead."""
        index = self._input_call(key).index
        if isinstance(value, np.ndarray) and not value.flags.c_contiguous:
            raise ValueError("set_input_zero_copy needs a C-contiguous array")
        self._module_func("set_input_zero_copy")(index, value)
        self._zero_copy[("in", index)] = value

    def set_output_zero_copy(self, key, value):
        """Make the executor write output ``key`` straight into ``value`` (same rules as inputs)."""
        index = key if isinstance(key, (int, np.integer)) else self.get_output_index(key)
        if isinstance(value, np.ndarray) and not value.flags.c_contiguous:
            raise ValueError("set_output_zero_copy needs a C-contiguous array")
        self._module_func("set_output_zero_copy")(int(index), value)
        self._zero_copy[("out", int(index))] = value

    def _module_func(self, name):
        f = self._optional(name)
        if f is None:
            raise NotImplementedError("the executor has no %s" % name)
        return f

    # --- run / outputs ----------------------------------------------------------------------------
    def run(self, **input_dict):
        """Set the given inputs (if any), then run the model."""
        if input_dict:
            self.set_input(**input_dict)
        if _FuncCall(*self._run_args) != 0:
            raise last_error()

    def __call__(self, *args, **inputs):
        """One-call inference: set the inputs, run, and return every output as a new numpy array
        (a copy, unaffected by later runs), in output order.

        ``m(x, y)`` gives inputs by position (in input order), ``m(data=x)`` or
        ``m(**{"input:0": x})`` by name; both may mix. Inputs not given keep their contents (a
        previous set_input, or the factory's params). Each value gets set_input's conversions and
        checks (TypeMismatchError, ShapeMismatchError, an unknown name, ...), all made before any
        input is copied, so a bad value changes nothing; an input given twice is a TypeError.
        """
        if len(args) > self._num_inputs:
            raise TypeError("the model has %d input%s, got %d positional values"
                            % (self._num_inputs, "" if self._num_inputs == 1 else "s", len(args)))
        todo = {}
        for key, value in list(enumerate(args)) + list(inputs.items()):
            call = self._input_call(key)
            if call.index in todo:
                raise TypeError("input %d (%r) is given twice" % (call.index, self._in_info["names"][call.index]))
            if not isinstance(value, NDArray):
                value = self._coerce(value, call)
            todo[call.index] = value
        for index, value in todo.items():
            self._set_one(index, value)
        self.run()
        outs = []
        for i, (shape, dtype) in enumerate(self._out_meta):
            npdt, lanes = _numpy_dtype(dtype)
            outs.append(self.get_output(i, np.empty(shape if lanes == 1 else shape + (lanes,), npdt)))
        return outs

    predict = __call__

    def get_output(self, index, out=None):
        """Output ``index``: an NDArray aliasing the executor's buffer (overwritten by the next run),
        or copied into ``out`` (an NDArray or a C-contiguous writable numpy array), which is returned."""
        if out is not None:
            self._get_output(index, self._writable_out(out))
            return out
        if type(index) is not int or not 0 <= index < self._num_outputs:
            return self._get_output(index)
        lock = self._lock
        if not lock.acquire(False):
            return self._get_output(index)
        try:
            call = self._out_calls[index]
            rc = _FuncCall(self._get_output_h, call.va, call.ca, 1, self._rva, self._rca)
            h = self._rv.v_handle if rc == 0 and self._rc.value == _kNDArray else None
        finally:
            lock.release()
        if rc != 0:
            raise last_error()
        if h is None:
            return self._get_output(index)
        shape, dtype = self._out_meta[index]
        return _make(h, shape, dtype)

    @staticmethod
    def _writable_out(out):
        if isinstance(out, np.ndarray) and (not out.flags.c_contiguous or not out.flags.writeable):
            raise ValueError("out must be a C-contiguous, writable numpy array or an NDArray")
        return out

    # --- timing -----------------------------------------------------------------------------------
    def benchmark(self, device, func_name="run", repeat=5, number=5, min_repeat_ms=None,
                  limit_zero_time_iterations=100, end_to_end=False, cooldown_interval_ms=0,
                  repeats_to_cooldown=1, cache_flush_bytes=0, warmup=1, **inputs):
        """Time ``func_name`` (after setting ``inputs``) and return a BenchmarkResult in seconds.

        Uses aotrt.profiling.Benchmark when the runtime has it (``results`` = per-repeat means,
        ``samples`` = every call), else Module.time_evaluator. ``end_to_end=True`` times
        ``run(**inputs)`` from Python instead (input copies included).
        """
        min_repeat_ms = 0 if min_repeat_ms is None else min_repeat_ms
        if end_to_end:
            return self._benchmark_end_to_end(repeat, number, min_repeat_ms, warmup, inputs)
        if inputs:
            self.set_input(**inputs)
        bench = get_global_func("aotrt.profiling.Benchmark", allow_missing=True)
        if bench is not None and limit_zero_time_iterations == 100 and repeats_to_cooldown == 1:
            timer = bench(self.module, func_name, warmup, number, repeat, min_repeat_ms, cooldown_interval_ms,
                          cache_flush_bytes)
            report = json.loads(interruptible(timer))   # Ctrl-C stops it (a KeyboardInterrupt)
            return BenchmarkResult(report["repeats"], report.get("samples"))
        return self.module.time_evaluator(
            func_name, device, repeat=repeat, number=number, min_repeat_ms=min_repeat_ms,
            limit_zero_time_iterations=limit_zero_time_iterations, cooldown_interval_ms=cooldown_interval_ms,
            repeats_to_cooldown=repeats_to_cooldown, cache_flush_bytes=cache_flush_bytes)()

    def profile(self, duration=3.0, runs=0, period_us=1000, warmup=1, **inputs):
        """Where the run time goes, operator by operator: an OperatorProfileReport.

        Runs the model (after setting ``inputs``) ``warmup`` times, then for about ``duration``
        seconds (or exactly ``runs`` runs when ``runs`` > 0) while sampling the running thread's
        program counter every ~``period_us`` microseconds; each sample goes to the operator whose
        code (found in the library's ELF symbol table) it was in. Ctrl-C ends it early
        (``interrupted``). Raises aotrt's errors: InvalidArgument-kinds for bad options, others
        when the library cannot be read or the model fails.
        """
        if inputs:
            self.set_input(**inputs)
        prof = get_global_func("aotrt.profiling.ProfileOperators")
        return OperatorProfileReport(interruptible(prof, self.module, float(duration), int(runs), int(period_us),
                                                   int(warmup)))

    def _benchmark_end_to_end(self, repeat, number, min_repeat_ms, warmup, inputs):
        for _ in range(warmup):
            self.run(**inputs)
        results = []
        for _ in range(repeat):
            calls, start = 0, time.perf_counter()
            while True:
                for _ in range(number):
                    self.run(**inputs)
                calls += number
                elapsed = time.perf_counter() - start
                if elapsed * 1000 >= min_repeat_ms:
                    break
            results.append(elapsed / calls)
        return BenchmarkResult(results)


def _caller_memory(what, buf):
    """(address, bytes) of a writable, C-contiguous buffer (a numpy array, bytearray, ...)."""
    a = np.asarray(buf) if not isinstance(buf, np.ndarray) else buf
    if not (a.flags.c_contiguous and a.flags.writeable):
        raise ValueError("%s must be a writable C-contiguous buffer (e.g. aotrt.nd.empty_aligned or a numpy uint8 "
                         "array)" % what)
    return a.ctypes.data, a.nbytes, a


def _executor_options(workspace_pools, arena, check_bounds, huge_pages, num_threads=None):
    """An AOTRTExecutorOptions, and what must stay alive while the executor does."""
    c = _ffi.AOTRTExecutorOptions()
    _ffi.AOTRTExecutorOptionsInit(ctypes.byref(c))
    keep = []
    if num_threads is not None:
        if isinstance(num_threads, bool) or not isinstance(num_threads, int) or not 0 <= num_threads <= 1024:
            raise ValueError("num_threads must be an int in [0, 1024] (0: the default), got %r" % (num_threads,))
        c.num_threads = num_threads
    for name, value in (("check_bounds", check_bounds), ("huge_pages", huge_pages)):
        if value is not None:
            if not isinstance(value, bool):
                raise TypeError("%s must be a bool, got %r" % (name, value))
            setattr(c, name, int(value))
    if workspace_pools:
        pools = (_ffi.AOTRTWorkspacePool * len(workspace_pools))()
        for i, (name, buf) in enumerate(dict(workspace_pools).items()):
            ptr, nbytes, arr = _caller_memory("workspace pool '%s'" % name, buf)
            encoded = _ffi.c_str(str(name))
            pools[i].name, pools[i].data, pools[i].bytes = encoded, ptr, nbytes
            keep += [arr, encoded]
        c.workspace_pools, c.num_workspace_pools = pools, len(workspace_pools)
        keep.append(pools)
    if arena is not None:
        c.arena, c.arena_bytes, arr = _caller_memory("arena", arena)
        keep.append(arr)
    return c, keep


def _factory_handle(lib):
    h = getattr(lib, "handle", None)
    if h is None:
        raise TypeError("expected the module load_module returned (an AotExecutorFactory), got %r" % (lib,))
    return h


def arena_bytes(lib, workspace_pools=None):
    """Bytes of caller-owned memory an executor of ``lib``'s model needs (C++ Model::ArenaBytes):
    everything it holds plus, for a model without memory planning, its run-time workspace, which
    the first call per model measures by running the model once on zeros. Pools given in
    ``workspace_pools`` are not part of it."""
    c, keep = _executor_options(workspace_pools, None, None, None)
    out = ctypes.c_size_t()
    check_call(_ffi.AOTRTExecutorArenaBytes(_factory_handle(lib), ctypes.byref(c), ctypes.byref(out)))
    del keep
    return out.value


def create_executor(lib, device=None, *, workspace_pools=None, arena=None, check_bounds=None, huge_pages=None,
                    num_threads=None):
    """An executor of ``lib``'s model with options (C++ ``ExecutorOptions``), as an AotModule.

    ``workspace_pools``: {pool name: writable buffer}, used in place of the executor's own pools
    (e.g. a C-interface archive's ``app_pool``); each at least the pool's size, 64-byte aligned.
    ``arena``: one writable, 64-byte aligned buffer of at least ``arena_bytes(lib)`` bytes in which
    the whole executor is built (inputs, outputs, pools, run-time workspace); creating and running it
    then allocate nothing. The AotModule and its module keep these buffers alive; arrays from
    ``get_output``/``get_input`` alias them (keep the module while you use those arrays).
    ``check_bounds`` / ``huge_pages``: as the load options of those names, for this executor; they
    are switches of the runtime's own memory, refused with ``arena`` (C++ ``ExecutorOptions::Heap``).
    ``num_threads``: the most threads one operator runs on (1: the calling thread only); 0 or None:
    the process's count, shared among the executors running at the same time."""
    from ...device import cpu
    from ...module import Module
    dev = cpu(0) if device is None else device
    c, keep = _executor_options(workspace_pools, arena, check_bounds, huge_pages, num_threads)
    h = ctypes.c_void_p()
    with _LIVE_LOCK:
        _next_key[0] += 1
        key = _next_key[0]
        _LIVE_MEMORY[key] = keep
    c.on_destroyed, c.on_destroyed_data = _ON_DESTROYED, key
    try:
        check_call(_ffi.AOTRTExecutorCreate(_factory_handle(lib), int(dev.device_type), int(dev.device_id),
                                            ctypes.byref(c), ctypes.byref(h)))
    except BaseException:
        _memory_released(key)  # no executor: nothing will call back
        raise
    module = Module(h.value)
    if module.type_key.startswith("GraphExecutor"):
        from ...contrib.graph_executor import GraphModule   # contrib imports this module
        return GraphModule(module)
    return AotModule(module)


# The caller's buffers of each live executor, by key, until the runtime says the executor is gone
# (AOTRTExecutorOptions.on_destroyed): whichever handle (module, function, array) goes last.
_LIVE_MEMORY = {}
_LIVE_LOCK = threading.Lock()
_next_key = [0]


def _memory_released(key):
    with _LIVE_LOCK:
        _LIVE_MEMORY.pop(key, None)


_ON_DESTROYED = _ffi.AOTRTExecutorOptions._fields_[7][1](_memory_released)

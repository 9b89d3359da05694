"""TVM's tvm.runtime.vm over aotrt: Relay VM exports (relay.vm.compile), in the two-file form
(Executable.load_exec(code, lib)) or the one-file form (load_module("vm.so")). Results that are
tuples come back as Python tuples (depth first as TVM's ADT), tensors as NDArray."""
import numpy as np

from ..module import Module, load_module
from ..ndarray import NDArray, array
from ..packed_func import Object, get_global_func


def _value(r):
    """A VM result as Python: an ADT becomes a tuple of its fields, recursively."""
    if isinstance(r, Object) and r.type_key == "runtime.ADT":
        size, field = get_global_func("runtime.GetADTSize"), get_global_func("runtime.GetADTFields")
        return tuple(_value(field(r, i)) for i in range(size(r)))
    return r


def _arg(a):
    if isinstance(a, (NDArray, Object)):
        return a
    if isinstance(a, (tuple, list)):
        return get_global_func("runtime.Tuple")(*[_arg(x) for x in a])
    return array(np.asarray(a))


class Executable:
    """A Relay VM executable: its bytecode over a kernel library (a 'VMExecutable' module)."""

    def __init__(self, mod):
        self.mod = mod

    @staticmethod
    def load_exec(bytecode, lib):
        """The two-file form: ``bytecode`` (bytes, or the path of code.ro) and its kernel library
        (a Module, or the path of lib.so)."""
        if isinstance(bytecode, str):
            with open(bytecode, "rb") as f:
                bytecode = f.read()
        if isinstance(lib, str):
            lib = load_module(lib)
        return Executable(get_global_func("runtime.Load_Executable")(bytearray(bytecode), lib))

    def save(self):
        """(bytecode, kernel library), as TVM's Executable.save."""
        return self.mod["save"](), self.lib

    @property
    def lib(self):
        return self.mod["get_lib"]()

    @property
    def bytecode(self):
        return self.mod["get_bytecode"]()

    @property
    def stats(self):
        return self.mod["get_stats"]()

    def get_function_params(self, func_name):
        arity = self.mod["get_function_arity"](func_name)
        if arity < 0:
            raise KeyError("the executable has no function %r" % func_name)
        return [self.mod["get_function_param_name"](func_name, i) for i in range(arity)]

    def move_late_bound_consts(self, path, byte_limit):
        """Move every constant of ``byte_limit`` bytes or more to the params file ``path``."""
        self.mod["move_late_bound_consts"](path, byte_limit)

    def get_late_bound_consts(self, byte_limit):
        """Move every constant of ``byte_limit`` bytes or more out; returns them by name (a Map)."""
        return self.mod["get_late_bound_consts"](byte_limit)

    def load_late_bound_consts(self, path):
        self.mod["load_late_bound_consts"](path)

    def load_late_bound_consts_from_map(self, consts):
        self.mod["load_late_bound_consts_from_map"](consts)


class VirtualMachine:
    """One VM over an executable (one thread at a time; make one per thread)."""

    def __init__(self, exe, device=None, memory_cfg=None):
        self._exec = exe if isinstance(exe, Executable) else Executable(exe)
        self.module = self._exec.mod["vm_load_executable"]()
        dev = device if device is not None else __import__("aotrt").cpu(0)
        alloc = 1 if memory_cfg == "naive" else 2
        args = [dev.device_type, dev.device_id, alloc]
        if dev.device_type != 1:
            args += [1, 0, alloc]   # shape functions run on the CPU
        self.module["init"](*args)

    def set_input(self, func_name, *args, **kwargs):
        if kwargs:
            params = self._exec.get_function_params(func_name)
            args = list(args) + [None] * (len(params) - len(args))
            for name, value in kwargs.items():
                args[params.index(name)] = value
        self.module["set_input"](func_name, *[_arg(a) for a in args])

    def invoke(self, func_name, *args, **kwargs):
        if args or kwargs:
            self.set_input(func_name, *args, **kwargs)
        return _value(self.module["invoke"](func_name))

    def run(self, *args, **kwargs):
        return self.invoke("main", *args, **kwargs)

    def invoke_stateful(self, func_name, *args, **kwargs):
        if args or kwargs:
            self.set_input(func_name, *args, **kwargs)
        self.module["invoke_stateful"](func_name)

    def invoke_with_outputs(self, func_name, input_args, output_args):
        """Run ``func_name`` writing its results into ``output_args`` (NDArrays); ``input_args``: a dict
        of inputs by name, or None when set_input was called."""
        if input_args:
            self.set_input(func_name, **input_args)
        self.module["set_outputs"](func_name, *output_args)
        self.module["invoke"](func_name)

    def profile(self, *args, func_name="main", collectors=None, **kwargs):
        """Each primitive's time in one run (after 3 to warm up): TVM's runtime.profiling.Report."""
        if args or kwargs:
            self.set_input(func_name, *args, **kwargs)
        return self.module["profile"](func_name, collectors)

    def get_outputs(self):
        return [self.module["get_output"](i) for i in range(self.module["get_num_outputs"]())]

    def get_input_index(self, input_name, func_name="main"):
        return self.module["get_input_index"](input_name, func_name)


__all__ = ["Executable", "VirtualMachine"]

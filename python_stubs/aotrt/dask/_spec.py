"""The model as the client sees it: read once before anything is submitted, it checks the dask
arrays against the model's inputs (names, dtypes, per-sample shapes) and says what comes out."""
import os

import numpy as np

from .._convert import check_conversion
from ..device import cpu
from ..error import InvalidArgumentError, ShapeMismatchError, TVMIOError
from ..module import load_module_from_bytes
from ..runtime.executor import AotModule
from . import _worker


def _without(shape, axis):
    return tuple(d for i, d in enumerate(shape) if i != axis)


class ModelSpec:
    """Inputs (name -> (shape, dtype)) a caller must give, outputs, and the model's batch size."""

    def __init__(self, path, mod_name, batch_axis):
        path = os.fspath(path)
        try:
            with open(path, "rb") as f:
                self.data = f.read()
        except OSError as e:
            raise TVMIOError("cannot read model %s: %s" % (path, e.strerror or e)) from None
        self.ref = _worker.ModelRef(os.path.abspath(path), _worker.sha256_of(self.data), mod_name)
        lib = load_module_from_bytes(self.data)
        _worker.add_loaded(self.ref.sha256, lib)   # in-process schedulers reuse this load
        ex = AotModule(lib[mod_name](cpu(0)))
        params = set(_param_names(lib))
        shapes, dtypes = ex.get_input_info()
        self.inputs = {n: (tuple(s), dtypes[n]) for n, s in shapes.items() if n not in params}
        # By position: a graph's outputs may share a name (get_output_info, keyed by name, would merge them)
        self.outputs = [(ex.get_output_name(i), tuple(s), d) for i, (s, d) in enumerate(ex._out_meta)]
        self.batch_axis = batch_axis
        self.batch = self._batch_size()

    def _batch_size(self):
        sizes = set()
        for name, (shape, _) in self.inputs.items():
            if not 0 <= self.batch_axis < len(shape):
                raise InvalidArgumentError("batch_axis %d is out of range for input '%s' of shape %s"
                                           % (self.batch_axis, name, shape))
            sizes.add(shape[self.batch_axis])
        if len(sizes) != 1:
            raise ShapeMismatchError("the model's inputs disagree on the batch size along axis %d: %s" % (
                self.batch_axis, {n: s[self.batch_axis] for n, (s, _) in self.inputs.items()}))
        return sizes.pop()

    def output(self, key):
        """(index, name, per-sample shape, numpy dtype) of output `key` (index or name)."""
        names = [o[0] for o in self.outputs]
        if isinstance(key, str):
            if names.count(key) != 1:
                raise InvalidArgumentError("output '%s' %s; outputs: %s" % (key, "names outputs %s: give its index" % [
                    i for i, n in enumerate(names) if n == key] if key in names else "is not an output of the model", names))
            index = names.index(key)
        elif isinstance(key, (int, np.integer)) and 0 <= key < len(names):
            index = int(key)
        else:
            raise InvalidArgumentError("output=%r: expected an output name or an index below %d (%s)"
                                       % (key, len(names), names))
        name, shape, dtype = self.outputs[index]
        if len(shape) <= self.batch_axis or shape[self.batch_axis] != self.batch:
            raise ShapeMismatchError("output '%s' has shape %s: no axis %d of the batch size %d to split per sample"
                                     % (name, shape, self.batch_axis, self.batch))
        return index, name, _without(shape, self.batch_axis), np.dtype(dtype)

    def check(self, arrays):
        """Check {name: dask array} against the inputs; error naming the first input that differs."""
        missing = [n for n in self.inputs if n not in arrays]
        unknown = [n for n in arrays if n not in self.inputs]
        if unknown:
            raise InvalidArgumentError("unknown input %s; the model's inputs are %s" % (unknown, list(self.inputs)))
        if missing:
            raise InvalidArgumentError("input %s not given; the model's inputs are %s" % (missing, list(self.inputs)))
        counts = {}
        for name, (shape, dtype) in self.inputs.items():
            a = arrays[name]
            want = _without(shape, self.batch_axis)
            if a.dtype != np.dtype(dtype):
                # The rule of every input path: a dtype it refuses whatever the values fails here,
                # before anything is submitted; values that do not survive, in the task (set_input).
                check_conversion(a.dtype, np.dtype(dtype), "input '%s'" % name)
            if a.ndim != len(shape) or _without(a.shape, self.batch_axis) != want:
                raise ShapeMismatchError(
                    "input '%s': the array has shape %s, the model expects samples of shape %s along axis %d "
                    "(model input %s)" % (name, a.shape, want, self.batch_axis, shape))
            counts[name] = a.shape[self.batch_axis]
        if len(set(counts.values())) > 1:
            raise ShapeMismatchError("the inputs have different numbers of samples: %s" % counts)


def _param_names(lib):
    # The factory's params are inputs too, but set by the factory: callers do not give them.
    try:
        items = list(lib["get_params"]())
    except (AttributeError, TypeError):
        return []
    return [str(x) for x in items[0::2]]

"""What runs inside a Dask worker process: the per-process model cache, one executor per worker
thread, and the function applied to each block.

Imports numpy and aotrt only (not dask), so the block function can also run in-process.
"""
import hashlib
import threading

import numpy as np

from ..device import cpu
from ..error import TVMIOError
from ..module import load_module_from_bytes
from ..runtime.executor import AotModule

# Loaded models by content hash: one load per process, whatever the path or the number of tasks.
_lock = threading.Lock()
_models = {}     # sha256 -> Module (the AotExecutorFactory)
_uploaded = {}   # sha256 -> bytes sent by the ModelUpload plugin, loaded on first use
# Executors are per thread: independent, so the worker's threads run the model side by side.
_local = threading.local()


class ModelRef:
    """What a task needs to find its model: the client's path (a hint), the content hash, the name."""

    __slots__ = ("path", "sha256", "mod_name")

    def __init__(self, path, sha256, mod_name):
        self.path, self.sha256, self.mod_name = path, sha256, mod_name

    def __getstate__(self):
        return (self.path, self.sha256, self.mod_name)

    def __setstate__(self, state):
        self.path, self.sha256, self.mod_name = state

    def __repr__(self):
        return "ModelRef(%r, sha256=%s, mod_name=%r)" % (self.path, self.sha256[:12], self.mod_name)


def sha256_of(data):
    return hashlib.sha256(data).hexdigest()


def add_uploaded(sha256, data):
    """Keep a model's bytes in this process until a task needs them (called by the plugin)."""
    with _lock:
        if data is not None and sha256 not in _models:
            _uploaded[sha256] = data


def add_loaded(sha256, lib):
    """Cache a module already loaded in this process (the client's, for in-process schedulers)."""
    with _lock:
        _models.setdefault(sha256, lib)


def _read_from_path(ref):
    # No upload reached this process: the model must be on a shared file system, byte-identical.
    try:
        with open(ref.path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise TVMIOError("model %s was not uploaded to this worker and cannot be read here (%s); "
                         "create the distributed Client before aotrt.dask.predict(..., upload=True) so "
                         "that the file travels to the workers" % (ref.path, e.strerror or e)) from None
    got = sha256_of(data)
    if got != ref.sha256:
        raise TVMIOError("model %s on this worker differs from the client's copy (sha256 %s, expected %s)"
                         % (ref.path, got[:12], ref.sha256[:12]))
    return data


def load(ref):
    """The factory module of `ref`, loaded at most once per process."""
    lib = _models.get(ref.sha256)
    if lib is not None:
        return lib
    with _lock:
        lib = _models.get(ref.sha256)
        if lib is None:
            data = _uploaded.pop(ref.sha256, None)
            lib = load_module_from_bytes(data if data is not None else _read_from_path(ref))
            _models[ref.sha256] = lib
    return lib


def executor(ref):
    """This thread's executor of `ref` (created on the thread's first task of that model)."""
    cache = getattr(_local, "executors", None)
    if cache is None:
        cache = _local.executors = {}
    key = (ref.sha256, ref.mod_name)
    ex = cache.get(key)
    if ex is None:
        ex = cache[key] = AotModule(load(ref)[ref.mod_name](cpu(0)))
    return ex


def predict_block(ref, names, output, batch, batch_axis, out_sample, out_dtype, *blocks):
    """Run the model over one block: pieces of `batch` samples along `batch_axis`, the last one
    padded with zeros, the padding's outputs dropped. Returns output `output` for every sample;
    `out_sample` is its per-sample shape (the output's shape without the batch axis)."""
    ex = executor(ref)
    rows = [np.ascontiguousarray(np.moveaxis(np.asarray(b), batch_axis, 0)) for b in blocks]   # samples first
    n = rows[0].shape[0]
    result = np.empty((n,) + tuple(out_sample), out_dtype)
    if batch_axis == 0:   # the common case: pieces are contiguous views, no axis moved
        def to_model(piece):
            return piece

        def from_model(out):
            return out
    else:
        def to_model(piece):
            return np.ascontiguousarray(np.moveaxis(piece, 0, batch_axis))

        def from_model(out):
            return np.moveaxis(out, batch_axis, 0)
    for start in range(0, n, batch):
        k = min(batch, n - start)
        for name, x in zip(names, rows):
            piece = x[start:start + k]
            if k < batch:
                full = np.zeros((batch,) + piece.shape[1:], piece.dtype)
                full[:k] = piece
                piece = full
            ex.set_input(name, to_model(piece))
        ex.run()
        # (get_output(i).numpy() takes the cached fast path; get_output(i, out=...) does not)
        result[start:start + k] = from_model(ex.get_output(output).numpy())[:k]
    return np.moveaxis(result, 0, batch_axis)

"""aotrt.dask.predict: a model applied lazily to the rows of dask arrays."""
from collections.abc import Mapping

import numpy as np

from ..error import InvalidArgumentError
from . import _worker
from ._spec import ModelSpec


def _current_client(client):
    if client is not None:
        return client
    try:
        from distributed import default_client
        return default_client()
    except (ImportError, ValueError):   # no distributed, or no Client: in-process schedulers
        return None


def predict(model_path, inputs, *, output=0, mod_name="default", batch_axis=0, upload=True, client=None):
    import dask.array as da
    from dask.base import tokenize

    spec = ModelSpec(model_path, mod_name, batch_axis)
    if isinstance(inputs, Mapping):
        arrays = dict(inputs)
    elif len(spec.inputs) == 1:
        arrays = {next(iter(spec.inputs)): inputs}
    else:
        raise InvalidArgumentError("the model has %d inputs %s: pass a mapping of input name to dask array"
                                   % (len(spec.inputs), list(spec.inputs)))
    for name, a in arrays.items():
        if not isinstance(a, da.Array):
            raise InvalidArgumentError("input '%s': expected a dask array, got %s" % (name, type(a).__name__))
    spec.check(arrays)
    index, out_name, out_sample, out_dtype = spec.output(output)

    names = list(spec.inputs)
    # Each block holds whole samples: one chunk along every axis but the batch axis.
    blocks = [arrays[n].rechunk({ax: -1 for ax in range(arrays[n].ndim) if ax != batch_axis}) for n in names]
    sample_index = "s"
    letters = iter("abcdefghijklmnopqrtuvwxyz")
    args = []
    for b in blocks:
        ind = "".join(sample_index if ax == batch_axis else next(letters) for ax in range(b.ndim))
        args += [b, ind]
    out_ind, new_axes, sizes = "", {}, list(out_sample)
    for ax in range(len(out_sample) + 1):
        if ax == batch_axis:
            out_ind += sample_index
        else:
            letter = next(letters)
            out_ind += letter
            new_axes[letter] = sizes.pop(0)

    client = _current_client(client)
    if client is not None and upload:
        from ._upload import upload as send
        send(client, spec.ref.sha256, spec.data)
    name = "aotrt-predict-" + tokenize(spec.ref.sha256, mod_name, index, batch_axis, *blocks)
    meta = np.empty((0,) * len(out_ind), out_dtype)
    return da.blockwise(_worker.predict_block, out_ind,
                        spec.ref, None, names, None, index, None, spec.batch, None, batch_axis, None,
                        tuple(out_sample), None, out_dtype, None, *args,
                        new_axes=new_axes, concatenate=True, dtype=out_dtype, meta=meta, name=name)


predict.__doc__ = """Apply a compiled model to every sample of dask arrays, lazily.

``inputs`` is a dask array (for a model with one input) or a mapping of input name to dask arrays,
with samples along ``batch_axis``. Returns a dask array of output ``output`` (index or name), one
block per input block. Each block is cut into pieces of the model's static batch size along
``batch_axis``; the last piece is padded with zeros and the padding's results are dropped.

Checked before anything is submitted, with errors naming the input: names, dtype
(TypeMismatchError), per-sample shape and sample counts (ShapeMismatchError).

Workers load the model once per process (cached by content hash) and keep one executor per worker
thread. ``upload=True`` (default) sends the file's bytes to every worker of ``client`` (default: the
current distributed Client, if any) through a WorkerPlugin, so workers need not see the path;
with ``upload=False`` or without a Client, workers read ``model_path`` themselves and check its hash.
Errors raised inside tasks reach the caller as aotrt's exception classes (e.g. ModelError).
"""

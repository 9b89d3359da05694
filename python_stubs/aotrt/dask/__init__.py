"""aotrt.dask: run a compiled model inside Dask, on one machine or many.

An optional part of aotrt: it needs ``dask`` (and ``distributed`` for clusters); aotrt itself
does not. See ``predict``.
"""
try:
    import dask.array  # noqa: F401
except ImportError as e:   # say what to install instead of a bare ModuleNotFoundError
    raise ImportError("aotrt.dask needs dask: apt-get install python3-dask python3-distributed "
                      "(or pip install 'dask[array]' distributed)") from e

from ._predict import predict

__all__ = ["predict"]

"""Tensor contents: deterministic pseudo-random data and the data sources a spec may name."""
import base64
import os
import random
import struct

from . import dtypes


def count_of(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def random_bytes(dtype, shape, seed):
    """Deterministic values chosen so that the model's arithmetic stays exact.

    Floats are multiples of 1/8 in [-4, 4] (sums of products stay exactly representable);
    8-bit integers use the full range (wrap-around is exercised); wider integers stay in
    [-1000, 1000] (or [0, 2000] unsigned) so products cannot overflow.
    """
    n = count_of(shape)
    rng = random.Random(seed)        # str seeds are hashed with SHA-512: stable across runs
    if dtype.is_bool:
        return bytes(b & 1 for b in rng.randbytes(n))
    if dtype.itemsize == 1 and not dtype.is_float:
        return rng.randbytes(n)
    raw = rng.randbytes(2 * n)
    pairs = struct.unpack("<%dH" % n, raw)
    if dtype.is_float:
        values = [(v % 65 - 32) / 8.0 for v in pairs]
    elif dtype.code == 0:
        values = [v % 2001 - 1000 for v in pairs]
    else:
        values = [v % 2001 for v in pairs]
    return dtype.pack(values)


def read_npy(path):
    """Minimal .npy reader (v1/v2/v3, C order) returning (descr, shape, raw bytes)."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY":
        raise ValueError("%s: not a .npy file" % path)
    major = raw[6]
    if major == 1:
        hlen, start = struct.unpack("<H", raw[8:10])[0], 10
    else:
        hlen, start = struct.unpack("<I", raw[8:12])[0], 12
    header = raw[start:start + hlen].decode("latin1")
    import ast                       # header is a Python dict literal
    meta = ast.literal_eval(header)
    if meta["fortran_order"]:
        raise ValueError("%s: Fortran-ordered arrays are not supported" % path)
    return meta["descr"], tuple(meta["shape"]), raw[start + hlen:]


def load(source, dtype, shape, seed, base_dir):
    """Raw bytes of a tensor described by a spec entry (see README: data sources)."""
    nbytes = count_of(shape) * dtype.itemsize
    if "data" in source:
        values = source["data"]
        if len(values) != count_of(shape):
            raise ValueError("'data' has %d values, shape %s needs %d" % (len(values), shape, count_of(shape)))
        raw = dtype.pack([dtype.normalize(v) for v in values])
    elif "base64" in source:
        raw = base64.b64decode(source["base64"])
    elif "npy" in source:
        descr, npy_shape, raw = read_npy(os.path.join(base_dir, source["npy"]))
        if descr != dtype.npy_descr or list(npy_shape) != list(shape):
            raise ValueError("%s holds %s %s, expected %s %s" % (source["npy"], descr, list(npy_shape),
                                                               dtype.npy_descr, list(shape)))
    else:
        raw = random_bytes(dtype, shape, "%s:%s" % (seed, source.get("seed", "")))
    if len(raw) != nbytes:
        raise ValueError("tensor data is %d bytes, expected %d" % (len(raw), nbytes))
    return raw

"""The runtime's float16 conversions (__gnu_f2h_ieee, __gnu_h2f_ieee, __truncdfhf2) against
numpy's casts, an independent implementation: every half, and floats and doubles at every rounding
boundary between adjacent halves (the tie and its neighbours one ulp away), plus random values
across the whole range. The float32 side is also checked exhaustively against the F16C instruction
in tests/unit/test_half.cc; doubles have no hardware reference, so this is their check."""
import ctypes

import numpy as np
import pytest

from aotrt import _ffi

LIB = _ffi._LIB
F2H = LIB.__gnu_f2h_ieee
F2H.argtypes, F2H.restype = [ctypes.c_float], ctypes.c_uint16
D2H = LIB.__truncdfhf2
D2H.argtypes, D2H.restype = [ctypes.c_double], ctypes.c_uint16
H2F = LIB.__gnu_h2f_ieee
H2F.argtypes, H2F.restype = [ctypes.c_uint16], ctypes.c_float

ALL_HALVES = np.arange(0x10000, dtype=np.uint16)


def expected_half(values):
    """numpy's cast, except for NaN payloads: numpy keeps a NaN signaling (and makes a payload
    that would vanish 1); the runtime, like compiler-rt and F16C, gives sign | 0x7e00 | the top 9
    payload bits below the quiet bit."""
    with np.errstate(over="ignore", invalid="ignore"):
        want = values.astype(np.float16).view(np.uint16).copy()
    nan = np.isnan(values)
    if values.dtype == np.float32:
        bits, sig_bits, sign_shift = values.view(np.uint32).astype(np.uint64), 23, 16
    else:
        bits, sig_bits, sign_shift = values.view(np.uint64), 52, 48
    quiet = ((bits >> sign_shift) & 0x8000) | 0x7E00 | ((bits >> (sig_bits - 10)) & 0x1FF)
    want[nan] = quiet[nan].astype(np.uint16)
    return want


def narrow(fn, values):
    return np.array([fn(v) for v in values.tolist()], dtype=np.uint16)


def boundaries(dtype):
    """For every pair of adjacent non-negative halves (0 .. 65504 .. inf): the midpoint, and the
    values one ulp of `dtype` below and above it; both signs."""
    pos = ALL_HALVES[:0x7c01].view(np.float16).astype(np.float64)   # 0 .. inf
    mid = ((pos[:-1] + pos[1:]) / 2)[:-1]                          # exact in float64
    mid = np.append(mid, 65520.0)                                   # the overflow boundary
    mid = mid.astype(dtype)
    assert np.array_equal(mid.astype(np.float64), np.append(((pos[:-1] + pos[1:]) / 2)[:-1], 65520.0))
    vals = np.concatenate([mid, np.nextafter(mid, dtype(0)), np.nextafter(mid, dtype(np.inf))])
    return np.concatenate([vals, -vals])


def test_every_half_widens_exactly():
    got = np.array([H2F(int(h)) for h in ALL_HALVES], dtype=np.float32).view(np.uint32)
    want = ALL_HALVES.view(np.float16).astype(np.float32).view(np.uint32)
    # NaNs: sign and payload kept. The quiet bit cannot be seen from here (ctypes turns the float
    # into a Python float, which quiets it); tests/unit/test_half.cc checks it.
    h = ALL_HALVES.astype(np.uint32)
    nan = ((h & 0x7C00) == 0x7C00) & ((h & 0x3FF) != 0)
    want[nan] = ((h & 0x8000) << 16 | 0x7FC00000 | (h & 0x3FF) << 13)[nan]
    got[nan] |= 0x00400000
    assert np.array_equal(got, want)


def test_every_half_round_trips():
    floats = ALL_HALVES.view(np.float16).astype(np.float32)
    quiet = np.where(np.isnan(floats), ALL_HALVES | 0x0200, ALL_HALVES).astype(np.uint16)
    assert np.array_equal(narrow(F2H, floats), quiet)
    with np.errstate(invalid="ignore"):
        doubles = floats.astype(np.float64)
    assert np.array_equal(narrow(D2H, doubles), quiet)


@pytest.mark.parametrize("dtype,fn", [(np.float32, F2H), (np.float64, D2H)], ids=["float", "double"])
def test_rounding_boundaries(dtype, fn):
    values = boundaries(dtype)
    assert len(values) == 6 * 0x7c00
    got, want = narrow(fn, values), expected_half(values)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, "first: %r -> 0x%04x, numpy 0x%04x" % (values[bad[0]], got[bad[0]], want[bad[0]])


@pytest.mark.parametrize("dtype,fn", [(np.float32, F2H), (np.float64, D2H)], ids=["float", "double"])
def test_random_bit_patterns(dtype, fn):
    rng = np.random.default_rng(17)
    uint = np.uint32 if dtype == np.float32 else np.uint64
    raw = rng.integers(0, np.iinfo(uint).max, size=100_000, dtype=uint, endpoint=True)
    # Half of them in and near the half range (|x| in 2^-30 .. 2^17), where rounding matters.
    near = rng.uniform(-30, 17, size=100_000)
    values = np.concatenate([raw.view(dtype), (np.exp2(near) * rng.choice([-1, 1], size=near.size)).astype(dtype)])
    got, want = narrow(fn, values), expected_half(values)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, "first: %r -> 0x%04x, numpy 0x%04x" % (values[bad[0]], got[bad[0]], want[bad[0]])


def test_double_is_rounded_once():
    # 1 + 2^-11 + 2^-40: above the tie between 1 and 1 + 2^-10, so it rounds up; through float32
    # (which rounds it to the tie itself) it would round to even, down.
    x = 1.0 + 2.0 ** -11 + 2.0 ** -40
    assert D2H(x) == 0x3C01 == np.float16(x).view(np.uint16)
    assert F2H(x) == 0x3C00

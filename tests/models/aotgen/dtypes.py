"""Data types supported by the generator: DLPack codes, C types, .npy/struct encodings.

float16 is stored as its bits (C type uint16_t) and computed in float32, as TVM does; bool is
DLPack's uint1, one byte per element holding 0 or 1 (numpy's bool).
"""
import math
import struct
from dataclasses import dataclass


@dataclass(frozen=True)
class DType:
    name: str      # TVM string form, e.g. "float32"
    code: int      # DLDataType.code (0 int, 1 uint, 2 float)
    bits: int
    ctype: str     # C element type
    fmt: str       # struct format character (little-endian)

    @property
    def itemsize(self):
        return (self.bits + 7) // 8

    @property
    def is_float(self):
        return self.code == 2

    @property
    def is_half(self):
        return self.code == 2 and self.bits == 16

    @property
    def is_bool(self):
        return self.code == 1 and self.bits == 1

    @property
    def npy_descr(self):
        kind = "b" if self.is_bool else {0: "i", 1: "u", 2: "f"}[self.code]
        order = "|" if self.itemsize == 1 else "<"
        return "%s%s%d" % (order, kind, self.itemsize)

    def normalize(self, value):
        """Round/wrap a Python number to what a C variable of this type would hold."""
        if self.is_bool:
            return 1 if value else 0
        if self.is_float:
            if self.bits == 32:
                return to_float32(value)
            if self.bits == 16:
                return to_float16(value)
            return float(value)
        value = int(value)
        mask = (1 << self.bits) - 1
        value &= mask
        if self.code == 0 and value >> (self.bits - 1):
            value -= 1 << self.bits
        return value

    def pack(self, values):
        return struct.pack("<%d%s" % (len(values), self.fmt), *values)

    def unpack(self, raw):
        return list(struct.unpack("<%d%s" % (len(raw) // self.itemsize, self.fmt), raw))


def to_float32(value):
    return struct.unpack("<f", struct.pack("<f", value))[0]


def to_float16(value):
    """Nearest float16 (ties to even), overflow to +-inf, as a Python float. A float32 input is
    rounded once: struct's 'e' packing rounds the exact double value."""
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        return value
    try:
        return struct.unpack("<e", struct.pack("<e", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


_ALL = [
    DType("bool", 1, 1, "uint8_t", "B"),
    DType("int8", 0, 8, "int8_t", "b"),
    DType("int16", 0, 16, "int16_t", "h"),
    DType("int32", 0, 32, "int32_t", "i"),
    DType("int64", 0, 64, "int64_t", "q"),
    DType("uint8", 1, 8, "uint8_t", "B"),
    DType("uint16", 1, 16, "uint16_t", "H"),
    DType("uint32", 1, 32, "uint32_t", "I"),
    DType("uint64", 1, 64, "uint64_t", "Q"),
    DType("float16", 2, 16, "uint16_t", "e"),
    DType("float32", 2, 32, "float", "f"),
    DType("float64", 2, 64, "double", "d"),
]
DTYPES = {d.name: d for d in _ALL}


def get(name):
    try:
        return DTYPES[name]
    except KeyError:
        raise ValueError("unsupported dtype %r (supported: %s)" % (name, ", ".join(DTYPES))) from None

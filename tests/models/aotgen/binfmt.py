"""Binary formats of ABI.md sections 5 and 6, plus NumPy .npy v1.0, written with the stdlib only."""
import struct

NDARRAY_MAGIC = 0xDD5E40F096B4A13F
IMPORT_TREE_ROW_PTR = [0, 1, 2, 2]     # factory -> metadata_module -> _lib (ABI 5.5)
IMPORT_TREE_CHILDREN = [1, 2]


class Stream:
    """dmlc::Stream encodings (ABI 5.1): little-endian scalars, length-prefixed strings/vectors."""

    def __init__(self):
        self.parts = []

    def u64(self, v):
        self.parts.append(struct.pack("<Q", v))

    def i32(self, v):
        self.parts.append(struct.pack("<i", v))

    def raw(self, b):
        self.parts.append(bytes(b))

    def string(self, s):
        b = s.encode("utf-8") if isinstance(s, str) else bytes(s)
        self.u64(len(b))
        self.raw(b)

    def u64_vector(self, values):
        self.u64(len(values))
        for v in values:
            self.u64(v)

    def string_vector(self, values):
        self.u64(len(values))
        for v in values:
            self.string(v)

    def getvalue(self):
        return b"".join(self.parts)


def dl_dtype_bytes(dtype, lanes=1):
    return struct.pack("<BBH", dtype.code, dtype.bits, lanes)


def ndarray(dtype, shape, data):
    """Serialized NDArray (ABI 6.1). `data` is the raw little-endian element bytes."""
    expect = dtype.itemsize
    for d in shape:
        expect *= d
    if len(data) != expect:
        raise ValueError("NDArray data is %d bytes, shape %s needs %d" % (len(data), shape, expect))
    s = Stream()
    s.u64(NDARRAY_MAGIC)
    s.u64(0)                     # reserved
    s.raw(struct.pack("<ii", 1, 0))   # DLDevice {kDLCPU, 0}
    s.i32(len(shape))
    s.raw(dl_dtype_bytes(dtype))
    for d in shape:
        s.raw(struct.pack("<q", d))
    s.raw(struct.pack("<q", len(data)))
    s.raw(data)
    return s.getvalue()


def factory_payload(params, module_name):
    """AotExecutorFactory SaveToBinary (ABI 6.3). params: list of (name, dtype, shape, bytes)."""
    s = Stream()
    s.u64(len(params))
    s.string_vector([p[0] for p in params])
    for _, dtype, shape, data in params:
        s.raw(ndarray(dtype, shape, data))
    s.string(module_name)
    return s.getvalue()


def module_blob(params, module_name):
    """Complete __tvm_dev_mblob contents, including the 8-byte length header (ABI 5.2, 5.5)."""
    s = Stream()
    s.u64(4)                                  # factory, metadata_module, _lib, _import_tree
    s.string("AotExecutorFactory")
    s.raw(factory_payload(params, module_name))
    s.string("metadata_module")               # empty payload
    s.string("_lib")                          # no payload
    s.string("_import_tree")
    s.u64_vector(IMPORT_TREE_ROW_PTR)
    s.u64_vector(IMPORT_TREE_CHILDREN)
    body = s.getvalue()
    return struct.pack("<Q", len(body)) + body


def npy(dtype, shape, data):
    """NumPy .npy format version 1.0 (header padded so data starts at a multiple of 64)."""
    if len(shape) == 1:
        shape_txt = "(%d,)" % shape[0]
    else:
        shape_txt = "(" + ", ".join(str(d) for d in shape) + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (dtype.npy_descr, shape_txt)
    prefix_len = 10                             # magic(6) + version(2) + header_len(2)
    pad = 64 - (prefix_len + len(header) + 1) % 64
    header = header + " " * (pad % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + data

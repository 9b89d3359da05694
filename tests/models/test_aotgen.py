"""Self-check of the aotgen test-model generator: /usr/bin/python3 -m pytest tests/models/test_aotgen.py

Generates every spec into a temporary folder, compiles the C with gcc, then checks the libraries
with code independent of the generator: a blob parser, ctypes mirrors of the ABI.md structs, a
tiny C "runtime" shim (workspace, last error, system-lib table) and `nm -D` against the real TVM
exports in /work/shared/fixtures/tvm.
"""
import ctypes
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = "/work/shared/fixtures/tvm"
sys.path.insert(0, HERE)
from aotgen import cli, spec  # noqa: E402
from aotgen.ops import SpecError  # noqa: E402

CFLAGS = ["-std=c11", "-O2", "-fPIC", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror",
          "-Wno-unused-parameter"]

SHIM_C = r"""
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
static char last_error[1024];
static int live_allocs, total_allocs;
static const char* sys_names[64];
static void* sys_ptrs[64];
static int sys_count;
void TVMAPISetLastError(const char* msg) { strncpy(last_error, msg, sizeof(last_error) - 1); }
const char* shim_last_error(void) { return last_error; }
void shim_clear_error(void) { last_error[0] = 0; }
void* TVMBackendAllocWorkspace(int dt, int di, uint64_t n, int code, int bits) {
  void* p = NULL;
  if (posix_memalign(&p, 64, n ? n : 1) != 0) return NULL;
  live_allocs++; total_allocs++;
  return p;
}
int TVMBackendFreeWorkspace(int dt, int di, void* p) { free(p); live_allocs--; return 0; }
int shim_live_allocs(void) { return live_allocs; }
int shim_total_allocs(void) { return total_allocs; }
int TVMBackendRegisterSystemLibSymbol(const char* name, void* ptr) {
  sys_names[sys_count] = name; sys_ptrs[sys_count] = ptr; sys_count++;
  return 0;
}
int shim_sys_count(void) { return sys_count; }
const char* shim_sys_name(int i) { return sys_names[i]; }
void* shim_sys_ptr(int i) { return sys_ptrs[i]; }
"""


# --- ctypes mirrors of ABI.md 1.4 / 7.1 ------------------------------------------------------------
class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class TVMTensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("num_shape", ctypes.c_int64), ("dtype", DLDataType)]


class TVMConstantInfo(ctypes.Structure):
    _fields_ = [("name_hint", ctypes.c_char_p), ("byte_offset", ctypes.c_int64),
                ("data_len", ctypes.c_int64), ("data_bytes", ctypes.c_void_p)]


class TVMMetadata(ctypes.Structure):
    _fields_ = [("version", ctypes.c_int64),
                ("inputs", ctypes.POINTER(TVMTensorInfo)), ("num_inputs", ctypes.c_int64),
                ("outputs", ctypes.POINTER(TVMTensorInfo)), ("num_outputs", ctypes.c_int64),
                ("workspace_pools", ctypes.POINTER(TVMTensorInfo)), ("num_workspace_pools", ctypes.c_int64),
                ("constant_pools", ctypes.POINTER(TVMConstantInfo)), ("num_constant_pools", ctypes.c_int64),
                ("mod_name", ctypes.c_char_p)]


PACKED = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int32), ctypes.c_int32,
                          ctypes.c_void_p, ctypes.POINTER(ctypes.c_int32), ctypes.c_void_p)
DTYPES = {"int8": (0, 8), "int32": (0, 32), "int64": (0, 64), "uint8": (1, 8),
          "float32": (2, 32), "float64": (2, 64)}
NPY = {"<f4": "float32", "<f8": "float64", "|i1": "int8", "|u1": "uint8", "<i4": "int32", "<i8": "int64"}


def test_struct_layouts_match_abi():
    assert ctypes.sizeof(DLTensor) == 48 and DLTensor.byte_offset.offset == 40 and DLTensor.dtype.offset == 20
    assert ctypes.sizeof(TVMTensorInfo) == 32 and TVMTensorInfo.dtype.offset == 24
    assert ctypes.sizeof(TVMConstantInfo) == 32 and TVMConstantInfo.data_bytes.offset == 24
    assert ctypes.sizeof(TVMMetadata) == 80 and TVMMetadata.mod_name.offset == 72
    assert TVMMetadata.constant_pools.offset == 56


# --- independent parsers --------------------------------------------------------------------------
class Reader:
    def __init__(self, b):
        self.b, self.pos = b, 0

    def take(self, n):
        assert self.pos + n <= len(self.b), "read past end"
        out = self.b[self.pos:self.pos + n]
        self.pos += n
        return out

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def string(self):
        return self.take(self.u64()).decode()

    def ndarray(self):
        magic, reserved = struct.unpack("<QQ", self.take(16))
        assert magic == 0xDD5E40F096B4A13F and reserved == 0
        dev_type, dev_id, ndim = struct.unpack("<iii", self.take(12))
        assert (dev_type, dev_id) == (1, 0)
        code, bits, lanes = struct.unpack("<BBH", self.take(4))
        shape = list(struct.unpack("<%dq" % ndim, self.take(8 * ndim)))
        size = struct.unpack("<q", self.take(8))[0]
        n = 1
        for d in shape:
            n *= d
        assert size == n * ((bits + 7) // 8)
        return {"dtype": (code, bits, lanes), "shape": shape, "data": self.take(size)}


def parse_blob(blob):
    r = Reader(blob)
    assert r.u64() == len(blob) - 8
    count = r.u64()
    entries = {}
    keys = []
    for _ in range(count):
        key = r.string()
        keys.append(key)
        if key == "AotExecutorFactory":
            n = r.u64()
            names = [r.string() for _ in range(r.u64())]
            assert len(names) == n
            arrays = [r.ndarray() for _ in range(n)]
            entries[key] = {"params": dict(zip(names, arrays)), "module_name": r.string()}
        elif key == "_import_tree":
            entries[key] = ([r.u64() for _ in range(r.u64())], [r.u64() for _ in range(r.u64())])
        elif key not in ("metadata_module", "_lib"):
            raise AssertionError("unexpected blob key %s" % key)
    assert r.pos == len(blob), "trailing bytes in blob"
    return keys, entries


def read_npy(path):
    raw = open(path, "rb").read()
    assert raw[:8] == b"\x93NUMPY\x01\x00"
    hlen = struct.unpack("<H", raw[8:10])[0]
    assert (10 + hlen) % 64 == 0
    header = eval(raw[10:10 + hlen].decode("latin1"))     # a dict literal written by the generator
    return NPY[header["descr"]], list(header["shape"]), raw[10 + hlen:]


# --- build everything once --------------------------------------------------------------------------
class Built:
    pass


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("aotgen"))
    specs = sorted(glob.glob(os.path.join(HERE, "specs", "*.json")))
    assert cli.main(specs + ["--out-dir", out]) == 0
    b = Built()
    b.out = out
    shim = os.path.join(out, "libshim.so")
    jobs = [subprocess.Popen(["gcc", "-shared", "-fPIC", "-O2", "-x", "c", "-", "-o", shim],
                             stdin=subprocess.PIPE)]
    jobs[0].stdin.write(SHIM_C.encode())
    jobs[0].stdin.close()
    for spec in specs:
        name = os.path.splitext(os.path.basename(spec))[0]
        jobs.append(subprocess.Popen(["gcc"] + CFLAGS + ["-shared", os.path.join(out, name + ".c"),
                                                         "-o", os.path.join(out, name + ".so")]))
    assert all(j.wait() == 0 for j in jobs)
    b.shim = ctypes.CDLL(shim, mode=ctypes.RTLD_GLOBAL)   # provides the c flavour's undefined symbols
    b.shim.shim_last_error.restype = ctypes.c_char_p
    b.shim.shim_sys_name.restype = ctypes.c_char_p
    b.shim.shim_sys_ptr.restype = ctypes.c_void_p
    b.libs = {}
    return b


def load(built, name):
    if name not in built.libs:
        lib = ctypes.CDLL(os.path.join(built.out, name + ".so"), mode=os.RTLD_NOW | os.RTLD_LOCAL)
        for var in ("__TVMAPISetLastError", "__TVMBackendAllocWorkspace", "__TVMBackendFreeWorkspace"):
            try:
                slot = ctypes.c_void_p.in_dll(lib, var)
            except ValueError:
                continue
            slot.value = ctypes.cast(getattr(built.shim, var[2:]), ctypes.c_void_p).value
        built.libs[name] = lib
    return built.libs[name]


def case(built, name):
    with open(os.path.join(built.out, name + ".case", "case.json")) as f:
        return json.load(f)


def blob_of(lib):
    addr = ctypes.addressof(ctypes.c_uint8.in_dll(lib, "__tvm_dev_mblob"))
    n = struct.unpack("<Q", ctypes.string_at(addr, 8))[0]
    return ctypes.string_at(addr, n + 8)


def metadata_of(fn_addr):
    fn = PACKED(fn_addr)
    ret, code = ctypes.c_void_p(), ctypes.c_int32(4)
    assert fn(None, None, 0, ctypes.addressof(ret), ctypes.byref(code), None) == 0
    assert code.value == 3
    return ctypes.cast(ret, ctypes.POINTER(TVMMetadata)).contents


def tensor_infos(ptr, n):
    return [(ptr[i].name.decode(), ptr[i].shape[:ptr[i].num_shape],
             (ptr[i].dtype.code, ptr[i].dtype.bits, ptr[i].dtype.lanes)) for i in range(n)]


# --- the runner: a minimal AOT executor in ctypes ---------------------------------------------------
class Buf:
    """64-byte aligned zeroed memory."""

    def __init__(self, nbytes):
        self.raw = ctypes.create_string_buffer(nbytes + 64)
        self.addr = (ctypes.addressof(self.raw) + 63) // 64 * 64
        self.nbytes = nbytes

    def write(self, data, offset=0):
        ctypes.memmove(self.addr + offset, data, len(data))

    def read(self):
        return ctypes.string_at(self.addr, self.nbytes)


def make_tensor(buf, shape, dtype, keep):
    code, bits = dtype[:2]
    shp = (ctypes.c_int64 * max(1, len(shape)))(*shape)
    t = DLTensor(buf.addr, DLDevice(1, 0), len(shape), DLDataType(code, bits, 1), shp, None, 0)
    keep += [shp, t, buf]
    return t


def run_model(built, fn_addr, md, inputs, nargs=None):
    """Call the entry like TVM's AotExecutor (ABI 7.3, 'safer rule'); returns (rc, outputs)."""
    keep, tensors, outs = [], [], []
    for name, shape, dt in tensor_infos(md.inputs, md.num_inputs):
        buf = Buf(len(inputs[name]))
        buf.write(inputs[name])
        tensors.append(make_tensor(buf, shape, dt, keep))
    for _, shape, dt in tensor_infos(md.outputs, md.num_outputs):
        n = 1
        for d in shape:
            n *= d
        buf = Buf(n * dt[1] // 8)
        outs.append(buf)
        tensors.append(make_tensor(buf, shape, dt, keep))
    if md.num_constant_pools:
        consts = []
        for i in range(md.num_constant_pools):
            c = md.constant_pools[i]
            arr = Reader(ctypes.string_at(c.data_bytes, c.data_len)).ndarray()
            consts.append((c.byte_offset, arr["data"]))
        buf = Buf(max(off + len(d) for off, d in consts))
        for off, d in consts:
            buf.write(d, off)
        tensors.append(make_tensor(buf, [buf.nbytes], (1, 8), keep))
    for _, shape, dt in tensor_infos(md.workspace_pools, md.num_workspace_pools):
        tensors.append(make_tensor(Buf(shape[0]), shape, dt, keep))
    n = len(tensors) if nargs is None else nargs
    values = (ctypes.c_void_p * len(tensors))(*[ctypes.addressof(t) for t in tensors])
    codes = (ctypes.c_int32 * len(tensors))(*([7] * len(tensors)))
    ret, ret_code = ctypes.c_void_p(), ctypes.c_int32(4)
    built.shim.shim_clear_error()
    rc = PACKED(fn_addr)(values, codes, n, ctypes.addressof(ret), ctypes.byref(ret_code), None)
    return rc, [b.read() for b in outs]


def case_inputs(built, name):
    c = case(built, name)
    inputs = {}
    for orig in c["inputs"]:
        san = "".join(ch if ch.isalnum() else "_" for ch in orig)
        sub = "params" if orig in c["params"] else "inputs"
        inputs[san] = read_npy(os.path.join(built.out, name + ".case", sub, san + ".npy"))[2]
    return c, inputs


MODELS = ["add_c", "add_llvm", "multi_io_c", "multi_io_llvm", "usmp_both_c", "usmp_both_llvm",
          "usmp_const_only_c", "usmp_ws_only_llvm", "custom_name", "clash_a", "clash_b",
          "failing_c", "failing_llvm", "big_params"]


@pytest.mark.parametrize("name", MODELS)
def test_model_runs_and_matches_reference(built, name):
    lib = load(built, name)
    c, inputs = case_inputs(built, name)
    md = metadata_of(ctypes.cast(lib.get_c_metadata, ctypes.c_void_p).value)
    entry = ctypes.cast(getattr(lib, md.mod_name.decode() + "___tvm_main__"), ctypes.c_void_p).value
    before, live = built.shim.shim_total_allocs(), built.shim.shim_live_allocs()
    rc, outs = run_model(built, entry, md, inputs)
    if "expect_error" in c:
        assert rc == -1
        assert c["expect_error"] in built.shim.shim_last_error().decode()
        # like TVM, the entry returns at once: the intermediate allocated before the failure leaks
        assert built.shim.shim_live_allocs() == live + 1
        return
    assert rc == 0, built.shim.shim_last_error()
    assert built.shim.shim_live_allocs() == live
    uses_ws = name in ("multi_io_c", "multi_io_llvm", "custom_name")   # intermediates, no USMP
    assert (built.shim.shim_total_allocs() > before) == uses_ws
    for i, raw in enumerate(outs):
        dtype, shape, expected = read_npy(os.path.join(built.out, name + ".case", "expected", "output%d.npy" % i))
        assert [shape, dtype] == c["outputs"][i]
        assert raw == expected, "output %d differs" % i


@pytest.mark.parametrize("name", MODELS)
def test_metadata_and_blob(built, name):
    lib = load(built, name)
    c = case(built, name)
    md = metadata_of(ctypes.cast(lib.get_c_metadata, ctypes.c_void_p).value)
    assert md.version == 1
    assert md.mod_name.decode() == "tvmgen_" + c["mod_name"]
    ins = tensor_infos(md.inputs, md.num_inputs)
    assert [i[0] for i in ins] == ["".join(ch if ch.isalnum() else "_" for ch in n) for n in c["inputs"]]
    for (_, shape, dt), (cshape, cdt) in zip(ins, c["inputs"].values()):
        assert shape == cshape and dt == DTYPES[cdt] + (1,)
    outs = tensor_infos(md.outputs, md.num_outputs)
    assert [o[0] for o in outs] == ["output%d" % i for i in range(len(outs))]
    assert [[o[1], o[2]] for o in outs] == [[s, DTYPES[d] + (1,)] for s, d in c["outputs"]]
    keys, entries = parse_blob(blob_of(lib))
    assert keys == ["AotExecutorFactory", "metadata_module", "_lib", "_import_tree"]
    assert entries["_import_tree"] == ([0, 1, 2, 2], [1, 2])
    assert entries["AotExecutorFactory"]["module_name"] == c["mod_name"]
    assert sorted(entries["AotExecutorFactory"]["params"]) == sorted(c["params"])
    for pname, arr in entries["AotExecutorFactory"]["params"].items():
        dtype, shape, data = read_npy(os.path.join(built.out, name + ".case", "params", pname + ".npy"))
        assert arr["shape"] == shape and arr["dtype"] == DTYPES[dtype] + (1,) and arr["data"] == data


def test_usmp_pools(built):
    md = metadata_of(ctypes.cast(load(built, "usmp_both_c").get_c_metadata, ctypes.c_void_p).value)
    pools = tensor_infos(md.workspace_pools, md.num_workspace_pools)
    assert [(p[0], p[2]) for p in pools] == [("global_workspace_1_var", (1, 8, 1))]
    assert md.num_constant_pools == 2
    c0, c1 = md.constant_pools[0], md.constant_pools[1]
    assert (c0.name_hint, c0.byte_offset, c1.byte_offset) == (b"fc_weight", 0, 160)
    assert c0.data_len == 40 + 8 * 2 + 5 * 8 * 4     # NDArray header (40 + 8*ndim) + data
    md = metadata_of(ctypes.cast(load(built, "usmp_ws_only_llvm").get_c_metadata, ctypes.c_void_p).value)
    assert [p[0] for p in tensor_infos(md.workspace_pools, md.num_workspace_pools)] == ["global_workspace_0_var"]
    assert md.num_constant_pools == 0
    md = metadata_of(ctypes.cast(load(built, "usmp_const_only_c").get_c_metadata, ctypes.c_void_p).value)
    assert md.num_workspace_pools == 0 and md.num_constant_pools == 2


def test_add_c_blob_identical_to_tvm(built):
    ours = blob_of(load(built, "add_c"))
    theirs = blob_of(ctypes.CDLL(os.path.join(FIXTURES, "tiny_add_c", "model.so"), mode=os.RTLD_LOCAL))
    assert ours == theirs


def test_llvm_argument_checks(built):
    lib = load(built, "add_llvm")
    md = metadata_of(ctypes.cast(lib.get_c_metadata, ctypes.c_void_p).value)
    entry = ctypes.cast(lib.tvmgen_default___tvm_main__, ctypes.c_void_p).value
    one = struct.pack("<f", 1.0)
    rc, _ = run_model(built, entry, md, {"a": one, "b": one}, nargs=2)
    assert rc == -1 and b"tvmgen_default___tvm_main__: num_args should be 3" in built.shim.shim_last_error()
    rc, outs = run_model(built, entry, md, {"a": one, "b": one})
    assert rc == 0 and struct.unpack("<f", outs[0])[0] == 2.0
    # wrong dtype on the first input
    t = DLTensor(None, DLDevice(1, 0), 1, DLDataType(2, 64, 1), (ctypes.c_int64 * 1)(1), None, 0)
    buf = Buf(8)
    t.data = buf.addr
    vals = (ctypes.c_void_p * 3)(ctypes.addressof(t), ctypes.addressof(t), ctypes.addressof(t))
    codes = (ctypes.c_int32 * 3)(7, 7, 7)
    ret, rcode = ctypes.c_void_p(), ctypes.c_int32(4)
    assert PACKED(entry)(vals, codes, 3, ctypes.addressof(ret), ctypes.byref(rcode), None) == -1
    assert b"dtype is expected to be float32" in built.shim.shim_last_error()
    codes[1] = 0          # an int where a pointer is expected
    assert PACKED(entry)(vals, codes, 3, ctypes.addressof(ret), ctypes.byref(rcode), None) == -1


def test_c_flavour_has_no_checks_and_clash_libraries_differ(built):
    a, b = load(built, "clash_a"), load(built, "clash_b")
    names = lambda lib: sorted(n for n in nm_defined(os.path.join(built.out, lib + ".so")))  # noqa: E731
    assert names("clash_a") == names("clash_b")
    one = struct.pack("<4f", 1, 2, 3, 4)
    res = []
    for lib in (a, b):
        md = metadata_of(ctypes.cast(lib.get_c_metadata, ctypes.c_void_p).value)
        res.append(run_model(built, ctypes.cast(lib.tvmgen_default___tvm_main__, ctypes.c_void_p).value,
                             md, {"a": one, "b": one})[1][0])
    assert struct.unpack("<4f", res[0]) == (2, 4, 6, 8) and struct.unpack("<4f", res[1]) == (0, 0, 0, 0)


def nm_defined(path):
    out = subprocess.check_output(["nm", "-D", "--defined-only", path]).decode()
    return {line.split()[2]: line.split()[1] for line in out.splitlines() if len(line.split()) == 3}


def nm_undefined(path):
    out = subprocess.check_output(["nm", "-D", "--undefined-only", path]).decode()
    return {line.split()[-1] for line in out.splitlines() if "TVM" in line}


@pytest.mark.parametrize("ours,fixture", [("add_c", "tiny_add_c"), ("add_llvm", "tiny_add_llvm"),
                                          ("usmp_both_c", "conv2d_c_usmp"),
                                          ("multi_io_llvm", "conv2d_llvm_nousmp")])
def test_symbols_like_tvm(built, ours, fixture):
    mine = nm_defined(os.path.join(built.out, ours + ".so"))
    real = nm_defined(os.path.join(FIXTURES, fixture, "model.so"))
    for sym, kind in real.items():
        if sym in ("__extendhfsf2", "__truncsfhf2") or "_fused_" in sym:
            continue          # compiler helpers of LLVM; operator names depend on the model
        assert mine.get(sym) == kind, sym
    assert nm_undefined(os.path.join(built.out, ours + ".so")) == nm_undefined(os.path.join(FIXTURES, fixture,
                                                                                            "model.so"))


def test_c_flavour_undefined_runtime_symbols(built):
    assert nm_undefined(os.path.join(built.out, "multi_io_c.so")) == {"TVMBackendAllocWorkspace",
                                                                      "TVMBackendFreeWorkspace"}
    assert nm_undefined(os.path.join(built.out, "failing_c.so")) == {"TVMAPISetLastError", "TVMBackendAllocWorkspace",
                                                                     "TVMBackendFreeWorkspace"}
    assert nm_undefined(os.path.join(built.out, "usmp_const_only_c.so")) == set()
    kinds = nm_defined(os.path.join(built.out, "multi_io_llvm.so"))
    for var in ("__TVMFuncCall", "__TVMAPISetLastError", "__TVMBackendGetFuncFromEnv", "__TVMBackendParallelLaunch",
                "__TVMBackendParallelBarrier", "__TVMBackendAllocWorkspace", "__TVMBackendFreeWorkspace",
                "__tvm_module_ctx"):
        assert kinds[var] == "V", var


def nm_all_undefined(path):
    out = subprocess.check_output(["nm", "-D", "--undefined-only", path]).decode()
    return {line.split()[-1].split("@")[0] for line in out.splitlines()}


def test_float16_helpers_and_missing_symbols(built):
    # llvm: the float16 helpers stay undefined for the runtime, as in LLVM-14 TVM exports;
    # c: _Float16 with libgcc's conversions linked in, nothing left for the runtime.
    assert {"__gnu_f2h_ieee", "__gnu_h2f_ieee"} <= nm_all_undefined(os.path.join(built.out, "half_llvm.so"))
    assert not nm_all_undefined(os.path.join(built.out, "half_c.so")) & {"__gnu_f2h_ieee", "__gnu_h2f_ieee",
                                                                     "__extendhfsf2", "__truncsfhf2"}
    for flavour in ("c", "llvm"):
        path = os.path.join(built.out, "missing_symbol_%s.so" % flavour)
        assert "aotrt_test_nobody_defines_this" in nm_all_undefined(path)
        with open(os.path.join(built.out, "missing_symbol_%s.case" % flavour, "case.json")) as f:
            c = json.load(f)
        assert c["expect_load_error"] == "aotrt_test_nobody_defines_this"
        assert not os.listdir(os.path.join(built.out, "missing_symbol_%s.case" % flavour, "expected"))


def test_call_extern_needs_expect_load_error():
    spec_ = {"inputs": [{"name": "x", "shape": [2], "dtype": "float32"}],
             "ops": [{"op": "call_extern", "function": "expf", "args": ["x"], "out": "y"}], "outputs": ["y"]}
    with pytest.raises(SpecError, match="expect_load_error"):
        spec.build(spec_, "t")


def test_syslib_registers_and_runs(built):
    # Load the system-lib object as a shared library: its constructor registers into the shim.
    path = os.path.join(built.out, "syslib_as_so.so")
    subprocess.check_call(["gcc"] + CFLAGS + ["-shared", os.path.join(built.out, "syslib.c"), "-o", path])
    # As in TVM's system-lib objects (ABI.md 4): get_c_metadata is a global symbol and is not
    # registered; everything else is reached through the registration table only.
    assert nm_defined(path)["get_c_metadata"] == "T"
    assert not nm_defined(path).keys() & {"__tvm_dev_mblob", "tvmgen_default___tvm_main__"}
    start = built.shim.shim_sys_count()
    lib = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_LOCAL)
    table = {built.shim.shim_sys_name(i).decode(): built.shim.shim_sys_ptr(i)
             for i in range(start, built.shim.shim_sys_count())}
    assert set(table) == {"tvmgen_default_fused_add", "tvmgen_default_fused_nn_relu", "tvmgen_default___tvm_main__",
                          "__tvm_module_ctx", "__tvm_dev_mblob"}
    n = struct.unpack("<Q", ctypes.string_at(table["__tvm_dev_mblob"], 8))[0]
    keys, _ = parse_blob(ctypes.string_at(table["__tvm_dev_mblob"], n + 8))
    assert keys[0] == "AotExecutorFactory"
    md = metadata_of(ctypes.cast(lib.get_c_metadata, ctypes.c_void_p).value)
    c, inputs = case_inputs(built, "syslib")
    live = built.shim.shim_live_allocs()
    rc, outs = run_model(built, table["tvmgen_default___tvm_main__"], md, inputs)
    assert rc == 0 and built.shim.shim_live_allocs() == live
    assert outs[0] == read_npy(os.path.join(built.out, "syslib.case", "expected", "output0.npy"))[2]


def test_cmake_function_present():
    text = open(os.path.join(HERE, "CMakeLists.txt")).read()
    assert "function(aotrt_add_test_model NAME)" in text and "aotrt_test_models" in text
    text += open(os.path.join(HERE, "..", "..", "bench", "CMakeLists.txt")).read()  # bench-only models
    for spec in glob.glob(os.path.join(HERE, "specs", "*.json")):
        assert os.path.splitext(os.path.basename(spec))[0] in text


def test_gcc_available():
    assert shutil.which("gcc") and shutil.which("nm")


def test_data_sources(built, tmp_path):
    """Weights given inline (data / base64) or as a side .npy file, as a digits MLP would; inexact
    float32 arithmetic in C must still match the reference bit for bit."""
    from aotgen import binfmt, dtypes, emit_c, reference, spec
    f32 = dtypes.get("float32")
    w = [0.1 * i for i in range(12)]
    (tmp_path / "w.npy").write_bytes(binfmt.npy(f32, [3, 4], f32.pack(w)))
    import base64
    b64 = base64.b64encode(f32.pack([1.5, -2.0, 0.25])).decode()
    model = spec.build({
        "inputs": [{"name": "x", "shape": [1, 4], "dtype": "float32", "test_data": {"data": [1, 2, 3, 4]}}],
        "constants": {"w": {"shape": [3, 4], "dtype": "float32", "npy": "w.npy"},
                      "b": {"shape": [3], "dtype": "float32", "base64": b64}},
        "ops": [{"op": "dense", "args": ["x", "w", "b"], "out": "h"},
                {"op": "relu", "args": ["h"], "out": "r"},
                {"op": "argmax", "args": ["r"], "out": "cls"}],
        "outputs": ["r", "cls"]}, "mlp", str(tmp_path))
    r, cls = reference.run(model)
    f = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]  # noqa: E731
    expect = []
    for j, bias in enumerate([1.5, -2.0, 0.25]):
        acc = 0.0
        for k in range(4):
            acc = f(acc + f(f(k + 1) * f(w[j * 4 + k])))
        expect.append(max(f(acc + bias), 0.0))
    assert list(struct.unpack("<3f", r)) == expect
    assert struct.unpack("<i", cls)[0] == expect.index(max(expect))
    (tmp_path / "mlp.c").write_text(emit_c.generate(model))
    subprocess.check_call(["gcc"] + CFLAGS + ["-shared", str(tmp_path / "mlp.c"), "-o", str(tmp_path / "mlp.so")])
    lib = ctypes.CDLL(str(tmp_path / "mlp.so"), mode=os.RTLD_NOW | os.RTLD_LOCAL)
    md = metadata_of(ctypes.cast(lib.get_c_metadata, ctypes.c_void_p).value)
    rc, outs = run_model(built, ctypes.cast(lib.tvmgen_default___tvm_main__, ctypes.c_void_p).value, md,
                         {"x": model.inputs[0].raw})
    assert rc == 0 and outs == [r, cls]


def test_overrun_op_attribute():
    """attr "overrun" (issue 10): the operator stores N bytes past its result, which must end the
    USMP workspace pool or be a workspace block; the case records what a bounds check reports."""
    from aotgen import emit_c, spec
    from aotgen.ops import SpecError

    def build(usmp, ops, outputs=("y",)):
        return spec.build({"usmp": usmp, "inputs": [{"name": "a", "shape": [3, 5], "dtype": "int32"}],
                           "ops": ops, "outputs": list(outputs)}, "ovr")
    ok = [{"op": "relu", "args": ["a"], "out": "h"},
          {"op": "relu", "args": ["h"], "out": "d", "overrun": 24},
          {"op": "add", "args": ["d", "a"], "out": "y"}]
    for usmp in (True, False):
        model = build(usmp, ok)
        code = emit_c.generate(model)
        assert "for (int64_t i = 0; i < 24; ++i)" in code
        assert "((volatile uint8_t*)out)[60 + i]" in code     # d: 15 int32 = 60 bytes
    assert build(True, ok).ws_pool_size == 64 + 60             # h at 0, d at 64 (16-aligned)
    bad = [
        ([{"op": "relu", "args": ["a"], "out": "y", "overrun": 4}], "outputs are caller memory"),
        ([{"op": "relu", "args": ["a"], "out": "h", "overrun": 0},
          {"op": "add", "args": ["h", "a"], "out": "y"}], "positive"),
    ]
    for ops, msg in bad:
        with pytest.raises(SpecError, match=msg):
            build(False, ops)
    not_last = [{"op": "relu", "args": ["a"], "out": "h", "overrun": 4},
                {"op": "relu", "args": ["h"], "out": "d"},
                {"op": "add", "args": ["d", "a"], "out": "y"}]
    build(False, not_last)                                     # a block of its own: fine
    with pytest.raises(SpecError, match="end of the workspace pool"):
        build(True, not_last)


def test_overrun_case_json(tmp_path):
    from aotgen import casegen
    from aotgen import spec
    for name, expect in [("overrun_usmp_llvm", {"bytes": 24, "pool": "global_workspace", "buffer_bytes": 248}),
                         ("overrun_ws_c", {"bytes": 8, "pool": None, "buffer_bytes": 4096})]:
        model = spec.load_file(os.path.join(HERE, "specs", name + ".json"))
        casegen.write_case(model, str(tmp_path / (name + ".case")))
        with open(tmp_path / (name + ".case") / "case.json") as f:
            assert json.load(f)["overrun"] == expect


def test_portable_half_helpers_match_float16(tmp_path):
    """The c flavour's portable float16 conversions (for compilers without _Float16, e.g. clang 14
    on x86) equal gcc's _Float16 casts: every half widened, and floats narrowed on a stride of the
    bit patterns plus every rounding boundary between two halves."""
    from aotgen import emit_c
    hw = emit_c.C_HALF_HELPERS.replace("aotgen_", "hw_").replace("AOTGEN_H2F", "HW_H2F").replace("AOTGEN_F2H", "HW_F2H")
    sw = emit_c.C_HALF_HELPERS.replace("#include <string.h>", "")
    src = tmp_path / "halfcheck.c"
    src.write_text("#include <stdint.h>\n#include <stdio.h>\n" + hw + "\n#define AOTGEN_SOFT_HALF 1\n" + sw + r"""
static long bad;
static void narrow(uint32_t u) {
  float f; memcpy(&f, &u, 4);
  if (hw_f2h(f) != aotgen_f2h(f) && bad++ < 5) printf("f2h %08x: %04x vs %04x\n", u, hw_f2h(f), aotgen_f2h(f));
}
int main(void) {
  for (uint32_t h = 0; h < 65536; ++h) {
    float a = hw_h2f((uint16_t)h), b = aotgen_h2f((uint16_t)h);
    if (memcmp(&a, &b, 4) != 0 && bad++ < 5) printf("h2f %04x\n", h);
    /* the float midway between half h and the next, and its neighbours */
    uint32_t lo, hi; memcpy(&lo, &a, 4); float next = hw_h2f((uint16_t)(h + 1)); memcpy(&hi, &next, 4);
    if ((h & 0x7c00) != 0x7c00 && h != 0x7fff && h != 0xffff) {
      float mid = (a + next) / 2; uint32_t m; memcpy(&m, &mid, 4);
      narrow(m - 1); narrow(m); narrow(m + 1);
    }
  }
  for (uint64_t x = 0; x <= 0xffffffffull; x += 65521) narrow((uint32_t)x);
  printf("mismatches: %ld\n", bad);
  return bad != 0;
}
""")
    exe = tmp_path / "halfcheck"
    subprocess.check_call(["gcc", "-O2", str(src), "-o", str(exe)])
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout


def _numpy_conv(x, w, strides, padding, depthwise):
    """Independent float64 NHWC convolution (the generator's semantics, written with numpy)."""
    import numpy as np
    x = np.pad(x, ((0, 0), (padding[0], padding[2]), (padding[1], padding[3]), (0, 0)))
    kh, kw = w.shape[0], w.shape[1]
    oh = (x.shape[1] - kh) // strides[0] + 1
    ow = (x.shape[2] - kw) // strides[1] + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[-1]))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i:i + strides[0] * oh:strides[0], j:j + strides[1] * ow:strides[1], :]
            out += patch * w[i, j] if depthwise else patch @ w[i, j]
    return out


@pytest.mark.parametrize("name", ["conv_net_c", "conv_net_llvm"])
def test_conv_reference_matches_numpy(name):
    """The bit-exact reference of conv2d / depthwise_conv2d / global_avg_pool2d against numpy in
    float64: same strides, padding, bias, clip and averaging (to float32 rounding)."""
    import numpy as np
    from aotgen import reference
    model = spec.load_file(os.path.join(HERE, "specs", name + ".json"))
    arr = lambda t: np.frombuffer(t.raw, "<f4").reshape(t.shape).astype(np.float64)  # noqa: E731
    values = {t.name: arr(t) for t in model.inputs + model.constants}
    for node in model.nodes:
        a = [values[t.name] for t in node.args]
        if node.op.name in ("conv2d", "depthwise_conv2d"):
            y = _numpy_conv(a[0], a[1], node.attrs.get("strides", [1, 1]), node.attrs.get("padding", [0] * 4),
                            node.op.name == "depthwise_conv2d")
            if len(a) == 3:
                y = y + a[2]
            if "clip" in node.attrs:
                y = np.clip(y, *node.attrs["clip"])
        elif node.op.name == "global_avg_pool2d":
            y = a[0].mean(axis=(1, 2))
        else:
            assert node.op.name == "dense"
            y = a[0] @ a[1].T + a[2]
        values[node.out.name] = y
    got = reference.run(model)
    for t, raw in zip(model.outputs, got):
        ours = np.frombuffer(raw, "<f4").reshape(t.shape)
        np.testing.assert_allclose(ours, values[t.name], rtol=1e-5, atol=1e-4, err_msg=t.name)
    assert np.abs(values["logits"]).max() > 1          # not a degenerate all-zero network


def _alive_together(model):
    """Pairs of distinct intermediates whose lifetimes (writer .. last reader) overlap, worked out
    here rather than by the generator."""
    first, last = {}, {}
    for i, n in enumerate(model.nodes):
        for a in n.args:
            last[a.name] = i
        first[n.out.name] = i
    ts = model.intermediates
    pairs = [(a, b) for a in ts for b in ts if a is not b and
             not (last.get(a.name, first[a.name]) < first[b.name] or last.get(b.name, first[b.name]) < first[a.name])]
    assert pairs, "a network where some buffers are alive together"
    return pairs


def test_greedy_by_size_planning():
    """usmp_algorithm greedy_by_size: no two buffers alive at once share bytes, offsets are
    16-aligned, and the pool is smaller than the sequential plan's."""
    model = spec.load_file(os.path.join(HERE, "specs", "conv_net_c.json"))
    ts = model.intermediates
    assert len(ts) >= 4
    assert all(t.offset % 16 == 0 for t in ts)
    for a, b in _alive_together(model):
        assert a.offset + a.nbytes <= b.offset or b.offset + b.nbytes <= a.offset, (a.name, b.name)
    sequential = sum((t.nbytes + 15) // 16 * 16 for t in ts)
    assert model.ws_pool_size < sequential
    # the largest buffer and the one written from it cannot share, so the pool holds both
    assert model.ws_pool_size >= max(t.nbytes for t in ts)
    with open(os.path.join(HERE, "specs", "conv_net_c.json")) as f:
        doc = json.load(f)
    doc["usmp_algorithm"] = "hill_climb"
    with pytest.raises(SpecError, match="usmp_algorithm"):
        spec.build(doc, "bad")


def test_storage_reuse_without_usmp(built):
    """storage_reuse: intermediates alive at once never share a workspace block, blocks are shared
    otherwise (fewer allocations than intermediates), each is as large as its largest tensor, and
    the entry allocates exactly those blocks per run (counted by the shim)."""
    model = spec.load_file(os.path.join(HERE, "specs", "conv_net_llvm.json"))
    ts = model.intermediates
    assert all(model.storages[t.storage][0] >= t.nbytes for t in ts)
    for a, b in _alive_together(model):
        assert a.storage != b.storage, (a.name, b.name)
    assert 1 < len(model.storages) < len(ts)
    lib = load(built, "conv_net_llvm")
    md = metadata_of(ctypes.cast(lib.get_c_metadata, ctypes.c_void_p).value)
    before = built.shim.shim_total_allocs()
    rc, _ = run_model(built, ctypes.cast(lib.tvmgen_default___tvm_main__, ctypes.c_void_p).value, md,
                      {"image": model.inputs[0].raw})
    assert rc == 0 and built.shim.shim_total_allocs() - before == len(model.storages)
    with open(os.path.join(HERE, "specs", "conv_net_llvm.json")) as f:
        doc = json.load(f)
    doc["usmp"] = True
    with pytest.raises(SpecError, match="storage_reuse is for models without usmp"):
        spec.build(doc, "bad")


@pytest.mark.parametrize("op,attrs,msg", [
    ({"op": "conv2d", "args": ["x", "w4"]}, {"padding": [1, 1]}, "padding must be"),
    ({"op": "conv2d", "args": ["x", "w4"]}, {"strides": [0, 1]}, "strides must be positive"),
    ({"op": "conv2d", "args": ["x", "w4"]}, {"clip": [6, 0]}, "clip must be"),
    ({"op": "conv2d", "args": ["x", "w4"]}, {"clip": ["0", 6]}, "clip must be"),
    ({"op": "conv2d", "args": ["x", "w3"]}, {}, r"weight must be \[KH, KW, 3, CO\]"),
    ({"op": "depthwise_conv2d", "args": ["x", "w4"]}, {}, r"weight must be \[KH, KW, 3\]"),
    ({"op": "conv2d", "args": ["x", "big"]}, {}, "larger than the padded input"),
    ({"op": "conv2d", "args": ["i", "w4"]}, {}, "float32 only"),
    ({"op": "global_avg_pool2d", "args": ["w3"]}, {}, "NHWC input"),
])
def test_conv_spec_errors(op, attrs, msg):
    doc = {"inputs": [{"name": "x", "shape": [1, 4, 4, 3], "dtype": "float32"},
                      {"name": "i", "shape": [1, 4, 4, 3], "dtype": "int32"}],
           "constants": {"w4": {"shape": [3, 3, 3, 2], "dtype": "float32"},
                         "w3": {"shape": [3, 3, 3], "dtype": "float32"},
                         "big": {"shape": [5, 5, 3, 2], "dtype": "float32"}},
           "ops": [dict(op, out="y", **attrs)], "outputs": ["y"]}
    with pytest.raises(SpecError, match=msg):
        spec.build(doc, "bad")


def test_argsort_bool_type_code(tmp_path):
    """is_ascend_as_bool: the call passes is_ascend with TVM v0.18's kTVMArgBool (15), else 0."""
    def emitted(extra):
        doc = {"inputs": [{"name": "x", "shape": [4], "dtype": "float32"}],
               "ops": [dict({"op": "argsort", "args": ["x"], "out": "y"}, **extra)], "outputs": ["y"]}
        path = tmp_path / "argsort.json"
        path.write_text(json.dumps(doc))
        subprocess.run([sys.executable, os.path.join(HERE, "aotgen.py"), str(path), "--out-dir", str(tmp_path),
                        "--no-case"], check=True)
        return (tmp_path / "argsort.c").read_text()
    assert "call_codes[4] = {7, 7, 0, 15};" in emitted({"is_ascend_as_bool": True})
    assert "call_codes[4] = {7, 7, 0, 0};" in emitted({})
    with pytest.raises(SpecError, match="is_ascend_as_bool must be true or false"):
        spec.build({"inputs": [{"name": "x", "shape": [4], "dtype": "float32"}],
                    "ops": [{"op": "argsort", "args": ["x"], "out": "y", "is_ascend_as_bool": 1}],
                    "outputs": ["y"]}, "bad")


@pytest.mark.parametrize("op,attrs,msg", [
    ("relu", {"parallel": 2}, "parallel is only modelled for dense and matmul"),
    ("dense", {"parallel": 0}, r"parallel must be a number of tasks in \[1, 64\]"),
    ("dense", {"parallel": "2"}, r"parallel must be a number of tasks in \[1, 64\]"),
    ("dense", {"parallel": 65}, r"parallel must be a number of tasks in \[1, 64\]"),
])
def test_parallel_spec_errors(op, attrs, msg):
    args = ["x", "w"] if op == "dense" else ["x"]
    doc = {"inputs": [{"name": "x", "shape": [4, 3], "dtype": "float32"}],
           "constants": {"w": {"shape": [2, 3], "dtype": "float32"}},
           "ops": [dict({"op": op, "args": args, "out": "y"}, **attrs)], "outputs": ["y"]}
    with pytest.raises(SpecError, match=msg):
        spec.build(doc, "bad")


def test_parallel_operator_emits_a_launch():
    doc = {"flavour": "llvm", "inputs": [{"name": "x", "shape": [4, 3], "dtype": "float32"}],
           "constants": {"w": {"shape": [2, 3], "dtype": "float32"}},
           "ops": [{"op": "dense", "args": ["x", "w"], "out": "y", "parallel": 3}], "outputs": ["y"]}
    from aotgen import emit_c
    c = emit_c.generate(spec.build(doc, "par"))
    assert "__TVMBackendParallelLaunch(__tvm_parallel_lambda_0, &cdata, 3)" in c
    assert "for (int64_t i = begin; i < end; ++i)" in c

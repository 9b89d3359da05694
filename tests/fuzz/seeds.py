"""Seed corpora for the fuzz targets, made with the test-model generator's own encoders (which do
not use aotrt) plus the generated model libraries and .npy files of a build.
usage: seeds.py MODELS_DIR OUT_DIR   (MODELS_DIR: a build's models/ folder)"""
import gzip
import io
import lzma
import os
import struct
import sys
import tarfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
from aotgen import binfmt, dtypes  # noqa: E402


def write(out, kind, name, data):
    os.makedirs(os.path.join(out, kind), exist_ok=True)
    with open(os.path.join(out, kind, name), "wb") as f:
        f.write(data)


POINTER_TAG = 0xA07AB0D5  # fuzz_metadata.cc relocates words tagged so to image + low half


class Image:
    """A synthetic library image for fuzz_metadata: the TVMMetadata struct at offset 0."""

    def __init__(self):
        self.data = bytearray(80)  # sizeof(TVMMetadata)

    def put(self, raw, align=8):
        self.data += b"\0" * (-len(self.data) % align)
        offset = len(self.data)
        self.data += raw
        return (POINTER_TAG << 32) | offset

    def string(self, s):
        return self.put(s.encode() + b"\0", 1)

    def tensors(self, specs):  # [(name, shape, (code, bits, lanes))] -> TVMTensorInfo[]
        raw = b""
        for name, shape, (code, bits, lanes) in specs:
            shape_ptr = self.put(struct.pack("<%dq" % len(shape), *shape)) if shape else 0
            raw += struct.pack("<QQqBBH4x", self.string(name), shape_ptr, len(shape), code, bits, lanes)
        return self.put(raw)


def metadata_image(inputs, outputs, pools=(), constants=()):
    img = Image()
    ptrs = [img.tensors(inputs), img.tensors(outputs), img.tensors(pools) if pools else 0]
    consts = b""
    for name, offset, blob in constants:
        consts += struct.pack("<QqqQ", img.string(name), offset, len(blob), img.put(blob))
    const_ptr = img.put(consts) if consts else 0
    mod = img.string("tvmgen_default")
    img.data[0:80] = struct.pack("<qQqQqQqQqQ", 1, ptrs[0], len(inputs), ptrs[1], len(outputs), ptrs[2], len(pools),
                                 const_ptr, len(constants), mod)
    return bytes(img.data)


def npz(**arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def main(models, out):
    f32, i8 = dtypes.get("float32"), dtypes.get("int8")
    arrays = [("w", f32, [2, 3], f32.pack([0.5 * i for i in range(6)])), ("b", i8, [3], i8.pack([1, -2, 3]))]
    write(out, "blob", "no_params", binfmt.module_blob([], "default"))
    write(out, "blob", "two_params", binfmt.module_blob(arrays, "my_model"))
    for name, dtype, shape, data in arrays:
        write(out, "ndarray", name, binfmt.ndarray(dtype, shape, data))
    f32_code, u8_code = (2, 32, 1), (1, 8, 1)
    write(out, "metadata", "two_inputs", metadata_image([("a", [1, 4], f32_code), ("b:0", [4], f32_code)],
                                                         [("y", [1, 4], f32_code)]))
    write(out, "metadata", "usmp", metadata_image(
        [("x", [2, 3], f32_code)], [("y", [6], f32_code)], pools=[("global_workspace_1_var", [256], u8_code)],
        constants=[(name, 64 * i, binfmt.ndarray(dtype, shape, data)) for i, (name, dtype, shape, data) in
                   enumerate(arrays)]))
    write(out, "npz", "two", npz(x=np.arange(6, dtype=np.float32).reshape(2, 3), y=np.array([1, -2], np.int8)))
    compressed = io.BytesIO()
    np.savez_compressed(compressed, data=np.ones((3, 3), np.float16))
    write(out, "npz", "compressed", compressed.getvalue())
    # C-interface archives (../shared/fixtures/mlf when present): the archives, compressed too, and
    # their metadata.json, relay and run file as seeds of the text readers.
    mlf = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/fixtures/mlf")
    for case in sorted(os.listdir(mlf)) if os.path.isdir(mlf) else []:
        tar = os.path.join(mlf, case, "model.tar")
        if not os.path.isfile(tar):
            continue
        raw = open(tar, "rb").read()
        write(out, "archive", case, raw)
        write(out, "archive", case + "_gz", gzip.compress(raw))
        write(out, "archive", case + "_xz", lzma.compress(raw))
        with tarfile.open(tar) as t:
            for member in ("./metadata.json", "./src/default.relay", "./codegen/host/src/default_lib0.c"):
                write(out, "mlf_metadata", case + "_" + os.path.basename(member), t.extractfile(member).read())
    # Graph exports (../shared/fixtures/graph when present): their graph JSON and params files.
    graph = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/fixtures/graph")
    for case in sorted(os.listdir(graph)) if os.path.isdir(graph) else []:
        for member in ("mod.json", "mod.params"):
            path = os.path.join(graph, case, member)
            if os.path.isfile(path):
                write(out, "graph", case + "_" + member, open(path, "rb").read())
    # Relay VM exports (../shared/fixtures/vm when present): their bytecode.
    vm = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/fixtures/vm")
    for case in sorted(os.listdir(vm)) if os.path.isdir(vm) else []:
        path = os.path.join(vm, case, "code.ro")
        if os.path.isfile(path):
            write(out, "vm", case, open(path, "rb").read())
    # GPU exports (../shared/fixtures/gpu when present): each `opencl`, `cuda` or `vulkan` entry's payload,
    # cut from the module blob between its type key and the next entry's; and a small one made here.
    u64 = lambda v: struct.pack("<Q", v)  # noqa: E731
    text = lambda s: u64(len(s)) + s  # noqa: E731
    write(out, "device_module", "one_kernel",
          text(b"cl") + u64(1) + text(b"k") + text(b"") + u64(2) + bytes([3, 64, 1, 0, 0, 32, 1, 0]) + u64(2) +
          text(b"blockIdx.x") + text(b"threadIdx.x") +
          text(b"// Function: k\n__kernel void k(__global float* a, int n) { a[get_global_id(0)] = n; }\n"))
    gpu = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/fixtures/gpu")
    for case in sorted(os.listdir(gpu)) if os.path.isdir(gpu) else []:
        path = os.path.join(gpu, case, "model.so")
        raw = open(path, "rb").read() if os.path.isfile(path) and os.path.getsize(path) < 1 << 20 else b""
        for key in (b"opencl", b"cuda", b"vulkan"):
            start = raw.find(text(key))
            end = raw.find(text(b"_import_tree"), start)
            if start >= 0 and end > start:
                write(out, "device_module", case, raw[start + 8 + len(key):end])
    for entry in sorted(os.listdir(models)):
        path = os.path.join(models, entry)
        if entry.endswith(".so") and os.path.getsize(path) < 1 << 20:
            write(out, "elf", entry, open(path, "rb").read())
        if entry.endswith(".case"):
            for root, _, files in os.walk(path):
                for f in files:
                    p = os.path.join(root, f)
                    if f.endswith(".npy") and os.path.getsize(p) < 1 << 16:
                        write(out, "npy", entry + "_" + f, open(p, "rb").read())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

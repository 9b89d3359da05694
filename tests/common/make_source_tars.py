#!/usr/bin/env python3
"""Object exports as TVM v0.9/v0.10 wrote them: a .tar whose blob is a C source, devc.c, rather
than an object (ABI.md 5), in the text TVM's codegen.PackImportsToC writes.

  make_source_tars.py syslib FIXTURE_TAR OUT_TAR   the real system-lib export (lib0.o, lib1.o,
      devc.o) with devc.o replaced by the devc.c TVM v0.9 would have written: the same bytes,
      registered from a C++ static initializer (TVM compiled devc.c with g++)
  make_source_tars.py c MODEL_C OUT_TAR            a generated `c` model's source as lib0.c (the
      code of `c` targets is C in every release), its blob split out into devc.c
"""
import os
import re
import subprocess
import sys
import tarfile
import tempfile


def devc_source(blob, system_lib):
    """codegen.PackImportsToC (TVM v0.9/v0.10): `blob` already holds the 8-byte length prefix."""
    lines = ["#ifdef _WIN32", "#define TVM_EXPORT __declspec(dllexport)", "#else", "#define TVM_EXPORT",
             "#endif", "#ifdef __cplusplus", 'extern "C" {', "#endif",
             "TVM_EXPORT extern const unsigned char __tvm_dev_mblob[];",
             "const unsigned char __tvm_dev_mblob[%d] = {" % len(blob)]
    for i in range(0, len(blob), 20):
        lines.append("  " + ",".join("0x%x" % b for b in blob[i:i + 20]) + ",")
    lines.append("};")
    if system_lib:
        lines += ["extern int TVMBackendRegisterSystemLibSymbol(const char*, void*);",
                  "static int __tvm_dev_mblob_reg_ = "
                  'TVMBackendRegisterSystemLibSymbol("__tvm_dev_mblob", (void*)__tvm_dev_mblob);']
    lines += ["#ifdef __cplusplus", "}", "#endif", ""]
    return "\n".join(lines)


def object_blob(devc_o, tmp):
    """The bytes of __tvm_dev_mblob in an object file (its symbol's section, offset and size)."""
    syms = subprocess.run(["nm", "-S", "--defined-only", devc_o], check=True, capture_output=True, text=True).stdout
    m = re.search(r"^([0-9a-f]+) ([0-9a-f]+) R __tvm_dev_mblob$", syms, re.M)
    if not m:
        raise SystemExit("%s: no read-only __tvm_dev_mblob" % devc_o)
    offset, size = int(m.group(1), 16), int(m.group(2), 16)
    raw = os.path.join(tmp, "rodata.bin")
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.rodata", devc_o, raw], check=True)
    with open(raw, "rb") as f:
        return f.read()[offset:offset + size]


def write_tar(out, members):
    with tarfile.open(out, "w") as t:
        for name, path in members:
            t.add(path, arcname=name)


def syslib(fixture_tar, out):
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fixture_tar) as t:
            t.extractall(tmp)
        blob = object_blob(os.path.join(tmp, "devc.o"), tmp)
        with open(os.path.join(tmp, "devc.c"), "w") as f:
            f.write(devc_source(blob, system_lib=True))
        write_tar(out, [(n, os.path.join(tmp, n)) for n in ("lib0.o", "lib1.o", "devc.c")])


def c_model(model_c, out):
    """aotgen writes the blob as a string literal of \\x escapes after
    `const unsigned char __tvm_dev_mblob[N] =`: moved into devc.c, the rest stays lib0.c."""
    src = open(model_c).read()
    m = re.search(r"^[^\n]*const unsigned char __tvm_dev_mblob\[(\d+)\] =\n((?:\"[^\n]*\"\n)+);\n", src, re.M)
    if not m:
        raise SystemExit("%s: no __tvm_dev_mblob definition" % model_c)
    blob = bytes(int(x, 16) for x in re.findall(r"\\x([0-9a-f]{2})", m.group(2)))
    if len(blob) != int(m.group(1)):
        raise SystemExit("%s: __tvm_dev_mblob holds %d bytes, declared %s" % (model_c, len(blob), m.group(1)))
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "lib0.c"), "w") as f:
            f.write(src[:m.start()] + src[m.end():])
        with open(os.path.join(tmp, "devc.c"), "w") as f:
            f.write(devc_source(blob, system_lib=False))
        write_tar(out, [("lib0.c", os.path.join(tmp, "lib0.c")), ("devc.c", os.path.join(tmp, "devc.c"))])


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("syslib", "c"):
        raise SystemExit(__doc__)
    (syslib if sys.argv[1] == "syslib" else c_model)(sys.argv[2], sys.argv[3])

"""Seed corpora for the fuzz targets, made with the test-model generator's own encoders (which do
not use aotrt) plus the generated model libraries and .npy files of a build.
usage: seeds.py MODELS_DIR OUT_DIR   (MODELS_DIR: a build's models/ folder)"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
from aotgen import binfmt, dtypes  # noqa: E402


def write(out, kind, name, data):
    os.makedirs(os.path.join(out, kind), exist_ok=True)
    with open(os.path.join(out, kind, name), "wb") as f:
        f.write(data)


def main(models, out):
    f32, i8 = dtypes.get("float32"), dtypes.get("int8")
    arrays = [("w", f32, [2, 3], f32.pack([0.5 * i for i in range(6)])), ("b", i8, [3], i8.pack([1, -2, 3]))]
    write(out, "blob", "no_params", binfmt.module_blob([], "default"))
    write(out, "blob", "two_params", binfmt.module_blob(arrays, "my_model"))
    for name, dtype, shape, data in arrays:
        write(out, "ndarray", name, binfmt.ndarray(dtype, shape, data))
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

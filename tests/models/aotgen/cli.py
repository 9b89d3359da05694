"""Command line: aotgen.py SPEC.json [SPEC.json ...] --out-dir DIR [--c-dir DIR]."""
import argparse
import os
import sys

from . import casegen, emit_c, spec


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="aotgen", description="Generate TVM-AOT-shaped test model sources.")
    ap.add_argument("specs", nargs="+", help="model spec JSON files")
    ap.add_argument("--out-dir", required=True, help="where <name>.case/ is written")
    ap.add_argument("--c-dir", help="where <name>.c is written (default: --out-dir)")
    ap.add_argument("--no-case", action="store_true", help="skip the reference test vectors")
    args = ap.parse_args(argv)
    c_dir = args.c_dir or args.out_dir
    os.makedirs(args.out_dir, exist_ok=True)
    os.makedirs(c_dir, exist_ok=True)
    for path in args.specs:
        try:
            model = spec.load_file(path)
        except (ValueError, KeyError, OSError) as e:
            print("aotgen: %s: %s" % (path, e), file=sys.stderr)
            return 1
        write_atomic(os.path.join(c_dir, model.name + ".c"), emit_c.generate(model))
        if not args.no_case:
            casegen.write_case(model, os.path.join(args.out_dir, model.name + ".case"))
    return 0

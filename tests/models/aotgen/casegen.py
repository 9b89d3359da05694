"""Reference test vectors: <out>/<name>.case/{case.json, inputs/*.npy, params/*.npy, expected/*.npy}.

case.json follows /work/shared/fixtures/tvm/*/case.json, plus: "artifact" relative to the case
folder (null for system libraries, which name their "cmake_target"), "system_lib", "constants", "expect_error" for models whose run must fail,
and "expect_load_error" (no expected outputs) for libraries the runtime must refuse to load. Inputs the
factory supplies (listed in "params") get params/<name>.npy instead of inputs/<name>.npy.
"""
import json
import os
import shutil

from . import binfmt, reference


def write_case(model, case_dir):
    if os.path.isdir(case_dir):
        shutil.rmtree(case_dir)        # stale .npy files from an older spec must not linger
    for sub in ("inputs", "expected", "params"):
        os.makedirs(os.path.join(case_dir, sub))
    case = {
        "case": model.name,
        "mod_name": model.mod_name,
        "artifact": "../%s.so" % model.name,
        "inputs": {t.name: [t.shape, t.dtype.name] for t in model.inputs},
        "outputs": [[t.shape, t.dtype.name] for t in model.outputs],
        "params": [p.name for p in model.params],
        "constants": [c.name for c in model.constants],
        "target": model.flavour,
        "usmp": model.usmp,
        "system_lib": model.system_lib,
    }
    if model.system_lib:
        # no .so: the C is built as the OBJECT library aotrt_test_<name>_model (see CMakeLists.txt)
        case["artifact"] = None
        case["cmake_target"] = "aotrt_test_%s_model" % model.name
        case["system_lib_prefix"] = model.prefix
    param_names = {p.name for p in model.params}
    for t, san in zip(model.inputs, model.sanitized_inputs):
        sub = "params" if t.name in param_names else "inputs"
        _write(os.path.join(case_dir, sub, san + ".npy"), binfmt.npy(t.dtype, t.shape, t.raw))
    overrun = [n for n in model.nodes if n.attrs.get("overrun")]
    if overrun:
        # what a bounds check must report: the bytes past, and the pool (USMP) or block written past
        n = overrun[0]
        case["overrun"] = {"bytes": n.attrs["overrun"],
                           "pool": "global_workspace" if model.usmp else None,
                           "buffer_bytes": model.ws_pool_size if model.usmp else n.out.nbytes}
    if model.expect_load_error:
        case["expect_load_error"] = model.expect_load_error
    elif model.expect_error:
        case["expect_error"] = model.expect_error
    else:
        for t, raw in zip(model.outputs, reference.run(model)):
            _write(os.path.join(case_dir, "expected", "output%d.npy" % t.index), binfmt.npy(t.dtype, t.shape, raw))
    _write(os.path.join(case_dir, "case.json"), (json.dumps(case, indent=1) + "\n").encode())


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)

"""TVM v0.14.0's own Python package (../shared/tvm-python) over this build's libaotrt.so.

Set by ctest: AOTRT_LIBRARY (the libaotrt.so to test), AOTRT_TVM_PYTHON_DIR, AOTRT_FIXTURES_DIR.
Before anything imports tvm, this links the library as libtvm_runtime.so in a private folder and
sets what TVM's README asks (TVM_USE_RUNTIME_LIB, TVM_FFI=ctypes, TVM_LIBRARY_PATH). Everything is
skipped when ../shared is absent.
"""
import atexit
import glob
import json
import os
import shutil
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.environ.get("AOTRT_FIXTURES_DIR", "")
TVM_PYTHON = os.environ.get("AOTRT_TVM_PYTHON_DIR", "")
LIBRARY = os.environ.get("AOTRT_LIBRARY", "")


def setup_tvm_env():
    libdir = tempfile.mkdtemp(prefix="aotrt_tvm_runtime_")
    atexit.register(shutil.rmtree, libdir, True)
    os.symlink(os.path.abspath(LIBRARY), os.path.join(libdir, "libtvm_runtime.so"))
    os.environ.update(TVM_USE_RUNTIME_LIB="1", TVM_FFI="ctypes", TVM_LIBRARY_PATH=libdir,
                      PYTHONPATH=os.pathsep.join([TVM_PYTHON, HERE]))  # for subprocesses
    sys.path[:0] = [TVM_PYTHON, HERE]


if not (os.path.isdir(TVM_PYTHON) and os.path.isdir(FIXTURES) and os.path.isfile(LIBRARY)):
    collect_ignore_glob = ["test_*.py"]  # no ../shared (or no library): nothing to run against
else:
    setup_tvm_env()
    import tvm_testing_standin  # noqa: F401,E402  (before any `import tvm.testing`)


class Export:
    """One real TVM export: model.so, inputs.npz, expected.npz, case.json."""

    def __init__(self, folder):
        import numpy as np
        self.name = os.path.basename(folder)
        with open(os.path.join(folder, "case.json")) as f:
            self.spec = json.load(f)
        self.path = os.path.join(folder, self.spec["artifact"])
        self.mod_name = self.spec["mod_name"]
        with np.load(os.path.join(folder, "inputs.npz")) as z:
            self.inputs = {k: z[k] for k in z.files}
        with np.load(os.path.join(folder, "expected.npz")) as z:
            self.expected = [z["arr_%d" % i] for i in range(len(z.files))]

    def __repr__(self):
        return self.name


def exports():
    """Every loadable export (the system-lib one is a .tar of objects, not a library to load)."""
    if not FIXTURES:
        return []
    folders = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(FIXTURES, "*", "case.json")))
    out = []
    for d in folders:
        with open(os.path.join(d, "case.json")) as f:
            if not json.load(f).get("system_lib"):
                out.append(d)
    return out


@pytest.fixture(params=exports(), ids=os.path.basename)
def export(request):
    return Export(request.param)

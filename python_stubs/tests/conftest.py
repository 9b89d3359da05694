"""Locating the library, generated test models and TVM fixtures for the aotrt Python suite.

Environment (set by CTest/CI): AOTRT_LIBRARY (libaotrt.so), AOTRT_TEST_MODELS_DIR (the build's
models/ folder), AOTRT_FIXTURES_DIR (real TVM exports; default ../shared/fixtures/tvm next to the
repository). Without them the package's own search picks the library (newest non-sanitizer
build*/ of the repository) and the models come from the same build; absent data is skipped.
"""
import glob
import json
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PKG_ROOT = os.path.dirname(HERE)                     # python_stubs/
REPO = os.path.dirname(PKG_ROOT)
sys.path.insert(0, PKG_ROOT)                         # test the source tree, installed or not


def models_dir():
    env = os.environ.get("AOTRT_TEST_MODELS_DIR")
    if env:
        return env if os.path.isdir(env) else None
    # The build that produced the library in use (sanitizer builds' models would abort the interpreter).
    from aotrt import _ffi
    d = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(_ffi.LIB_PATH))), "models")
    return d if os.path.exists(os.path.join(d, "add_c.so")) else None


def fixtures_dir():
    d = os.environ.get("AOTRT_FIXTURES_DIR") or os.path.join(REPO, "..", "shared", "fixtures", "tvm")
    return os.path.abspath(d) if os.path.isdir(d) else None


def sanitize(name):
    return "".join(c if c.isascii() and c.isalnum() else "_" for c in name)


class Case:
    """A generated model: NAME.so + NAME.case/ (case.json, inputs/, expected/, params/)."""

    def __init__(self, folder):
        self.folder = folder
        with open(os.path.join(folder, "case.json")) as f:
            self.spec = json.load(f)
        self.name = self.spec["case"]
        artifact = self.spec.get("artifact")   # null for system-lib cases (linked, not loaded)
        self.lib_path = os.path.normpath(os.path.join(folder, artifact)) if artifact else None
        self.mod_name = self.spec["mod_name"]
        self.input_specs = {k: (tuple(v[0]), v[1]) for k, v in self.spec["inputs"].items()}
        self.output_specs = [(tuple(o[0]), o[1]) for o in self.spec["outputs"]]
        self.params = self.spec.get("params", [])
        self.expect_error = self.spec.get("expect_error")

    def inputs(self):
        """{original input name: array} for the inputs that are not factory params."""
        out = {}
        for name in self.input_specs:
            path = os.path.join(self.folder, "inputs", sanitize(name) + ".npy")
            if os.path.exists(path):
                out[name] = np.load(path)
        return out

    def expected(self):
        return [np.load(os.path.join(self.folder, "expected", "output%d.npy" % i))
                for i in range(len(self.output_specs))]


def generated_cases():
    d = models_dir()
    if not d:
        return []
    cases = [Case(os.path.dirname(p)) for p in sorted(glob.glob(os.path.join(d, "*.case", "case.json")))]
    return [c for c in cases if c.lib_path and os.path.exists(c.lib_path) and not c.spec.get("system_lib")]


class Fixture:
    """A real TVM export: model.so, inputs.npz, expected.npz (arr_0..), case.json."""

    def __init__(self, folder):
        self.folder = folder
        with open(os.path.join(folder, "case.json")) as f:
            self.spec = json.load(f)
        self.name = self.spec["case"]
        self.lib_path = os.path.join(folder, self.spec.get("artifact", "model.so"))
        self.mod_name = self.spec["mod_name"]

    def inputs(self):
        with np.load(os.path.join(self.folder, "inputs.npz")) as z:
            return {k: z[k] for k in z.files}

    def expected(self):
        with np.load(os.path.join(self.folder, "expected.npz")) as z:
            return [z["arr_%d" % i] for i in range(len(z.files))]


def fixture_cases():
    d = fixtures_dir()
    if not d:
        return []
    return [Fixture(os.path.dirname(p)) for p in sorted(glob.glob(os.path.join(d, "*", "case.json")))]


_MODELS_SKIP = "no generated test models: set AOTRT_TEST_MODELS_DIR (build with -DAOTRT_BUILD_TESTS=ON)"
_FIXTURES_SKIP = "no TVM fixtures: set AOTRT_FIXTURES_DIR (default ../shared/fixtures/tvm)"


@pytest.fixture(scope="session")
def tvm():
    import aotrt
    return aotrt


@pytest.fixture(scope="session")
def models():
    d = models_dir()
    if not d:
        pytest.skip(_MODELS_SKIP)
    return d


def model_path(models, name):
    path = os.path.join(models, name + ".so")
    if not os.path.exists(path):
        pytest.skip("test model %s.so not built" % name)
    return path


@pytest.fixture(scope="session")
def fixtures():
    d = fixtures_dir()
    if not d:
        pytest.skip(_FIXTURES_SKIP)
    return d


@pytest.fixture
def add_model(tvm, models):
    """AotModule over the one-element add_c model."""
    from aotrt.runtime.executor import AotModule
    lib = tvm.runtime.load_module(model_path(models, "add_c"))
    return AotModule(lib["default"](tvm.cpu(0)))


def pytest_generate_tests(metafunc):
    if "case" in metafunc.fixturenames:
        cases = generated_cases()
        metafunc.parametrize("case", cases or [pytest.param(None, marks=pytest.mark.skip(reason=_MODELS_SKIP))],
                             ids=[c.name for c in cases] or ["no-models"])
    if "fixture_case" in metafunc.fixturenames:
        cases = fixture_cases()
        metafunc.parametrize("fixture_case",
                             cases or [pytest.param(None, marks=pytest.mark.skip(reason=_FIXTURES_SKIP))],
                             ids=[c.name for c in cases] or ["no-fixtures"])

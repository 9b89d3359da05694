"""TVM C-interface exports (Model Library Format archives, ../shared/fixtures/mlf): load_module
reaches the same loader as the C++ API, and the outputs are TVM's bit for bit."""
import os
import tarfile

import numpy as np
import pytest

import aotrt as tvm
from aotrt.runtime.executor import AotModule

from conftest import fixtures_dir


def mlf_dir():
    tvm_dir = fixtures_dir()
    d = os.path.join(os.path.dirname(tvm_dir), "mlf") if tvm_dir else None
    return d if d and os.path.isdir(d) else None


CASES = ["mlf_conv_usmp", "mlf_user_pool"]


@pytest.mark.skipif(mlf_dir() is None, reason="no C-interface fixtures (../shared/fixtures/mlf)")
@pytest.mark.parametrize("archive", CASES)
@pytest.mark.parametrize("form", ["tar", "folder"])
def test_load_module_runs_the_archive_bit_exact(archive, form, tmp_path):
    d = os.path.join(mlf_dir(), archive)
    path = os.path.join(d, "model.tar")
    if form == "folder":
        with tarfile.open(path) as t:
            t.extractall(tmp_path)
        path = str(tmp_path)
    lib = tvm.runtime.load_module(path)
    m = AotModule(lib["default"](tvm.cpu(0)))
    x = np.load(os.path.join(d, "inputs.npz"))["x"]
    m.set_input("x", x)
    m.run()
    expected = np.load(os.path.join(d, "expected.npz"))
    assert m.get_num_outputs() == len(expected.files)
    for i in range(len(expected.files)):
        want = expected["arr_%d" % i]
        got = m.get_output(i).numpy()
        assert got.tobytes() == want.tobytes(), "output %d differs" % i


@pytest.mark.skipif(mlf_dir() is None, reason="no C-interface fixtures (../shared/fixtures/mlf)")
def test_a_hostile_archive_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.tar"
    with tarfile.open(bad, "w") as t:
        info = tarfile.TarInfo("metadata.json")
        info.size = 2
        t.addfile(info, fileobj=__import__("io").BytesIO(b"{}"))
        link = tarfile.TarInfo("codegen/host/src/x.c")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        t.addfile(link)
    with pytest.raises(Exception, match="symbolic link"):
        tvm.runtime.load_module(str(bad))


@pytest.mark.skipif(mlf_dir() is None, reason="no C-interface fixtures (../shared/fixtures/mlf)")
def test_load_module_takes_the_compiler_options():
    path = os.path.join(mlf_dir(), "mlf_conv_usmp", "model.tar")
    with pytest.raises(tvm.TVMError, match="/nonexistent/cc"):
        tvm.runtime.load_module(path, c_compiler="/nonexistent/cc", compile_cache=False)
    with pytest.raises(TypeError, match="compile_cache must be a bool"):
        tvm.runtime.load_module(path, compile_cache="no")

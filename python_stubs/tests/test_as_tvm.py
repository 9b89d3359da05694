"""``import aotrt.as_tvm``: TVM's import lines (import tvm, from tvm.contrib import graph_executor, ...) resolve
to aotrt's package where no TVM is installed, and a real TVM that could be imported is never shadowed. Each case
runs in a fresh interpreter (the alias is process-wide)."""
import os
import subprocess
import sys

from conftest import PKG_ROOT, REPO


def run(code, extra_path=()):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([PKG_ROOT] + list(extra_path)))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_tvm_names_are_aotrt_modules():
    p = run("import aotrt.as_tvm\n"
            "import tvm\n"
            "from tvm.contrib import graph_executor\n"
            "from tvm.runtime.executor import AotModule\n"
            "import tvm.runtime, aotrt, aotrt.contrib.graph_executor as ge\n"
            "assert tvm is aotrt and graph_executor is ge and tvm.runtime is aotrt.runtime\n"
            "assert AotModule is aotrt.runtime.executor.AotModule and tvm.cpu(0).device_type == 1\n"
            "import aotrt.as_tvm, importlib; importlib.reload(aotrt.as_tvm)   # idempotent\n"
            "try:\n"
            "    import tvm.relay\n"
            "except ModuleNotFoundError as e:\n"
            "    print(e)\n")
    assert p.returncode == 0, p.stderr
    assert "No module named 'tvm.relay': aotrt.as_tvm made 'tvm' aotrt's runtime package, which has no aotrt.relay" \
        in p.stdout


def test_refuses_to_shadow_an_importable_tvm(tmp_path):
    (tmp_path / "tvm").mkdir()
    (tmp_path / "tvm" / "__init__.py").write_text("")
    p = run("import aotrt.as_tvm", [str(tmp_path)])
    assert p.returncode != 0
    assert "ImportError: aotrt.as_tvm: a real TVM is importable (%s); aotrt does not shadow it" \
        % (tmp_path / "tvm" / "__init__.py") in p.stderr
    p = run("import sys, types\nsys.modules['tvm'] = types.ModuleType('tvm')\nimport aotrt.as_tvm")
    assert p.returncode != 0 and "a real TVM is importable" in p.stderr   # one already imported
    tvm_python = os.path.join(REPO, "..", "shared", "tvm-python")
    if os.path.isdir(os.path.join(tvm_python, "tvm")):   # TVM v0.14's own package, as shipped
        p = run("import aotrt.as_tvm", [tvm_python])
        assert p.returncode != 0 and "a real TVM is importable" in p.stderr, p.stderr

"""The package and the library agree on one version, and the package refuses a library of another."""
import os
import subprocess
import sys
import textwrap

import pytest

import aotrt


def test_package_library_and_project_versions_agree():
    assert aotrt.__version__ == aotrt.runtime_version()
    expected = os.environ.get("AOTRT_PROJECT_VERSION")
    if not expected:
        pytest.skip("AOTRT_PROJECT_VERSION not set (ctest sets it from CMake's project())")
    assert aotrt.__version__ == expected


def _fake_library(tmp_path, body):
    src = tmp_path / "fake.c"
    src.write_text(body)
    lib = tmp_path / "libaotrt.so"
    subprocess.check_call(["cc", "-shared", "-fPIC", str(src), "-o", str(lib)])
    return lib


def _import_with(lib):
    code = "import aotrt"
    env = dict(os.environ, AOTRT_LIBRARY=str(lib))
    pkg_parent = os.path.dirname(os.path.dirname(aotrt.__file__))
    env["PYTHONPATH"] = pkg_parent
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)


def test_a_library_of_another_version_is_refused_naming_both(tmp_path):
    lib = _fake_library(tmp_path, 'const char* AOTRTGetVersion(void) { return "9.8.7"; }\n')
    p = _import_with(lib)
    assert p.returncode != 0
    assert "ImportError" in p.stderr and "9.8.7" in p.stderr and aotrt.__version__ in p.stderr, p.stderr
    assert str(lib) in p.stderr


def test_a_library_that_is_not_aotrt_is_refused(tmp_path):
    lib = _fake_library(tmp_path, textwrap.dedent("int something_else(void) { return 0; }\n"))
    p = _import_with(lib)
    assert p.returncode != 0 and "is not libaotrt" in p.stderr, p.stderr

"""Stand-ins for `tvm.testing` and `tvm.relay`, put into sys.modules before anything imports them.

TVM's real `tvm.testing` cannot be imported in runtime-only mode over any runtime library (it imports
the auto-scheduler and needs compiler-only `testing.*` globals; shared/tvm-python/README.md). This
gives the few helpers TVM's runtime tests use; a test needing a compiler global still fails, as it does
over TVM's own runtime. `tvm.relay` needs compiler globals at import too; test_runtime_container.py
imports it for one compiler-only test, so an empty module lets its runtime tests run. Also usable as a pytest plugin (`-p tvm_testing_standin`).
"""
import sys
import types

import numpy as np


def _install():
    if "tvm.testing" in sys.modules:
        return sys.modules["tvm.testing"]
    import tvm

    m = types.ModuleType("tvm.testing")
    m.assert_allclose = np.testing.assert_allclose
    m.uses_gpu = lambda f: f
    m.enabled_targets = lambda: [("llvm", tvm.cpu(0))]

    def main():
        import pytest
        sys.exit(pytest.main([sys.argv[0]] + sys.argv[1:]))

    m.main = main
    sys.modules["tvm.testing"] = m
    tvm.testing = m
    if "tvm.relay" not in sys.modules:
        sys.modules["tvm.relay"] = tvm.relay = types.ModuleType("tvm.relay")
    return m


_install()

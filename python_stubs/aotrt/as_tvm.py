"""``import aotrt.as_tvm``: the one line that lets a program written for TVM's Python runtime run on aotrt
unchanged where no TVM is installed. After it, ``import tvm``, ``from tvm.contrib import graph_executor``,
``tvm.runtime.load_module`` ... are aotrt's own modules (``tvm.X`` is ``aotrt.X``, the same objects).

It refuses (ImportError) to shadow a real TVM the program could import: a program that has TVM keeps it
(run TVM's own package over libaotrt instead, README "Python"). A name aotrt lacks (``tvm.relay``, a
compiler part) is a ModuleNotFoundError that says so.
"""
import importlib
import importlib.abc
import importlib.util
import sys

import aotrt

__all__ = ["install"]


class _TvmIsAotrt(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves tvm and tvm.X to the modules aotrt and aotrt.X (imported once, shared)."""

    def find_spec(self, name, path=None, target=None):
        if name != "tvm" and not name.startswith("tvm."):
            return None
        ours = "aotrt" + name[3:]
        if ours not in sys.modules and importlib.util.find_spec(ours) is None:
            raise ModuleNotFoundError("No module named '%s': aotrt.as_tvm made 'tvm' aotrt's runtime package, which "
                                      "has no %s (aotrt runs compiled models; compiling them needs TVM itself)"
                                      % (name, ours), name=name)
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        return importlib.import_module("aotrt" + spec.name[3:])

    def exec_module(self, module):
        pass   # already executed, as aotrt.X


def install():
    """Make ``tvm`` resolve to aotrt (idempotent); ImportError when a real TVM is importable."""
    if any(isinstance(f, _TvmIsAotrt) for f in sys.meta_path) or sys.modules.get("tvm") is aotrt:
        return aotrt
    real, where = sys.modules.get("tvm"), None
    if real is not None:
        where = getattr(real, "__file__", None) or repr(real)
    else:
        try:
            spec = importlib.util.find_spec("tvm")
            if spec is not None:
                where = spec.origin or "a 'tvm' package in %s" % list(spec.submodule_search_locations or [])
        except (ImportError, ValueError) as e:   # a tvm on the path that fails to import is still a TVM
            where = "a 'tvm' that fails to import: %s" % e
    if where is not None:
        raise ImportError("aotrt.as_tvm: a real TVM is importable (%s); aotrt does not shadow it. Keep 'import tvm' "
                          "for TVM and 'import aotrt' for aotrt's package, or run TVM's own package over libaotrt "
                          "(README 'Python')" % where)
    sys.meta_path.insert(0, _TvmIsAotrt())
    return aotrt


install()

"""Every public name has a .pyi declaration, and the stubs parse."""
import ast
import os

import pytest

PKG = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "aotrt")


def stub_names(relpath):
    with open(os.path.join(PKG, relpath)) as f:
        tree = ast.parse(f.read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


@pytest.mark.parametrize("module, stub", [
    ("aotrt", "__init__.pyi"), ("aotrt.runtime", "runtime/__init__.pyi"), ("aotrt.nd", "nd.pyi"),
    ("aotrt.runtime.executor", "runtime/executor/__init__.pyi"), ("aotrt.ndarray", "ndarray.pyi"),
    ("aotrt.runtime.vm", "runtime/vm.pyi")])
def test_public_names_have_stubs(tvm, module, stub):
    import importlib
    mod = importlib.import_module(module)
    public = getattr(mod, "__all__", [n for n in vars(mod) if not n.startswith("_")])
    missing = set(public) - stub_names(stub)
    assert not missing, "%s: no stub for %s" % (module, sorted(missing))


def test_class_methods_have_stubs(tvm):
    from aotrt.runtime.executor import AotModule
    stubbed = stub_names("runtime/executor/aot_executor.pyi")
    assert {n for n in vars(AotModule) if not n.startswith("_")} <= stubbed
    stubbed = stub_names("ndarray.pyi")
    assert {n for n in vars(tvm.nd.NDArray) if not n.startswith("_")} <= stubbed
    stubbed = stub_names("module.pyi")
    assert {n for n in vars(tvm.Module) if not n.startswith("_")} - {"handle"} <= stubbed


def test_all_stub_files_parse():
    for root, _, files in os.walk(PKG):
        for f in files:
            if f.endswith(".pyi"):
                with open(os.path.join(root, f)) as fh:
                    ast.parse(fh.read())
    assert os.path.exists(os.path.join(PKG, "py.typed"))

"""Handles are freed: no memory growth over many calls; bad calls never crash the interpreter."""
import gc

import numpy as np
import pytest

from conftest import model_path


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def growth(fn, n):
    for _ in range(200):
        fn()
    gc.collect()
    before = rss_bytes()
    for _ in range(n):
        fn()
    gc.collect()
    return rss_bytes() - before


def test_no_growth_hot_calls(tvm, add_model):
    a = np.float32([1])
    lib = add_model.module
    nd = tvm.nd.array(np.zeros(4096, np.float32))   # 16 KiB: a leaked copy per call would show at once

    def calls():
        add_model.set_input(a=a)
        add_model.run(b=a)
        add_model.get_output(0).numpy()
        add_model.get_input("a")
        add_model.get_input_name(0)
        tvm.nd.array(nd.numpy())
        np.from_dlpack(nd)
        tvm.nd.from_dlpack(np.zeros(8))
        nd.__dlpack__()
        lib["get_input_info"]()

    assert growth(calls, 10000) < 4 << 20


def test_no_growth_objects_and_callbacks(tvm, models):
    lib = tvm.runtime.load_module(model_path(models, "add_c"))
    names = lib["list_module_names"]
    echo = tvm.convert_to_tvm_func(lambda x: x)
    blob = b"x" * 4096

    def calls():
        names()
        echo(blob)
        echo("s" * 1000)
        tvm.convert_to_tvm_func(lambda: None)()

    assert growth(calls, 10000) < 4 << 20
    from aotrt import packed_func
    assert len(packed_func._CALLBACKS) < 10       # finalizers ran


def test_executors_and_outputs_are_freed(tvm, models):
    """A leaked get_output reference would keep each executor's 16 KiB output alive."""
    lib = tvm.runtime.load_module(model_path(models, "big_params"))
    from aotrt.runtime.executor import AotModule

    def calls():
        ex = AotModule(lib["default"](tvm.cpu(0)))
        ex.get_output(0)
        ex.get_input("weight")

    assert growth(calls, 300) < 8 << 20


def test_errors_do_not_crash(tvm, add_model):
    bad_calls = [
        lambda: add_model.get_output(10 ** 6),
        lambda: add_model.get_input(10 ** 6),
        lambda: add_model.get_input_index(3),
        lambda: add_model.module["set_input"](),
        lambda: add_model.module["set_input"](0, 1.5),
        lambda: add_model.module["set_input"](0, None),
        lambda: add_model.module["get_output"](0, "x"),
        lambda: add_model.module["run"](1),
        lambda: tvm.get_global_func("runtime.ArrayGetItem")(add_model.module, 0),
        lambda: tvm.get_global_func("runtime.ModuleGetImport")(add_model.module, 99),
        lambda: tvm.nd.empty((-1,), "float32"),
        lambda: tvm.nd.empty((1 << 62,), "float32"),
    ]
    for _ in range(1000):
        for call in bad_calls:
            with pytest.raises((tvm.TVMError, TypeError, ValueError, IndexError)):
                call()
    add_model.run(a=np.float32([1]), b=np.float32([1]))
    assert add_model.get_output(0).numpy().tolist() == [2.0]


def test_no_growth_object_results_100k(tvm, models):
    """Calls returning objects (Array of String, Map of NDArrays, Map of Maps): every handle freed."""
    lib = tvm.runtime.load_module(model_path(models, "add_c"))
    names = lib["list_module_names"]
    info = lib["default"](tvm.cpu(0))["get_input_info"]
    save, load = tvm.get_global_func("runtime.SaveParams"), tvm.get_global_func("runtime.LoadParams")
    params = tvm.get_global_func("runtime.Map")("w", tvm.nd.array(np.ones(4, np.float32)))
    blob = save(params)

    def calls():
        assert names() == ["default"]
        assert load(blob)["w"].shape == (4,)
        assert info()["shape"]["a"] == (1,)

    assert growth(calls, 100000) < 4 << 20

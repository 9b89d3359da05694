"""AotModule over generated models and real TVM exports, including the flow of TVM's own AOT tests
(tests/python/relay/aot/test_cpp_aot.py; ABI.md 8.4)."""
import numpy as np
import pytest

from conftest import model_path, sanitize


def executor(tvm, path, mod_name="default"):
    from aotrt.runtime.executor import AotModule
    return AotModule(tvm.runtime.load_module(path)[mod_name](tvm.cpu(0)))


def check_outputs(ex, expected):
    assert ex.get_num_outputs() == len(expected)
    for i, ref in enumerate(expected):
        got = ex.get_output(i).numpy()
        assert got.dtype == ref.dtype and got.shape == ref.shape
        np.testing.assert_array_equal(got, ref)
        assert got.tobytes() == ref.tobytes()     # bit-exact: NaN payloads, -0


def test_generated_model(tvm, case):
    ex = executor(tvm, case.lib_path, case.mod_name)
    shapes, dtypes = ex.get_input_info()
    assert list(shapes.values()) == [s for s, _ in case.input_specs.values()]
    assert list(dtypes.values()) == [d for _, d in case.input_specs.values()]
    out_shapes, out_dtypes = ex.get_output_info()
    assert list(out_shapes) == ["output%d" % i for i in range(len(case.output_specs))]
    assert [(out_shapes[k], out_dtypes[k]) for k in out_shapes] == case.output_specs
    ex.set_input(**case.inputs())
    if case.expect_error:
        with pytest.raises(tvm.TVMError, match=case.expect_error) as info:
            ex.run()
        assert isinstance(info.value, tvm.error.ModelError)
        return
    ex.run()
    check_outputs(ex, case.expected())
    # the same through index keys and set_input(key, value)
    ex2 = executor(tvm, case.lib_path, case.mod_name)
    for name, value in case.inputs().items():
        ex2.set_input(ex2.get_input_index(name), value)
    ex2.run()
    check_outputs(ex2, case.expected())
    for got, ref in zip(ex2.predict(**case.inputs()), case.expected()):   # predict: by position too
        assert got.dtype == ref.dtype and got.tobytes() == ref.tobytes()


def test_fixture_tvm_flow(tvm, fixture_case):
    """load, AotModule(lib["default"](cpu(0))), set_input by name, info, run, outputs == TVM's."""
    from aotrt.runtime.executor import AotModule
    lib = tvm.runtime.load_module(fixture_case.lib_path)
    assert lib.type_key == "AotExecutorFactory"
    runner = AotModule(lib[fixture_case.mod_name](tvm.cpu(0)))
    inputs = fixture_case.inputs()
    names = list(fixture_case.spec["inputs"])
    assert runner.get_input_name(0) == names[0]
    shapes, dtypes = runner.get_input_info()
    for name, (shape, dtype) in fixture_case.spec["inputs"].items():
        assert shapes[name] == tuple(shape)
        assert dtypes[name] == dtype
    for name, value in inputs.items():
        runner.set_input(name, value)
    runner.run()
    check_outputs(runner, fixture_case.expected())
    assert lib["list_module_names"]() == [fixture_case.mod_name]


def test_fixture_run_with_kwargs_and_numpy_out(tvm, fixture_case):
    ex = executor(tvm, fixture_case.lib_path, fixture_case.mod_name)
    ex.run(**fixture_case.inputs())
    for i, ref in enumerate(fixture_case.expected()):
        out = np.empty_like(ref)
        assert ex.get_output(i, out) is out
        np.testing.assert_array_equal(out, ref)
        nd_out = tvm.nd.empty(ref.shape, str(ref.dtype))
        assert ex.get_output(i, nd_out) is nd_out
        np.testing.assert_array_equal(nd_out.numpy(), ref)


def test_module_list(tvm, models):
    lib = tvm.runtime.load_module(model_path(models, "custom_name"))
    list_module_names = lib.get_function("list_module_names")
    assert list(sorted(list_module_names())) == ["unusual_module_name_fred"]
    assert all(isinstance(n, str) for n in list_module_names())


def test_pass_wrong_device_arg(tvm, models):
    lib = tvm.runtime.load_module(model_path(models, "add_c"))
    with pytest.raises(tvm.TVMError):
        lib["default"](tvm.cpu(0), tvm.cpu(0))
    with pytest.raises(tvm.TVMError):
        lib["default"]()


@pytest.mark.parametrize("name", ["input:0", "input_0"])
def test_input_name_with_special_character(tvm, models, name):
    from aotrt.runtime.executor import AotModule
    lib = tvm.runtime.load_module(model_path(models, "custom_name"))
    runner = AotModule(lib["unusual_module_name_fred"](tvm.cpu(0)))
    a = np.arange(4, dtype=np.int32).reshape(2, 2)
    b = np.full((2, 2), 3, dtype=np.int32)
    runner.set_input(name, a)
    runner.set_input("input@1", b)
    assert runner.get_input_index(name) == runner.get_input_index("input_0") == 0
    assert runner.get_input_index("input@1") == runner.get_input_index("input_1") == 1
    np.testing.assert_array_equal(runner.get_input(name).numpy(), a)
    runner.run()
    np.testing.assert_array_equal(runner.get_output(0).numpy(), (a + b) * b)


def test_incorrect_input_name(tvm, add_model):
    with pytest.raises(tvm.TVMError, match="Invalid input name"):
        add_model.set_input("nope", np.zeros(1, np.float32))
    with pytest.raises(tvm.TVMError, match="Invalid input name"):
        add_model.get_input_index("nope")
    with pytest.raises(tvm.error.NotFoundError):
        add_model.get_input_index("nope")


def test_set_input_conversions_and_errors(tvm, add_model):
    ex = add_model
    ex.set_input("a", [2.0])                       # list -> float32 (TVM copyfrom semantics)
    ex.set_input(1, np.array([0.25], np.float64))  # float64 -> float32
    ex.run()
    assert ex.get_output(0).numpy().tolist() == [2.25]
    ex.set_input(a=tvm.nd.array(np.array([1.0], np.float32)), b=np.float32([1.0]))
    ex.run()
    assert ex.get_output(0).numpy().tolist() == [2.0]
    with pytest.raises(ValueError):
        ex.set_input("a", np.zeros(2, np.float32))
    with pytest.raises(tvm.error.ShapeMismatchError):
        ex.set_input("a", np.zeros((1, 1), np.float32))
    with pytest.raises(tvm.TVMError):                # NDArray of the wrong shape: checked by the runtime
        ex.set_input("a", tvm.nd.array(np.zeros(3, np.float32)))
    # An NDArray of another dtype: the runtime's one conversion rule (README "Inputs in another dtype").
    ex.set_input("a", tvm.nd.array(np.array([7], np.int32)))
    assert ex.get_input("a").numpy().tolist() == [7.0]
    with pytest.raises(tvm.error.TypeMismatchError, match=r"input 0 \('a'\).*holding 16777217"):
        ex.set_input("a", tvm.nd.array(np.array([16777217], np.int32)))
    with pytest.raises(IndexError):
        ex.set_input(5, np.zeros(1, np.float32))
    with pytest.raises(ValueError):
        ex.set_input("a")
    view = np.zeros(4, np.float32)[::4]              # non-contiguous view is copied
    ex.set_input("a", view)


def test_get_input_output_forms(tvm, add_model):
    ex = add_model
    assert ex.get_num_inputs() == 2 and ex.get_num_outputs() == 1
    assert [ex.get_input_name(i) for i in range(2)] == ["a", "b"]
    assert ex.get_output_name(0) == "output0" and ex.get_output_index("output0") == 0
    ex.run(a=np.float32([3]), b=np.float32([4]))
    alias = ex.get_input("a")
    assert alias.shape == (1,) and alias.dtype == "float32"
    out = tvm.nd.empty((1,), "float32")
    assert ex.get_input(0, out) is out and out.numpy().tolist() == [3.0]
    np_out = np.zeros(1, np.float32)
    assert ex.get_input("b", np_out) is np_out and np_out.tolist() == [4.0]
    assert ex.get_output(0).numpy().tolist() == [7.0]
    with pytest.raises(tvm.TVMError):
        ex.get_output(3)
    with pytest.raises(tvm.TVMError):
        ex.get_output(-1)
    with pytest.raises(tvm.TVMError):
        ex.get_input_name(9)
    with pytest.raises(ValueError):
        ex.get_output(0, np.zeros(4, np.float32)[::2])
    # get_output aliases executor memory: overwritten by the next run (TVM semantics)
    o = ex.get_output(0)
    ex.run(a=np.float32([1]))
    assert o.numpy().tolist() == [5.0]


def test_zero_copy(tvm, add_model):
    ex = add_model
    a = tvm.nd.array(np.float32([1.5]))
    b = tvm.nd.empty((1,), "float32")
    b.copyfrom(np.float32([2.0]))
    out = tvm.nd.empty((1,), "float32")
    ex.set_input_zero_copy("a", a)
    ex.set_input_zero_copy(1, b)
    ex.set_output_zero_copy(0, out)
    ex.run()
    assert out.numpy().tolist() == [3.5]
    b.copyfrom(np.float32([10.0]))                  # read in place by the next run
    ex.run()
    assert out.numpy().tolist() == [11.5]
    # numpy arrays: kept alive by the AotModule
    ex.set_output_zero_copy("output0", out)   # by name
    with pytest.raises(tvm.TVMError):
        ex.set_input_zero_copy("a", tvm.nd.array(np.zeros(2, np.float32)))


def test_zero_copy_numpy_aligned(tvm, add_model):
    ex = add_model

    def aligned(value):
        raw = np.zeros(64 + 4, np.uint8)
        off = (-raw.ctypes.data) % 64
        arr = raw[off:off + 4].view(np.float32)
        arr[:] = value
        return arr

    a, b, out = aligned(1.0), aligned(2.0), aligned(0.0)
    ex.set_input_zero_copy("a", a)
    ex.set_input_zero_copy("b", b)
    ex.set_output_zero_copy(0, out)
    del a, b
    ex.run()
    assert out.tolist() == [3.0]


def test_big_params_from_factory(tvm, models):
    """The factory's params are applied to the executor: only 'data' needs setting."""
    from conftest import Case
    import os
    case = Case(os.path.join(models, "big_params.case"))
    ex = executor(tvm, model_path(models, "big_params"))
    ex.set_input(**case.inputs())
    ex.run()
    np.testing.assert_array_equal(ex.get_output(0).numpy(), case.expected()[0])
    lib = tvm.runtime.load_module(case.lib_path)
    params = lib["get_params"]()
    assert list(params) == ["weight"] and params["weight"].shape == (1024, 4096)   # a Map, as TVM


def test_executor_needs_executor_module(tvm, models):
    from aotrt.runtime.executor import AotModule
    with pytest.raises(ValueError):
        AotModule(tvm.runtime.load_module(model_path(models, "add_c")))

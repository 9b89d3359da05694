"""The runtime calls of TVM's test_cpp_aot.py deployment flow, with real `import tvm`, on every export."""
import os

import numpy as np
import pytest

import tvm
from tvm.runtime.executor import AotModule


def run_all(m, export):
    m.run()
    return [m.get_output(i).numpy() for i in range(m.get_num_outputs())]


def check_outputs(outs, export):
    assert len(outs) == len(export.expected)
    for got, want in zip(outs, export.expected):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()  # bit-exact


def test_load_create_run_by_name(export):
    lib = tvm.runtime.load_module(export.path)
    assert lib.type_key == "AotExecutorFactory"
    assert list(lib["list_module_names"]()) == [export.mod_name]
    assert isinstance(lib["list_module_names"]()[0], tvm.runtime.String)
    m = AotModule(lib[export.mod_name](tvm.cpu(0)))
    names = list(export.inputs)
    assert m.get_num_inputs() == len(names)
    assert [m.get_input_name(i) for i in range(len(names))] == names
    shapes, dtypes = m.get_input_info()
    assert shapes == {k: v.shape for k, v in export.inputs.items()}
    assert dtypes == {k: str(v.dtype) for k, v in export.inputs.items()}
    m.set_input(**export.inputs)
    for k, v in export.inputs.items():
        assert m.get_input(k).numpy().tobytes() == v.tobytes()
        assert m.get_input_index(k) == names.index(k)
    check_outputs(run_all(m, export), export)


def test_set_input_with_ndarrays_and_output_into(export):
    lib = tvm.runtime.load_module(export.path)
    m = AotModule(lib["default"](tvm.cpu(0)))
    for k, v in export.inputs.items():
        m.set_input(k, tvm.nd.array(v, tvm.cpu(0)))
    m.run()
    for i, want in enumerate(export.expected):
        out = tvm.nd.empty(want.shape, str(want.dtype), tvm.cpu(0))
        m.get_output(i, out=out)
        assert out.numpy().tobytes() == want.tobytes()
        copy = m.get_output(i).copyto(tvm.cpu(0))
        assert copy.numpy().tobytes() == want.tobytes()


def test_params_in_memory_and_on_file(export, tmp_path):
    params = {k: tvm.nd.array(v) for k, v in export.inputs.items()}
    blob = tvm.runtime.save_param_dict(params)
    back = tvm.runtime.load_param_dict(blob)
    assert sorted(back.keys()) == sorted(params)
    assert all(back[k].numpy().tobytes() == v.numpy().tobytes() for k, v in params.items())
    path = str(tmp_path / "params.bin")
    tvm.runtime.save_param_dict_to_file(params, path)
    assert open(path, "rb").read() == bytes(blob)
    again = tvm.runtime.load_param_dict_from_file(path)
    m = AotModule(tvm.runtime.load_module(export.path)["default"](tvm.cpu(0)))
    m.set_input(**dict(again))
    check_outputs(run_all(m, export), export)


def test_dlpack_both_ways(export):
    m = AotModule(tvm.runtime.load_module(export.path)["default"](tvm.cpu(0)))
    for k, v in export.inputs.items():
        src = tvm.nd.array(v)
        m.set_input(k, tvm.nd.from_dlpack(src.to_dlpack()))   # TVM -> TVM
        assert np.from_dlpack(src).tobytes() == v.tobytes()    # TVM -> numpy
    m.run()
    out = m.get_output(0)
    assert np.from_dlpack(out).tobytes() == export.expected[0].tobytes()
    back = tvm.nd.from_dlpack(np.ascontiguousarray(export.expected[0]))  # numpy -> TVM
    assert back.numpy().tobytes() == export.expected[0].tobytes()


def test_time_evaluator(export):
    m = AotModule(tvm.runtime.load_module(export.path)["default"](tvm.cpu(0)))
    m.set_input(**export.inputs)
    result = m.module.time_evaluator("run", tvm.cpu(0), number=2, repeat=3)()
    assert len(result.results) == 3 and all(t > 0 for t in result.results)
    check_outputs([m.get_output(i).numpy() for i in range(m.get_num_outputs())], export)


def test_errors_are_tvm_errors(export):
    lib = tvm.runtime.load_module(export.path)
    with pytest.raises(tvm.TVMError, match=r"Expect exactly 1 device"):
        lib["default"](tvm.cpu(0), tvm.cpu(0))
    m = AotModule(lib["default"](tvm.cpu(0)))
    with pytest.raises(tvm.TVMError, match=r"Invalid input name."):
        m.set_input("not_an_input", np.zeros(1))
    with pytest.raises(tvm.TVMError, match=r"Invalid input name."):
        m.get_input_index("not_an_input")
    with pytest.raises(tvm.TVMError):
        m.get_input_name(99)
    with pytest.raises(AttributeError):
        lib["__tvm_main__"]


def test_python_callback_error_comes_back_unchanged(export):
    class CallbackError(ValueError):
        pass

    err = CallbackError("raised in a callback")

    def fail(*args):
        raise err

    name = "aotrt_test.fail_" + export.name
    tvm.register_func(name, fail, override=True)
    f = tvm.get_global_func(name)
    with pytest.raises(CallbackError) as info:
        f(1, "x")
    assert info.value is err
    # Through a native frame: a time evaluator over the global calls it from C++.
    evaluator = tvm.get_global_func("runtime.RPCTimeEvaluator")(None, name, 1, 0, 1, 1, 0, 100, 0, 1, 0, "")
    with pytest.raises(CallbackError) as info:
        evaluator()
    assert info.value is err
    m = AotModule(tvm.runtime.load_module(export.path)["default"](tvm.cpu(0)))
    m.set_input(**export.inputs)
    check_outputs(run_all(m, export), export)  # the runtime is still usable


@pytest.mark.parametrize("name", ["argsort_c", "argsort_llvm"])
def test_callback_error_through_a_model(name):
    """A model calling a registered Python function (TVMBackendGetFuncFromEnv, then TVMFuncCall from
    generated code) that raises: run() raises that same exception."""
    path = os.path.join(os.environ.get("AOTRT_TEST_MODELS_DIR", ""), name + ".so")
    if not os.path.isfile(path):
        pytest.skip("generated test models not built")
    err = KeyError("raised inside the model's call")

    def argsort(*args):
        raise err

    original = tvm.get_global_func("tvm.contrib.sort.argsort")
    tvm.register_func("tvm.contrib.sort.argsort", argsort, override=True)
    try:
        m = AotModule(tvm.runtime.load_module(path)["default"](tvm.cpu(0)))
        for i in range(m.get_num_inputs()):
            x = m.get_input(i)
            x.copyfrom(np.zeros(x.shape, x.dtype))
        with pytest.raises(KeyError) as info:
            m.run()
        assert info.value is err
    finally:
        tvm.register_func("tvm.contrib.sort.argsort", original, override=True)


def test_deployment_globals(export):
    """Part B: what a deployment user touches besides the executor."""
    lib = tvm.runtime.load_module(export.path)
    assert [m.type_key for m in lib.imported_modules] == ["metadata_module"]
    assert lib.get_property_mask() == 1 and lib.is_binary_serializable and not lib.is_runnable
    assert lib.implements_function("default") and not lib.implements_function("run")
    for prop in (lambda: lib.format, lambda: lib.get_source(), lambda: lib.save("/tmp/x.so")):
        with pytest.raises(tvm.TVMError, match="does not support"):
            prop()
    m = lib["default"](tvm.cpu(0))
    assert m.type_key == "AotExecutor" and m.is_runnable
    assert tvm.cpu(0).exist and not tvm.rocm(0).exist
    assert tvm.runtime.enabled("cpu") and tvm.runtime.enabled("cuda") and not tvm.runtime.enabled("rocm")
    with pytest.raises(tvm.TVMError, match="Unknown optional runtime"):
        tvm.runtime.enabled("bogus")
    assert tvm.runtime.num_threads() >= 1
    names = lib["list_module_names"]()
    assert hash(names) == hash(names) and names.same_as(names)
    a = tvm.nd.array(np.arange(12, dtype="float32"))
    view = a._create_view((3, 4))
    assert view.shape == (3, 4) and view.numpy().tobytes() == a.numpy().tobytes()
    with pytest.raises(tvm.TVMError):
        a._create_view((13,))
    tvm.get_global_func("runtime.config_threadpool")(0, 2)
    assert tvm.runtime.num_threads() == 2
    tvm.get_global_func("runtime.config_threadpool")(0, 0)

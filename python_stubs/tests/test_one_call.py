"""AotModule.__call__ / predict: one-call inference returning numpy copies, with set_input's checks."""
import numpy as np
import pytest

from conftest import model_path


def executor(tvm, models, name):
    from aotrt.runtime.executor import AotModule
    return AotModule(tvm.runtime.load_module(model_path(models, name))["default"](tvm.cpu(0)))


def test_every_generated_model_by_name_and_by_position(tvm, case):
    from aotrt.runtime.executor import AotModule
    ex = AotModule(tvm.runtime.load_module(case.lib_path)[case.mod_name](tvm.cpu(0)))
    inputs = case.inputs()
    if case.expect_error:
        with pytest.raises(tvm.error.ModelError, match=case.expect_error):
            ex(**inputs)
        return
    for outs in (ex(**inputs), ex.predict(**inputs)):
        assert len(outs) == len(case.expected())
        for got, ref in zip(outs, case.expected()):
            assert type(got) is np.ndarray and got.dtype == ref.dtype and got.shape == ref.shape
            assert got.tobytes() == ref.tobytes()
    if len(inputs) == ex.get_num_inputs():   # no factory params: every input by position too
        outs = ex(*inputs.values())           # case.inputs() is in input order
        assert [o.tobytes() for o in outs] == [r.tobytes() for r in case.expected()]


def test_outputs_are_copies(tvm, models):
    ex = executor(tvm, models, "add_c")
    a, b = np.array([1.5], np.float32), np.array([2.0], np.float32)
    first, = ex(a, b)
    second, = ex(a, b=np.array([10.0], np.float32))   # positional and named mixed
    assert first.tolist() == [3.5] and second.tolist() == [11.5]
    assert ex.get_output(0).numpy().tolist() == [11.5]
    first[0] = 0                                        # the caller's: writing it changes nothing
    assert ex.get_output(0).numpy().tolist() == [11.5]
    only_a, = ex(np.array([0.5], np.float32))           # input 1 keeps its last value
    assert only_a.tolist() == [10.5]


def test_bad_inputs_change_nothing(tvm, models):
    ex = executor(tvm, models, "add_c")
    ex(np.array([1.0], np.float32), np.array([2.0], np.float32))
    with pytest.raises(tvm.error.ShapeMismatchError):
        ex(np.array([7.0], np.float32), np.zeros(3, np.float32))
    with pytest.raises(tvm.error.TypeMismatchError):
        ex(np.array([7.0], np.float32), np.array([1.5 + 2j]))
    with pytest.raises(tvm.TVMError, match="no_such_input"):
        ex(np.array([7.0], np.float32), no_such_input=np.zeros(1, np.float32))
    with pytest.raises(TypeError, match="given twice"):
        ex(np.array([7.0], np.float32), **{ex.get_input_name(0): np.array([8.0], np.float32)})
    with pytest.raises(TypeError, match="has 2 inputs, got 3"):
        ex(*[np.zeros(1, np.float32)] * 3)
    assert ex.get_input(0).numpy().tolist() == [1.0]    # input 0 never overwritten by a failed call

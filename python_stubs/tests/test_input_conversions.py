"""set_input / copyfrom convert by the runtime's one rule (issue 26, README "Inputs in another
dtype"): a value is accepted only when it survives the conversion; every error names the input as
the C++ executor does (issue 'first hour', item 3)."""
import re

import numpy as np
import pytest

from conftest import model_path


@pytest.fixture()
def multi_io(tvm, models):
    """multi_io_c: inputs x_i8 [2,3] int8, y_u8 [2,3] uint8, z_f32 [2,4] float32, w_f64 [2,4] float64."""
    from aotrt.runtime.executor import AotModule
    return AotModule(tvm.runtime.load_module(model_path(models, "multi_io_c"))["default"](tvm.cpu(0)))


def test_integer_out_of_range_is_refused(tvm, multi_io):
    with pytest.raises(tvm.error.TypeMismatchError,
                       match=re.escape("input 0 ('x_i8'): expected dtype int8, got int64 holding 300 at index [0, 0], "
                                       "outside int8's range [-128, 127] (it would wrap around)")):
        multi_io.set_input("x_i8", np.full((2, 3), 300, np.int64))
    with pytest.raises(tvm.error.TypeMismatchError,
                       match=re.escape("input 1 ('y_u8'): expected dtype uint8, got int64 holding 256 at index [1, 2]")):
        multi_io.set_input("y_u8", np.array([[0, 1, 2], [3, 255, 256]], np.int64))
    with pytest.raises(tvm.error.TypeMismatchError, match=r"input 1 \('y_u8'\).*uint8, got int64 holding -1"):
        multi_io.set_input("y_u8", np.full((2, 3), -1, np.int64))
    # Nothing was stored by the refused calls.
    assert not multi_io.get_input("x_i8").numpy().any()


def test_float_into_int_and_anything_into_bool_are_refused(tvm, multi_io):
    with pytest.raises(tvm.error.TypeMismatchError,
                       match=re.escape("input 0 ('x_i8'): expected dtype int8, got float64: a float is not converted "
                                       "to an integer")):
        multi_io.set_input("x_i8", np.full((2, 3), 3.7))
    with pytest.raises(TypeError, match=r"input 0 \('x_i8'\).*float64"):   # a Python float, via asarray
        multi_io.set_input(0, [[3.7] * 3] * 2)
    with pytest.raises(tvm.error.TypeMismatchError, match="expected dtype bool, got int64"):
        tvm.nd.empty((2,), "bool").copyfrom(np.array([0, 1]))
    with pytest.raises(tvm.error.TypeMismatchError, match="expected dtype float32, got complex128"):
        multi_io.set_input("z_f32", np.zeros((2, 4), np.complex128))


def test_values_that_do_not_survive_are_refused(tvm, multi_io):
    """Issue 26: float64 1e300 used to become inf, int64 16777217 became 16777216.0."""
    with pytest.raises(tvm.error.TypeMismatchError,
                       match=re.escape("input 2 ('z_f32'): expected dtype float32, got float64 holding 1e+300 at index "
                                       "[1, 3], which does not survive the conversion: it would become inf")):
        multi_io.set_input("z_f32", np.array([[0.5] * 4, [1, 2, 3, 1e300]]))
    with pytest.raises(tvm.error.TypeMismatchError,
                       match=re.escape("input 2 ('z_f32'): expected dtype float32, got int64 holding 16777217 at index "
                                       "[0, 0], which does not survive the conversion: it would become 16777216")):
        multi_io.set_input("z_f32", np.full((2, 4), 16777217, np.int64))
    assert not multi_io.get_input("z_f32").numpy().any()   # refused: nothing stored
    # The same rule through NDArray.copyfrom and nd.array + set_input.
    f = tvm.nd.empty((2,), "float32")
    with pytest.raises(tvm.error.TypeMismatchError, match=r"NDArray \[2\] float32.*holding 1e\+300"):
        f.copyfrom(np.array([1.0, 1e300]))
    with pytest.raises(tvm.error.TypeMismatchError, match=r"input 2 \('z_f32'\).*holding 16777217"):
        multi_io.set_input("z_f32", tvm.nd.array(np.full((2, 4), 16777217, np.int64)))
    # Values that survive: accepted, whatever their dtype.
    multi_io.set_input("z_f32", np.full((2, 4), 16777216, np.int64))
    multi_io.set_input("x_i8", np.full((2, 3), 100, np.uint64))
    assert multi_io.get_input("z_f32").numpy().tolist() == [[16777216.0] * 4] * 2
    assert multi_io.get_input("x_i8").numpy().tolist() == [[100] * 3] * 2


def test_same_kind_conversions_keep_working(tvm, multi_io):
    multi_io.set_input("x_i8", np.array([[-128, 0, 127], [1, 2, 3]], np.int64))   # fits: accepted
    multi_io.set_input("y_u8", [[0, 255, 1], [2, 3, 4]])                          # Python ints that fit
    multi_io.set_input("z_f32", np.full((2, 4), 0.5, np.float64))                 # float64 -> float32
    multi_io.set_input("w_f64", np.full((2, 4), 2, np.int32))                     # int -> float: safe
    assert multi_io.get_input("x_i8").numpy().tolist() == [[-128, 0, 127], [1, 2, 3]]
    assert multi_io.get_input("y_u8").numpy().tolist() == [[0, 255, 1], [2, 3, 4]]
    assert multi_io.get_input("z_f32").numpy().tolist() == [[0.5] * 4] * 2
    assert multi_io.get_input("w_f64").numpy().tolist() == [[2.0] * 4] * 2
    b = tvm.nd.empty((2,), "bool")
    b.copyfrom(np.array([True, False]))
    assert b.numpy().tolist() == [True, False]


def test_shape_error_names_the_input_as_cpp_does(tvm, multi_io):
    with pytest.raises(tvm.error.ShapeMismatchError,
                       match=re.escape("input 2 ('z_f32'): expected shape [2, 4], got [4, 2]")):
        multi_io.set_input("z_f32", np.zeros((4, 2), np.float32))
    with pytest.raises(tvm.error.ShapeMismatchError, match=re.escape("expected shape [2], got [3]")):
        tvm.nd.empty((2,), "float32").copyfrom(np.zeros(3, np.float32))


def test_not_array_like_names_the_input(tvm, multi_io):
    with pytest.raises(TypeError, match=r"input 3 \('w_f64'\): expected .*float64, got"):
        multi_io.set_input("w_f64", [[1.0, 2.0], [3.0]])   # ragged


def test_index_out_of_range_is_worded_as_cpp(tvm, multi_io):
    with pytest.raises(tvm.error.OutOfRangeError, match="input index 9 out of range: the model has 4 inputs"):
        multi_io.set_input(9, np.zeros((2, 3), np.int8))

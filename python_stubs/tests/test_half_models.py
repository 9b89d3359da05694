"""float16 and bool through the Python package: numpy float16 in and out, bool outputs as numpy
bool, .npy files of float16, NDArrays of both; libraries needing a symbol nobody provides are
refused by load_module with an exception, and the interpreter goes on."""
import os

import numpy as np
import pytest

from conftest import model_path


@pytest.fixture(params=["half_c", "half_llvm"])
def half(request, tvm, models):
    from aotrt.runtime.executor import AotModule
    name = request.param
    case = os.path.join(models, name + ".case")
    ex = AotModule(tvm.runtime.load_module(model_path(models, name))["default"](tvm.cpu(0)))
    inputs = {k: np.load(os.path.join(case, "inputs", k + ".npy")) for k in ("x_u8", "h", "g")}
    expected = [np.load(os.path.join(case, "expected", "output%d.npy" % i)) for i in range(5)]
    return ex, inputs, expected


def test_dtypes_reported(half):
    ex, _, _ = half
    shapes, dtypes = ex.get_input_info()
    assert dict(dtypes) == {"x_u8": "uint8", "h": "float16", "g": "float16"}
    _, out_dtypes = ex.get_output_info()
    assert list(out_dtypes.values()) == ["float16", "bool", "int16", "float32", "float16"]


def test_numpy_float16_in_and_out_bit_exact(half, tmp_path):
    ex, inputs, expected = half
    assert inputs["h"].dtype == np.float16
    ex.set_input(**inputs)
    ex.run()
    outs = [ex.get_output(i).numpy() for i in range(5)]
    assert [o.dtype for o in outs] == [np.float16, np.bool_, np.int16, np.float32, np.float16]
    for got, want in zip(outs, expected):
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert np.isnan(outs[0]).any() and np.isinf(outs[0]).any()
    # .npy round trip of a float16 output keeps the bits
    np.save(tmp_path / "out0.npy", outs[0])
    assert np.load(tmp_path / "out0.npy").tobytes() == expected[0].tobytes()


def test_ndarray_float16_and_bool(half, tvm):
    ex, inputs, expected = half
    for k, v in inputs.items():
        ex.set_input(k, tvm.nd.array(v))
    ex.run()
    out = tvm.nd.empty((2, 6), "bool")
    ex.get_output(1, out)
    assert out.dtype == "bool" and out.numpy().dtype == np.bool_
    assert np.array_equal(out.numpy(), expected[1])
    h = tvm.nd.array(inputs["h"])
    assert h.dtype == "float16" and h.numpy().tobytes() == inputs["h"].tobytes()


def test_other_float_widths_are_converted_like_tvm(half):
    # TVM's set_input copies a numpy array into the input's dtype (NDArray.copyfrom casts).
    ex, inputs, expected = half
    ex.set_input(x_u8=inputs["x_u8"], h=inputs["h"].astype(np.float32), g=inputs["g"].astype(np.float64))
    ex.run()
    assert ex.get_output(0).numpy().tobytes() == expected[0].tobytes()


@pytest.mark.parametrize("flavour", ["c", "llvm"])
def test_library_needing_unknown_symbol_is_refused(tvm, models, flavour):
    path = os.path.join(models, "unloadable", "missing_symbol_%s.so" % flavour)
    assert os.path.exists(path)
    for _ in range(2):
        with pytest.raises(tvm.error.NotFoundError, match="aotrt_test_nobody_defines_this") as info:
            tvm.runtime.load_module(path)
        assert path in str(info.value)
    # the interpreter lives on and still loads and runs models
    add = tvm.runtime.load_module(model_path(models, "add_c"))
    assert add["default"](tvm.cpu(0)) is not None

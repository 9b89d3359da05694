"""Zero-copy from numpy: aligned numpy arrays for the zero-copy setters, and writable numpy views of
the executor's own input/output buffers (issue 'first hour', item 7)."""
import gc
import weakref

import numpy as np
import pytest

from conftest import model_path


def _multi_io(tvm, models):
    from aotrt.runtime.executor import AotModule
    return AotModule(tvm.runtime.load_module(model_path(models, "multi_io_c"))["default"](tvm.cpu(0)))


def _inputs():
    rng = np.random.default_rng(3)
    return {"x_i8": rng.integers(-5, 5, (2, 3)).astype(np.int8),
            "y_u8": rng.integers(0, 9, (2, 3)).astype(np.uint8),
            "z_f32": rng.standard_normal((2, 4)).astype(np.float32),
            "w_f64": rng.standard_normal((2, 4))}


def _outputs(ex):
    return [ex.get_output(i).numpy() for i in range(ex.get_num_outputs())]


@pytest.mark.parametrize("shape, dtype", [((2, 3), "int8"), ((5,), np.float64), (7, "float32"), ((0, 3), "uint8")])
def test_empty_aligned_is_aligned_writable_numpy(tvm, shape, dtype):
    for _ in range(8):   # several allocations: numpy's own alignment varies
        a = tvm.nd.empty_aligned(shape, dtype)
        assert type(a) is np.ndarray and a.flags.writeable and a.flags.c_contiguous
        assert a.dtype == np.dtype(dtype) and a.shape == ((shape,) if isinstance(shape, int) else shape)
        assert a.size == 0 or a.ctypes.data % 64 == 0
    z = tvm.nd.zeros_aligned((3, 3), "float32")
    assert not z.any() and z.ctypes.data % 64 == 0
    with pytest.raises(ValueError, match="power of two"):
        tvm.nd.empty_aligned(4, "int8", alignment=48)
    with pytest.raises(ValueError, match="negative"):
        tvm.nd.empty_aligned((2, -1), "int8")


def test_aligned_numpy_arrays_are_accepted_by_zero_copy(tvm, models):
    ref = _multi_io(tvm, models)
    ref.run(**_inputs())
    expected = _outputs(ref)

    ex = _multi_io(tvm, models)
    held = {}
    for name, value in _inputs().items():
        a = tvm.nd.empty_aligned(value.shape, value.dtype)
        a[...] = value
        ex.set_input_zero_copy(name, a)
        held[name] = a
    ex.run()
    for got, want in zip(_outputs(ex), expected):
        np.testing.assert_array_equal(got, want)
    held["z_f32"][...] = 0            # read in place by the next run
    ex.run()
    assert not np.array_equal(ex.get_output(2).numpy(), expected[2])
    out = tvm.nd.empty_aligned(expected[0].shape, expected[0].dtype)
    ex.set_output_zero_copy(0, out)
    ex.run()
    np.testing.assert_array_equal(out, expected[0])


def test_filling_input_views_equals_set_input(tvm, models):
    ref = _multi_io(tvm, models)
    ref.run(**_inputs())
    expected = _outputs(ref)

    ex = _multi_io(tvm, models)
    for i, (name, value) in enumerate(_inputs().items()):
        view = ex.input_view(name if i % 2 else i)
        assert view.flags.writeable and view.shape == value.shape and view.dtype == value.dtype
        view[...] = value
    ex.run()
    for got, want in zip(_outputs(ex), expected):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ex.get_input("z_f32").numpy(), _inputs()["z_f32"])


def test_output_view_sees_each_run_and_keeps_the_module_alive(tvm, models):
    ex = _multi_io(tvm, models)
    alive = weakref.ref(ex)
    x = ex.input_view("x_i8")
    out_u8 = ex.output_view(3)          # out_u8 = cast(x_i8, uint8)
    del ex
    gc.collect()
    assert alive() is not None          # the views keep the AotModule (and its executor) alive
    x[...] = 7
    alive().run()
    assert out_u8.tolist() == [[7] * 3] * 2
    x[...] = 9
    alive().run()
    assert out_u8.tolist() == [[9] * 3] * 2
    with pytest.raises(tvm.TVMError, match="Invalid input name"):
        alive().input_view("nope")
    del x, out_u8
    gc.collect()
    assert alive() is None

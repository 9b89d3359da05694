"""Executors with options from Python (AOTRTExecutorCreate): caller-owned arenas and workspace pools."""
import gc
import os

import numpy as np
import pytest

import aotrt as tvm
from aotrt.runtime.executor import AotModule, arena_bytes, create_executor

from conftest import fixture_cases
from test_c_interface import mlf_dir


def _run_bit_exact(m, inputs, expected):
    m.set_input(**inputs)
    m.run()
    for i, want in enumerate(expected):
        assert m.get_output(i).numpy().tobytes() == want.tobytes(), "output %d differs" % i


ARENA_FIXTURES = [c for c in fixture_cases() if c.name in ("mobilenet_llvm_nousmp", "tiny_add_c", "conv2d_c_usmp")]


@pytest.mark.parametrize("real", ARENA_FIXTURES or [pytest.param(None, marks=pytest.mark.skip(reason="no TVM fixtures"))],
                         ids=[c.name for c in ARENA_FIXTURES] or ["none"])
def test_an_executor_in_an_arena_runs_bit_exact(real):
    lib = tvm.runtime.load_module(real.lib_path)
    need = arena_bytes(lib)
    arena = tvm.nd.empty_aligned((need,), "uint8")
    arena[:] = 0xA5  # the caller's memory need not be zero
    m = create_executor(lib, arena=arena)
    del arena
    gc.collect()  # the module keeps its arena alive
    for _ in range(2):
        _run_bit_exact(m, real.inputs(), real.expected())


def test_arena_errors_name_what_is_wrong(models):
    lib = tvm.runtime.load_module(os.path.join(models, "conv_net_llvm.so"))
    need = arena_bytes(lib)
    small = tvm.nd.empty_aligned((need - 64,), "uint8")
    with pytest.raises(tvm.TVMError, match="too small .* it needs {:,} bytes".format(need)):
        create_executor(lib, arena=small)
    unaligned = tvm.nd.empty_aligned((need + 64,), "uint8")[8:]
    with pytest.raises(tvm.TVMError, match="not 64-byte aligned"):
        create_executor(lib, arena=unaligned)
    with pytest.raises(ValueError, match="writable C-contiguous"):
        create_executor(lib, arena=np.zeros(need + 128, np.uint8)[::2])
    with pytest.raises(TypeError, match="check_bounds must be a bool"):
        create_executor(lib, check_bounds="yes")
    arena = tvm.nd.empty_aligned((need,), "uint8")
    for switch in ("check_bounds", "huge_pages"):
        with pytest.raises(tvm.TVMError, match="%s is 1 with an arena: it applies to an executor in aotrt's own" % switch):
            create_executor(lib, arena=arena, **{switch: True})
    with pytest.raises(TypeError, match="load_module returned"):
        create_executor(object())


def test_operator_threads_per_executor(models):
    lib = tvm.runtime.load_module(os.path.join(models, "profile_costs_parallel_llvm.so"))
    outputs = []
    for n in (1, 2, 0):
        m = create_executor(lib, num_threads=n)
        shapes, dtypes = m.get_input_info()
        m.set_input(**{name: np.full(shape, 0.5, dtypes[name]) for name, shape in shapes.items()})
        m.run()
        outputs.append(m.get_output(0).numpy())
    assert all(o.tobytes() == outputs[0].tobytes() for o in outputs)
    for bad in (-1, 1025, 1.5, True):
        with pytest.raises(ValueError, match="num_threads must be an int in \\[0, 1024\\]"):
            create_executor(lib, num_threads=bad)
        with pytest.raises(ValueError, match="num_threads must be an int in \\[0, 1024\\]"):
            tvm.runtime.load_module(os.path.join(models, "profile_costs_parallel_llvm.so"), num_threads=bad)
    packed = tvm.runtime.load_module(os.path.join(models, "profile_costs_parallel_llvm.so"), num_threads=1)
    m = AotModule(packed["default"](tvm.cpu(0)))
    m.set_input(**{name: np.full(shape, 0.5, dtypes[name]) for name, shape in shapes.items()})
    m.run()
    assert m.get_output(0).numpy().tobytes() == outputs[0].tobytes()


@pytest.mark.skipif(mlf_dir() is None, reason="no C-interface fixtures (../shared/fixtures/mlf)")
def test_the_callers_app_pool_is_used_in_place(tmp_path):
    d = os.path.join(mlf_dir(), "mlf_user_pool")
    lib = tvm.runtime.load_module(os.path.join(d, "model.tar"), cache_dir=str(tmp_path))
    x = np.load(os.path.join(d, "inputs.npz"))["x"]
    expected = np.load(os.path.join(d, "expected.npz"))
    want = [expected[k] for k in sorted(expected.files)]
    pool = tvm.nd.empty_aligned((9536,), "uint8")
    m = create_executor(lib, workspace_pools={"app_pool": pool})
    pool[:] = 0
    _run_bit_exact(m, {"x": x}, want)
    assert pool.any(), "the model's intermediate values went to the caller's pool"
    with pytest.raises(tvm.TVMError, match="needs 9536 bytes"):
        create_executor(lib, workspace_pools={"app_pool": tvm.nd.empty_aligned((100,), "uint8")})
    with pytest.raises(tvm.TVMError, match="has no workspace pool 'nope'"):
        create_executor(lib, workspace_pools={"nope": pool})
    # With an arena too: the pool given stays outside it, so the arena needed is smaller.
    assert arena_bytes(lib, workspace_pools={"app_pool": pool}) < arena_bytes(lib)

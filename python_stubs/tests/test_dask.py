"""aotrt.dask on a LocalCluster of 2 worker processes over loopback TCP: results equal to running the
executor in a loop, partial batches, a worker killed mid-computation, a model file the workers cannot
see, checks before submission, and model errors surfacing as aotrt's exceptions."""
import os
import shutil
import signal
import time

import numpy as np
import pytest

from conftest import model_path

da = pytest.importorskip("dask.array", reason="dask not installed (scripts/install-deps.sh installs python3-dask)")
distributed = pytest.importorskip("distributed", reason="distributed not installed (python3-distributed)")
aotrt_dask = pytest.importorskip("aotrt.dask")

WAIT_S = 120   # bound on every wait for the cluster; never a pass/fail criterion


def local_cluster(n_workers, threads, folder):
    """Scheduler, nannies, workers and their HTTP servers all on 127.0.0.1; scratch space in `folder`."""
    return distributed.LocalCluster(n_workers=n_workers, threads_per_worker=threads, processes=True, protocol="tcp",
                                    host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                    worker_dashboard_address="127.0.0.1:0", local_directory=str(folder),
                                    silence_logs=40)


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    cluster = local_cluster(2, 2, tmp_path_factory.mktemp("dask"))
    c = distributed.Client(cluster, timeout=WAIT_S)
    c.wait_for_workers(2, timeout=WAIT_S)
    yield c
    c.close()
    cluster.close()


@pytest.fixture
def digits_path(tvm):
    from conftest import models_dir
    d = models_dir()
    path = os.path.join(os.path.dirname(d), "samples", "digits.so") if d else None
    if not path or not os.path.exists(path):
        pytest.skip("the digits sample is not built")
    return path


def loop_reference(tvm, path, inputs, output, batch):
    """The executor in a plain loop, `batch` samples at a time (last piece zero-padded)."""
    from aotrt.runtime.executor import AotModule
    ex = AotModule(tvm.runtime.load_module(path)["default"](tvm.cpu(0)))
    n = len(next(iter(inputs.values())))
    outs = []
    for start in range(0, n, batch):
        k = min(batch, n - start)
        for name, x in inputs.items():
            piece = np.zeros((batch,) + x.shape[1:], x.dtype)
            piece[:k] = x[start:start + k]
            ex.set_input(name, piece)
        ex.run()
        outs.append(ex.get_output(output).numpy()[:k].copy())
    return np.concatenate(outs)


def digit_images(n, seed=0):
    return np.random.default_rng(seed).uniform(0, 16, (n, 64)).astype(np.float32)


def multi_io_inputs(n, seed=0):
    rng = np.random.default_rng(seed)
    return {"x_i8": rng.integers(-128, 128, (n, 3)).astype(np.int8),
            "y_u8": rng.integers(0, 256, (n, 3)).astype(np.uint8),
            "z_f32": rng.uniform(-4, 4, (n, 4)).astype(np.float32),
            "w_f64": rng.uniform(-4, 4, (n, 4))}


def test_digits_thousands_of_samples(tvm, client, digits_path):
    x = digit_images(3000)
    for output in (0, 1):
        y = aotrt_dask.predict(digits_path, da.from_array(x, chunks=400), output=output)
        assert y.chunks[0] == da.from_array(x, chunks=400).chunks[0]
        got = y.compute()
        np.testing.assert_array_equal(got, loop_reference(tvm, digits_path, {"image": x}, output, 1))
    # and the classes of the bundled test images
    imgs = np.concatenate([np.load(os.path.join(os.path.dirname(__file__), "..", "..", "samples", "digits",
                                                "inputs", "digit_%d.npy" % d)) for d in range(10)])
    got = aotrt_dask.predict(digits_path, da.from_array(imgs, chunks=3), output=1).compute()
    assert (got == np.arange(10)).sum() >= 9


def test_multi_input_every_output(tvm, client, models):
    path = model_path(models, "multi_io_c")
    inputs = multi_io_inputs(2501)                  # batch 2: the last piece of the last block is partial
    lazy = {k: da.from_array(v, chunks=600) for k, v in inputs.items()}
    for output in range(4):
        got = aotrt_dask.predict(path, lazy, output=output).compute()
        np.testing.assert_array_equal(got, loop_reference(tvm, path, inputs, output, 2))


def test_last_partial_batch_in_every_block(tvm, client, models):
    path = model_path(models, "multi_io_c")
    inputs = multi_io_inputs(7, seed=3)
    lazy = {k: da.from_array(v, chunks=3) for k, v in inputs.items()}   # blocks of 3, 3, 1 samples
    y = aotrt_dask.predict(path, lazy, output=2)
    assert y.shape == (7, 3) and y.chunks == ((3, 3, 1), (3,))
    np.testing.assert_array_equal(y.compute(), loop_reference(tvm, path, inputs, 2, 2))


def test_batch_axis_other_than_zero(tvm, client, models):
    path = model_path(models, "multi_io_c")
    inputs = multi_io_inputs(9, seed=4)
    lazy = {k: da.from_array(np.ascontiguousarray(v.T), chunks=(-1, 4)) for k, v in inputs.items()}
    with pytest.raises(tvm.error.ShapeMismatchError, match="axis 1"):
        aotrt_dask.predict(path, lazy, batch_axis=1)   # the model's batch is on axis 0


def test_worker_killed_mid_computation(tvm, client, digits_path):
    """Half the blocks finish, the rest wait on an Event; a worker holding finished results is killed
    with SIGKILL; the scheduler reruns its tasks on the survivor / replacement: same result."""
    x = digit_images(2400, seed=1)
    gate = distributed.Event("aotrt-test-gate-%d" % os.getpid(), client=client)
    gate.clear()
    gate_name, open_blocks = gate.name, 3

    def gated(block, block_id=None):
        if block_id[0] >= open_blocks:      # seceded: the wait holds no worker thread
            distributed.secede()
            distributed.Event(gate_name).wait()
            distributed.rejoin()
        return block

    lazy = da.from_array(x, chunks=200).map_blocks(gated, dtype=x.dtype)
    y = aotrt_dask.predict(digits_path, lazy, output=0)
    future = client.compute(y)
    try:
        deadline = time.monotonic() + WAIT_S
        victim = None
        while victim is None and time.monotonic() < deadline:
            for addr, keys in client.has_what().items():
                if any(y.name in str(k) for k in keys):
                    victim = addr      # holds a finished block
            time.sleep(0.05)
        assert victim is not None, "no block finished within %d s" % WAIT_S
        pid = client.run(os.getpid, workers=[victim])[victim]
        os.kill(pid, signal.SIGKILL)
        # the dead worker's results are gone: the scheduler must compute them again
        while victim in client.scheduler_info()["workers"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert victim not in client.scheduler_info()["workers"]
        assert not future.done()
    finally:
        gate.set()             # never leave tasks waiting, whatever failed above
    got = future.result(timeout=WAIT_S)
    np.testing.assert_array_equal(got, loop_reference(tvm, digits_path, {"image": x}, 0, 1))
    client.wait_for_workers(2, timeout=WAIT_S)   # the nanny restarted it; later tests have 2 workers


def test_model_file_missing_on_the_workers(tvm, client, digits_path, tmp_path):
    copy = tmp_path / "digits_copy.so"
    shutil.copy(digits_path, copy)
    x = digit_images(50, seed=2)
    uploaded = aotrt_dask.predict(str(copy), da.from_array(x, chunks=10), output=1)
    os.remove(copy)                               # no worker can read the path any more
    np.testing.assert_array_equal(uploaded.compute(), loop_reference(tvm, digits_path, {"image": x}, 1, 1))
    # without the upload a worker that cannot read the path says so, as aotrt's exception
    # (the upload reached every worker under this content hash: use a model with other bytes)
    copy2 = tmp_path / "digits_altered.so"
    copy2.write_bytes(open(digits_path, "rb").read() + b"\0")
    lazy = aotrt_dask.predict(str(copy2), da.from_array(x, chunks=10), upload=False)
    os.remove(copy2)
    with pytest.raises(tvm.error.TVMIOError, match="digits_altered.so.*cannot be read here"):
        lazy.compute()


def test_missing_model_on_the_client(tvm, tmp_path):
    with pytest.raises(tvm.error.TVMIOError, match="nowhere.so"):
        aotrt_dask.predict(str(tmp_path / "nowhere.so"), da.zeros((4, 64), dtype=np.float32))


def test_refused_before_submission(tvm, client, digits_path, models):
    before = len(client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.tasks)))
    with pytest.raises(tvm.error.TypeMismatchError,
                       match="input 'image': expected dtype float32, got complex64: not an array of numbers"):
        aotrt_dask.predict(digits_path, da.zeros((100, 64), dtype=np.complex64, chunks=10))
    with pytest.raises(tvm.error.ShapeMismatchError, match="'image'.*\\(100, 63\\).*\\(64,\\)"):
        aotrt_dask.predict(digits_path, da.zeros((100, 63), dtype=np.float32, chunks=10))
    path = model_path(models, "multi_io_c")
    lazy = {k: da.from_array(v, chunks=5) for k, v in multi_io_inputs(10).items()}
    # A float into an integer input is refused whatever the values: before submission (the rule of
    # every input path, README "Inputs in another dtype").
    refused = dict(lazy, y_u8=lazy["y_u8"].astype(np.float32))
    with pytest.raises(tvm.error.TypeMismatchError,
                       match="input 'y_u8': expected dtype uint8, got float32: a float is not converted to an integer"):
        aotrt_dask.predict(path, refused)
    with pytest.raises(tvm.error.InvalidArgumentError, match="not given.*z_f32"):
        aotrt_dask.predict(path, {k: v for k, v in lazy.items() if k != "z_f32"})
    with pytest.raises(tvm.error.InvalidArgumentError, match="mapping"):
        aotrt_dask.predict(path, lazy["x_i8"])
    with pytest.raises(tvm.error.InvalidArgumentError, match="output 'nope'"):
        aotrt_dask.predict(digits_path, da.zeros((10, 64), dtype=np.float32), output="nope")
    after = len(client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.tasks)))
    assert after <= before   # nothing reached the scheduler


def test_other_dtypes_follow_the_one_rule(tvm, client, digits_path):
    """float64 samples for the float32 digits model: converted where every value survives (the
    same results as float32), refused in the task naming the input where one does not."""
    x = np.random.default_rng(3).integers(0, 16, (40, 64)).astype(np.float64)
    want = aotrt_dask.predict(digits_path, da.from_array(x.astype(np.float32), chunks=20), output=1).compute()
    got = aotrt_dask.predict(digits_path, da.from_array(x, chunks=20), output=1).compute()
    np.testing.assert_array_equal(got, want)
    x[25, 3] = 1e300
    with pytest.raises(tvm.error.TypeMismatchError, match=r"input 0 \('image'\).*holding 1e\+300.*would become inf"):
        aotrt_dask.predict(digits_path, da.from_array(x, chunks=20), output=1).compute()


def test_model_error_surfaces_as_aotrt_exception(tvm, client, models):
    path = model_path(models, "failing_c")
    a = da.ones((6,), dtype=np.float32, chunks=2)
    y = aotrt_dask.predict(path, {"a": a, "b": a})
    with pytest.raises(tvm.error.ModelError, match="aotrt-test: operator failed on purpose"):
        y.compute()


def test_inputs_chunked_differently(tvm, client, models):
    """Blocks of the inputs are aligned (common refinement of their chunks), feature axes joined."""
    path = model_path(models, "multi_io_c")
    inputs = multi_io_inputs(23, seed=5)
    lazy = {k: da.from_array(v, chunks=(5 if k == "x_i8" else 7, 2)) for k, v in inputs.items()}
    y = aotrt_dask.predict(path, lazy, output=1)
    assert y.chunks == ((5, 2, 3, 4, 1, 5, 1, 2), (4,))
    np.testing.assert_array_equal(y.compute(), loop_reference(tvm, path, inputs, 1, 2))
    empty = aotrt_dask.predict(path, {k: v[:0] for k, v in lazy.items()}, output=1)
    assert empty.compute().shape == (0, 4)


def test_stub_declares_predict():
    from test_stubs import stub_names
    assert set(aotrt_dask.__all__) <= stub_names("dask/__init__.pyi")

"""Module.time_evaluator, AotModule.benchmark and BenchmarkResult."""
import numpy as np
import pytest


def _need(tvm, name):
    if tvm.get_global_func(name, allow_missing=True) is None:
        pytest.skip("runtime has no %s global yet" % name)


def test_benchmark_result_statistics(tvm):
    r = tvm.BenchmarkResult([0.004, 0.001, 0.002, 0.003])
    assert (r.min, r.max, r.mean, r.median) == (0.001, 0.004, 0.0025, 0.0025)
    assert r.std == pytest.approx(np.std([1, 2, 3, 4]) / 1000)
    assert r.p50 == pytest.approx(0.0025) and r.percentile(100) == 0.004
    text = str(r)
    assert text.startswith("Execution time summary:") and "mean (ms)" in text and "2.5000" in text
    assert repr(r).startswith("BenchmarkResult(min=0.001")
    s = tvm.BenchmarkResult([1.0, 2.0], samples=list(range(1, 101)))
    assert s.mean == 1.5 and s.p99 == pytest.approx(99.01)


def test_time_evaluator(tvm, add_model):
    _need(tvm, "runtime.RPCTimeEvaluator")
    add_model.set_input(a=np.float32([1]), b=np.float32([2]))
    timer = add_model.module.time_evaluator("run", tvm.cpu(0), number=20, repeat=3)
    res = timer()
    assert isinstance(res, tvm.BenchmarkResult) and len(res.results) == 3
    assert all(t > 0 for t in res.results)  # no upper bound: the machine may be loaded
    assert res.min <= res.median <= res.max
    with pytest.raises(tvm.TVMError):
        add_model.module.time_evaluator("no_such_function", tvm.cpu(0))()
    add_model.run()
    assert add_model.get_output(0).numpy().tolist() == [3.0]


def test_time_evaluator_min_repeat_ms(tvm, add_model):
    _need(tvm, "runtime.RPCTimeEvaluator")
    res = add_model.module.time_evaluator("run", tvm.cpu(0), number=1, repeat=2, min_repeat_ms=5)()
    assert len(res.results) == 2


def test_benchmark(tvm, add_model):
    if (tvm.get_global_func("aotrt.profiling.Benchmark", allow_missing=True) is None
            and tvm.get_global_func("runtime.RPCTimeEvaluator", allow_missing=True) is None):
        pytest.skip("runtime has neither aotrt.profiling.Benchmark nor runtime.RPCTimeEvaluator")
    res = add_model.benchmark(tvm.cpu(0), repeat=4, number=10, a=np.float32([5]), b=np.float32([1]))
    assert len(res.results) == 4
    if res.samples is not None:
        assert len(res.samples) == 40
    assert res.p50 <= res.p99 <= res.p999
    add_model.run()
    assert add_model.get_output(0).numpy().tolist() == [6.0]
    e2e = add_model.benchmark(tvm.cpu(0), end_to_end=True, repeat=2, number=10, a=np.float32([1]))
    assert len(e2e.results) == 2 and e2e.min > 0

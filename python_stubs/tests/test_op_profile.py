"""AotModule.profile: the per-operator profile through the C ABI's aotrt.profiling.ProfileOperators."""
import json

import numpy as np
import pytest

from conftest import model_path


def _costs_model(tvm, models):
    from aotrt.runtime.executor import AotModule
    lib = tvm.runtime.load_module(model_path(models, "profile_costs_llvm_nousmp"))
    return AotModule(lib["default"](tvm.cpu(0)))


def test_profile_report(tvm, models):
    m = _costs_model(tvm, models)
    zeros = {"x1": np.zeros((16, 32), np.float32), "x2": np.zeros((32, 32), np.float32),
             "x4": np.zeros((64, 32), np.float32)}
    report = m.profile(runs=3000, **zeros)
    assert report.runs == 3000 and report.model == "default" and report.symbol_table == ".symtab"
    names = [o["name"] for o in report.operators]
    assert {"fused_nn_dense_1x", "fused_nn_dense_2x", "fused_nn_dense_4x"} <= set(names), names
    assert not any(n.startswith("tvmgen_") for n in names)
    total = sum(o["percent"] for o in report.operators) + report.outside["percent"]
    assert total == pytest.approx(100, abs=1e-4)
    text = report.table()
    assert str(report) == text and "fused_nn_dense_4x" in text and "Percent" in text
    j = json.loads(report.to_json())
    assert j["model"] == "default" and j["run_ms"] > 0 and j["operators"][0]["name"] == names[0]
    assert {"name", "percent", "mean_ms"} <= set(j["operators"][0])
    assert report.json() == report.to_json()
    assert report.csv().startswith("name,symbol,percent,ci95,mean_ms,samples,shapes\n")
    # TVM Report-shaped calls
    assert report.calls[0]["Name"] == names[0] and report.calls[0]["Count"] == report.operators[0]["samples"]
    assert "OperatorProfileReport(model='default'" in repr(report)


def test_profile_bad_options(tvm, models):
    m = _costs_model(tvm, models)
    with pytest.raises(ValueError, match="period_us"):
        m.profile(period_us=1)
    with pytest.raises(ValueError, match="duration_s"):
        m.profile(duration=-1.0)


def test_profile_global_rejects_other_modules(tvm, models):
    lib = tvm.runtime.load_module(model_path(models, "profile_costs_c_nousmp"))
    prof = tvm.get_global_func("aotrt.profiling.ProfileOperators")
    with pytest.raises(ValueError, match="expected an AotExecutor"):
        prof(lib, 1.0, 1, 1000, 0)
    with pytest.raises(TypeError):
        prof(5, 1.0, 1, 1000, 0)

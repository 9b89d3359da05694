"""Messages name what the user knows: the model's own name, the models a library holds, the file."""
import os

import pytest

from conftest import model_path


def test_wrong_model_name_lists_the_models_of_the_library(tvm, models):
    lib = tvm.runtime.load_module(model_path(models, "custom_name"))
    with pytest.raises(AttributeError) as e:
        lib["default"]
    msg = str(e.value)
    assert "'default'" in msg and "'unusual_module_name_fred'" in msg and "lib['unusual_module_name_fred'](device)" in msg
    lib["unusual_module_name_fred"](tvm.cpu(0))  # the name the hint gives works


def test_messages_use_the_users_model_name_not_the_symbol_prefix(tvm, models):
    lib = tvm.runtime.load_module(model_path(models, "custom_name"))
    ex = lib["unusual_module_name_fred"](tvm.cpu(0))
    with pytest.raises(tvm.TVMError) as e:
        ex["get_input_index"]("nonexistent")
    assert "model 'unusual_module_name_fred'" in str(e.value) and "tvmgen_" not in str(e.value)


def test_a_shared_library_without_a_blob_loads_and_says_what_it_is(tvm, models):
    path = os.path.join(os.path.dirname(models), "data", "not_a_model.so")
    if not os.path.exists(path):
        pytest.skip("tests/data/not_a_model.so not built")
    for lib in (tvm.runtime.load_module(path), tvm.runtime.load_module_from_bytes(open(path, "rb").read())):
        assert lib.type_key == "library"   # as TVM loads it: a graph export's mod.so is one
        with pytest.raises(AttributeError) as e:
            lib["default"]
        assert "__tvm_dev_mblob" in str(e.value) and "graph_executor.create" in str(e.value)
        assert "not a TVM export" in str(e.value)

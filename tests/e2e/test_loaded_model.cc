// The loaded model (aot/loaded_model.h) through the public API: built and validated at load,
// described by ModelInfo, shared by executors; empty handles and bad factory params refused.
#include <gtest/gtest.h>

#include <unistd.h>

#include "aotrt/model.h"
#include "aotrt/packed_func.h"
#include "common/cases.h"
#include "common/expect_error.h"

using namespace aotrt;
using namespace aotrt_test;

TEST(LoadedModel, EmptyHandlesThrowInsteadOfCrashing) {
  Model m;
  EXPECT_AOTRT_ERROR(m.CreateExecutor(), ErrorCode::kInvalidArgument, {"empty aotrt::Model"});
  EXPECT_AOTRT_ERROR(m.Info(), ErrorCode::kInvalidArgument, {"empty aotrt::Model"});
  EXPECT_AOTRT_ERROR(m.name(), ErrorCode::kInvalidArgument, {"empty aotrt::Model"});
  Executor ex;
  EXPECT_AOTRT_ERROR(ex.Run(), ErrorCode::kInvalidArgument, {"empty aotrt::Executor"});
  EXPECT_AOTRT_ERROR(ex.NumInputs(), ErrorCode::kInvalidArgument, {"empty aotrt::Executor"});
  EXPECT_AOTRT_ERROR(ex.GetOutput(0), ErrorCode::kInvalidArgument, {"empty aotrt::Executor"});
}

TEST(LoadedModel, InfoDescribesAMemoryPlannedModel) {
  Model m = Model::Load(ModelPath("usmp_both_c"));
  const ModelInfo& info = m.Info();
  EXPECT_EQ(info.name, "default");
  EXPECT_EQ(info.symbol_prefix, "tvmgen_default");
  EXPECT_NE(info.library.find("usmp_both_c.so"), std::string::npos) << info.library;
  ASSERT_EQ(info.inputs.size(), 1u);
  EXPECT_EQ(info.inputs[0].bytes, 2u * 8 * 4);
  ASSERT_EQ(info.outputs.size(), 2u);
  ASSERT_EQ(info.constants.size(), 2u);
  size_t constants = 0;
  for (const NamedBytes& c : info.constants) constants += c.bytes;
  EXPECT_GE(info.constant_bytes, (5u * 8 + 5) * 4);
  EXPECT_GT(constants, 0u);
  ASSERT_EQ(info.workspace_pools.size(), 1u);
  EXPECT_EQ(info.workspace_bytes, info.workspace_pools[0].bytes);
  EXPECT_EQ(info.io_bytes, info.inputs[0].bytes + info.outputs[0].bytes + info.outputs[1].bytes);
  EXPECT_NE(info.constant_source, ConstantSource::kNone);
  EXPECT_TRUE(info.params.empty());
  EXPECT_EQ(info.param_bytes, 0u);
  // An executor sees the same description, shared, not a copy.
  Executor ex = m.CreateExecutor();
  EXPECT_EQ(&ex.Info(), &info);
}

TEST(LoadedModel, ParamsAreBoundToTheirInputsAtLoad) {
  Model m = Model::Load(ModelPath("big_params"));
  const ModelInfo& info = m.Info();
  ASSERT_EQ(info.params.size(), 1u);
  EXPECT_EQ(info.params[0].name, "weight");
  EXPECT_EQ(info.params[0].bytes, 1024u * 4096 * 4);
  EXPECT_EQ(info.param_bytes, info.params[0].bytes);
  EXPECT_EQ(info.io_bytes, 1024u * 4 + 4096u * 4);  // data and y: the param's input is not per executor
}

TEST(LoadedModel, ModelLibrarySymbolsAreReported) {
  Model c = Model::Load(ModelPath("add_c"));
  Model llvm = Model::Load(ModelPath("add_llvm"));
  EXPECT_TRUE(c.Info().context_pointers.empty());
  EXPECT_FALSE(llvm.Info().context_pointers.empty());
  EXPECT_TRUE(c.Info().defines_module_context);
}

namespace {

// tvm.aot_executor_factory.create(<library module of add_c>, "default", name, array, ...)
Module CreateFactory(const std::vector<std::string>& names) {
  Module loaded = Module::LoadFromFile(ModelPath("add_c"));
  Module metadata = loaded.imports().at(0);
  NDArray a = NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1});
  std::vector<TVMValue> values(2 + 2 * names.size());
  std::vector<int> codes(values.size());
  values[0].v_handle = metadata.node().get();
  codes[0] = kTVMModuleHandle;
  values[1].v_str = "default";
  codes[1] = kTVMStr;
  for (size_t i = 0; i < names.size(); ++i) {
    values[2 + 2 * i].v_str = names[i].c_str();
    codes[2 + 2 * i] = kTVMStr;
    values[3 + 2 * i].v_handle = a.handle();
    codes[3 + 2 * i] = kTVMNDArrayHandle;
  }
  TVMRetValue rv;
  GetGlobalFunction("tvm.aot_executor_factory.create")
      .CallPacked(TVMArgs(values.data(), codes.data(), static_cast<int>(values.size())), &rv);
  return Module(ObjectPtr<ModuleNode>(static_cast<ModuleNode*>(rv.object())));
}

}  // namespace

TEST(LoadedModel, FactoryParamsAreCheckedWhenTheFactoryIsMade) {
  Model ok = Model::FromModule(CreateFactory({"a"}));
  ASSERT_EQ(ok.Info().params.size(), 1u);
  EXPECT_EQ(ok.Info().params[0].name, "a");
  // As TVM's factory: a param that is not an input is an error, not a warning.
  EXPECT_AOTRT_ERROR(CreateFactory({"nope"}), ErrorCode::kNotFound,
                     {"'nope' is not an input of model 'default'", "add_c.so"});
  EXPECT_AOTRT_ERROR(CreateFactory({"a", "a"}), ErrorCode::kInvalidArgument,
                     {"factory param 'a' fills input 0 ('a') a second time"});
  EXPECT_AOTRT_ERROR(CreateFactory({""}), ErrorCode::kInvalidArgument, {"factory param with an empty name"});
}

TEST(LoadedModel, ARelativeFileNameIsFoundInTheWorkingDirectory) {
  // dlopen would search the library path for a name without a slash, not the working directory.
  char old[4096];
  ASSERT_NE(::getcwd(old, sizeof(old)), nullptr);
  ASSERT_EQ(::chdir(ModelsDir().c_str()), 0);
  try {
    Model m = Model::Load("add_c.so");
    EXPECT_EQ(m.Info().inputs.size(), 2u);
  } catch (const Error& e) {
    ADD_FAILURE() << e.what();
  }
  ASSERT_EQ(::chdir(old), 0);
}

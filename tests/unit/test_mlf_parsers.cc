// The readers of C-interface archives' text (aot/c_interface): metadata.json, the Relay signature
// and the run function's argument list, on inputs the two real archives do not cover.
#include <gtest/gtest.h>

#include "aot/c_interface/mlf_sources.h"
#include "common/expect_error.h"

using namespace aotrt;

namespace {

TEST(MlfRelay, TypedReturnTupleIsFlattenedInOrder) {
  RelaySignature s = ParseRelayMain(
      "#[version = \"0.0.5\"]\ndef @main(%data: Tensor[(1, 3, 8, 8), uint8] /* ty=Tensor[(1, 3, 8, 8), uint8] */, "
      "%w: Tensor[(4), float32]) -> (Tensor[(1, 10), float32], (Tensor[(), int32], Tensor[(2, 2), float16])) {\n  ...\n}");
  ASSERT_EQ(s.params.count("data"), 1u);
  EXPECT_EQ(s.params["data"].shape, (std::vector<int64_t>{1, 3, 8, 8}));
  EXPECT_EQ(s.params["data"].dtype, "uint8");
  ASSERT_EQ(s.outputs.size(), 3u);
  EXPECT_EQ(s.outputs[0].shape, (std::vector<int64_t>{1, 10}));
  EXPECT_TRUE(s.outputs[1].shape.empty());  // a scalar
  EXPECT_EQ(s.outputs[1].dtype, "int32");
  EXPECT_EQ(s.outputs[2].dtype, "float16");
}

TEST(MlfRelay, UntypedOrDynamicPartsAreLeftOut) {
  RelaySignature s = ParseRelayMain("def @main(%a, %b: Tensor[(?, 4), float32], %c: Tensor[(2), int8]) {");
  EXPECT_EQ(s.params.count("a"), 0u);
  EXPECT_EQ(s.params.count("b"), 0u);
  ASSERT_EQ(s.params.count("c"), 1u);
  EXPECT_TRUE(s.outputs.empty());
  EXPECT_TRUE(ParseRelayMain("not relay").params.empty());
}

TEST(MlfEntry, ArgumentKindsAndPoolSizes) {
  std::string lib0 =
      "static struct global_const_workspace {\n} global_const_workspace = {};\n"
      "static uint8_t global_workspace[128];\n"
      "int32_t tvmgen_m_run(struct tvmgen_m_inputs* inputs,struct tvmgen_m_outputs* outputs,"
      "struct tvmgen_m_workspace_pools* workspace_pools) {return tvmgen_m___tvm_main__(inputs->a,outputs->out,"
      "&global_const_workspace,&global_workspace,workspace_pools->my_pool);\n}";
  std::string header = "#define TVMGEN_M_MY_POOL_WORKSPACE_POOL_SIZE 256\n";
  MlfEntry e = ParseMlfEntry({{"codegen/host/src/m_lib0.c", lib0}}, header, "tvmgen_m", "m.tar");
  EXPECT_EQ(e.run_file, "codegen/host/src/m_lib0.c");
  ASSERT_EQ(e.args.size(), 5u);
  EXPECT_EQ(e.args[0].kind, MlfEntryArg::kInput);
  EXPECT_EQ(e.args[1].kind, MlfEntryArg::kOutput);
  EXPECT_EQ(e.args[2].kind, MlfEntryArg::kStaticConstants);
  EXPECT_EQ(e.args[3].kind, MlfEntryArg::kStaticWorkspace);
  EXPECT_EQ(e.args[3].bytes, 128u);
  EXPECT_EQ(e.args[4].kind, MlfEntryArg::kCallerPool);
  EXPECT_EQ(e.args[4].bytes, 256u);
}

TEST(MlfEntry, RefusesDevicesIoPoolsAndMissingSizes) {
  auto run = [](const std::string& args) {
    return "int32_t tvmgen_m_run() {return tvmgen_m___tvm_main__(" + args + ");\n}";
  };
  EXPECT_AOTRT_ERROR(ParseMlfEntry({{"f.c", run("inputs->a,outputs->o,devices->npu")}}, "", "tvmgen_m", "m.tar"),
                     ErrorCode::kNotImplemented, {"m.tar", "external device", "npu"});
  EXPECT_AOTRT_ERROR(ParseMlfEntry({{"f.c", run("workspace_pools->p")}}, "#define TVMGEN_M_P_WORKSPACE_POOL_SIZE 8\n",
                                   "tvmgen_m", "m.tar"),
                     ErrorCode::kNotImplemented, {"use_workspace_io"});
  EXPECT_AOTRT_ERROR(ParseMlfEntry({{"f.c", run("inputs->a,outputs->o,workspace_pools->p")}}, "", "tvmgen_m", "m.tar"),
                     ErrorCode::kFormatError, {"'p'", "TVMGEN_M_P_WORKSPACE_POOL_SIZE"});
  EXPECT_AOTRT_ERROR(ParseMlfEntry({{"f.c", "int x;"}}, "", "tvmgen_m", "m.tar"), ErrorCode::kFormatError,
                     {"m.tar", "tvmgen_m_run", "interface-api"});
}

TEST(MlfMetadata, RefusalsNameTheFieldAndTheFile) {
  EXPECT_AOTRT_ERROR(ParseMlfMetadata("[]", "a.tar: metadata.json"), ErrorCode::kFormatError,
                     {"a.tar: metadata.json", "not an object"});
  EXPECT_AOTRT_ERROR(ParseMlfMetadata(std::string(100, '[') + std::string(100, ']'), "m.json"), ErrorCode::kFormatError,
                     {"m.json", "nested over 64"});
  std::string graph = R"({"version": 7, "modules": {"default": {"style": "full-model", "executors": ["graph"],
                        "target": ["c"]}}})";
  EXPECT_AOTRT_ERROR(ParseMlfMetadata(graph, "m.json"), ErrorCode::kNotImplemented, {"m.json", "executors", "graph", "aot"});
  std::string bad_dtype = R"({"version": 7, "modules": {"default": {"style": "full-model", "executors": ["aot"],
      "target": ["c"], "memory": {"functions": {"main": [{"device": 1, "inputs": {"x": {"dtype": "floaty", "size": 4}},
      "outputs": {}, "workspace_size_bytes": 0, "constants_size_bytes": 0}]}}}}})";
  EXPECT_AOTRT_ERROR(ParseMlfMetadata(bad_dtype, "m.json"), ErrorCode::kFormatError, {"m.json", "inputs.x.dtype", "floaty"});
}

}  // namespace

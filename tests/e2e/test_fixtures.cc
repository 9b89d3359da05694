// Real TVM v0.14 exports (../shared/fixtures/tvm): what ABI.md 2.0 says they contain.
#include <gtest/gtest.h>

#include "common/run_case.h"

using namespace aotrt;
using namespace aotrt_test;

namespace {
std::string FixtureLibrary(const std::string& name) {
  if (FixturesDir().empty()) return "";
  std::ifstream in(FixturesDir() + "/" + name + "/case.json");
  if (!in) return "";
  return nlohmann::json::parse(in).at("artifact").get<std::string>();
}
}  // namespace

TEST(Fixtures, UsmpModelReportsItsPools) {
  std::string lib = FixtureLibrary("conv2d_c_usmp");
  if (lib.empty()) GTEST_SKIP() << "../shared/fixtures/tvm not present";
  Model m = Model::Load(lib);
  EXPECT_EQ(m.WorkspaceBytes(), 106812u);
  EXPECT_GT(m.ConstantBytes(), 240u);  // two constants, the second at byte offset 240
  EXPECT_EQ(m.ParamBytes(), 0u);
  ASSERT_EQ(m.Inputs().size(), 1u);
  EXPECT_EQ(m.Inputs()[0].name, "data");
  EXPECT_EQ(m.Inputs()[0].shape, (std::vector<int64_t>{1, 3, 64, 64}));
  EXPECT_EQ(DataTypeToString(m.Inputs()[0].dtype), "uint8");
  EXPECT_EQ(m.Outputs()[0].name, "output0");
}

TEST(Fixtures, ExecutorsShareTheConstantPool) {
  std::string lib = FixtureLibrary("conv2d_c_usmp");
  if (lib.empty()) GTEST_SKIP() << "../shared/fixtures/tvm not present";
  Case c = LoadCase(FixturesDir() + "/conv2d_c_usmp", lib);
  Model m = Model::Load(lib);
  std::vector<Executor> executors;
  for (int i = 0; i < 4; ++i) executors.push_back(m.CreateExecutor());
  for (Executor& ex : executors) {
    SetCaseInputs(c, ex);
    ex.Run();
    ExpectOutputsMatch(c, ex);
  }
}

TEST(Fixtures, LlvmModelValidatesItsArgumentsItself) {
  // The llvm entry checks shapes too; aotrt refuses a wrong tensor before it gets there.
  std::string lib = FixtureLibrary("tiny_add_llvm");
  if (lib.empty()) GTEST_SKIP() << "../shared/fixtures/tvm not present";
  Executor ex = Model::Load(lib).CreateExecutor();
  NDArray wrong = NDArray::Empty({2}, DLDataType{kDLFloat, 32, 1});
  EXPECT_THROW(ex.SetInput("a", wrong.tensor()), Error);
}

// Every generated test model and every real TVM export: load, run, compare bit for bit.
#include <gtest/gtest.h>

#include "common/run_case.h"

using namespace aotrt;
using namespace aotrt_test;

namespace {

// Names only: each test loads the one case it needs (ctest runs every test in its own process).
std::vector<std::string> CaseNames() {
  std::vector<std::string> names = GeneratedCaseNames();
  if (!FixturesDir().empty()) {
    for (const std::string& n : ListDir(FixturesDir())) {
      if (IsDir(FixturesDir() + "/" + n)) names.push_back("fixture_" + n);
    }
  }
  return names;
}

Case FindCase(const std::string& name) {
  const std::string prefix = "fixture_";
  if (name.compare(0, prefix.size(), prefix) != 0) return GeneratedCase(name);
  std::string dir = FixturesDir() + "/" + name.substr(prefix.size());
  std::ifstream in(dir + "/case.json");
  return LoadCase(dir, nlohmann::json::parse(in).at("artifact").get<std::string>());
}

class EveryModel : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST(Cases, GeneratedModelsArePresent) {
  // Guard against a silently empty parameter list.
  EXPECT_GE(GeneratedCaseNames().size(), 14u);
}

TEST_P(EveryModel, RunsBitExact) {
  const Case c = FindCase(GetParam());
  Model model = Model::Load(c.library);
  EXPECT_EQ(model.name(), c.mod_name);
  Executor ex = model.CreateExecutor();
  SetCaseInputs(c, ex);
  if (!c.expect_error.empty()) {
    for (int attempt = 0; attempt < 2; ++attempt) {  // fails the same way again: still usable
      try {
        ex.Run();
        FAIL() << "model was expected to fail";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::kModelError);
        EXPECT_NE(std::string(e.what()).find(c.expect_error), std::string::npos) << e.what();
      }
    }
    return;
  }
  ex.Run();
  ExpectOutputsMatch(c, ex);
  ex.Run();  // a second run gives the same results
  ExpectOutputsMatch(c, ex);
}

TEST_P(EveryModel, ExecutorsAreIndependent) {
  const Case c = FindCase(GetParam());
  if (!c.expect_error.empty()) GTEST_SKIP() << "failing model";
  Model model = Model::Load(c.library);
  Executor a = model.CreateExecutor();
  Executor b = model.CreateExecutor();
  SetCaseInputs(c, a);
  a.Run();
  ExpectOutputsMatch(c, a);
  // b has its own (zeroed) inputs and outputs: running it does not touch a's results.
  b.Run();
  ExpectOutputsMatch(c, a);
  SetCaseInputs(c, b);
  b.Run();
  ExpectOutputsMatch(c, b);
}

TEST_P(EveryModel, LoadsFromMemory) {
  const Case c = FindCase(GetParam());
  if (!c.expect_error.empty()) GTEST_SKIP() << "failing model";
  std::ifstream in(c.library, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Model model = Model::LoadFromMemory(bytes.data(), bytes.size());
  bytes.assign(bytes.size(), '\0');  // the loaded model does not depend on the buffer
  Executor ex = model.CreateExecutor();
  SetCaseInputs(c, ex);
  ex.Run();
  ExpectOutputsMatch(c, ex);
}

// dlopen reuses a loaded library whose path string matches; memory loads go through
// /proc/PID/fd/N, so the second model must not come back as the first (the fd number is reused).
TEST(LoadFromMemory, TwoModelsInOneProcessStayDistinct) {
  const Case add = GeneratedCase("add_c"), multi = GeneratedCase("multi_io_c");
  auto bytes = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  std::string a = bytes(add.library), b = bytes(multi.library);
  Model first = Model::LoadFromMemory(a.data(), a.size());
  Model second = Model::LoadFromMemory(b.data(), b.size());
  EXPECT_EQ(first.Inputs().size(), 2u);
  ASSERT_EQ(second.Inputs().size(), 4u);
  EXPECT_EQ(second.Inputs()[0].name, "x_i8");
  Executor ex = second.CreateExecutor();
  SetCaseInputs(multi, ex);
  ex.Run();
  ExpectOutputsMatch(multi, ex);
}

INSTANTIATE_TEST_SUITE_P(All, EveryModel, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return Sanitize(info.param); });

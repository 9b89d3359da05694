// Models that write past their workspace (issue 10): tail slack makes the write harmless, and the
// checking mode (ExecutorOptions::check_bounds, AOTRT_CHECK_BOUNDS=1) reports it as an error.
#include <gtest/gtest.h>

#include <cstdlib>

#include <aotrt/c_api.h>
#include <tvm/runtime/c_runtime_api.h>

#include "common/run_case.h"
#include "common/scoped_env.h"

using namespace aotrt;
using namespace aotrt_test;

namespace {

std::vector<std::string> OverrunCaseNames() {
  std::vector<std::string> out;
  for (const std::string& n : GeneratedCaseNames()) {
    if (GeneratedCase(n).overrun_bytes) out.push_back(n);
  }
  return out;
}

// What the error must name: the model, the bytes past, the pool (or block) and its size.
void ExpectOverrunMessage(const Case& c, const std::string& msg) {
  std::vector<std::string> parts = {"model '" + c.mod_name + "' wrote " + std::to_string(c.overrun_bytes) + " bytes past",
                                    c.library};
  if (c.overrun_pool.empty()) {
    parts.push_back("a TVMBackendAllocWorkspace block");
  } else {
    parts.push_back("workspace pool '" + c.overrun_pool + "'");
  }
  size_t b = c.overrun_buffer_bytes;
  parts.push_back("(" + (b >= 1000 ? std::to_string(b / 1000) + "," + std::to_string(b % 1000 + 1000).substr(1)
                                   : std::to_string(b)) + " bytes)");
  for (const std::string& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "missing '" << p << "' in: " << msg;
}

ExecutorOptions Checking() {
  ExecutorOptions o;
  o.check_bounds = true;
  return o;
}

}  // namespace

TEST(BoundsCheck, GeneratorMakesOverrunningModelsInBothFlavours) {
  std::vector<std::string> names = OverrunCaseNames();
  int usmp = 0, blocks = 0, c_flavour = 0, llvm = 0;
  for (const std::string& n : names) {
    Case c = GeneratedCase(n);
    (c.overrun_pool.empty() ? blocks : usmp)++;
    (n.size() > 2 && n.compare(n.size() - 2, 2, "_c") == 0 ? c_flavour : llvm)++;
  }
  EXPECT_GE(usmp, 2);
  EXPECT_GE(blocks, 2);
  EXPECT_GE(c_flavour, 2);
  EXPECT_GE(llvm, 2);
}

TEST(BoundsCheck, SlackAbsorbsTheWriteAndOutputsStayExact) {
  for (const std::string& n : OverrunCaseNames()) {
    Case c = GeneratedCase(n);
    Model m = Model::Load(c.library);
    Executor ex = m.CreateExecutor();
    EXPECT_FALSE(ex.ChecksBounds());
    SetCaseInputs(c, ex);
    for (int i = 0; i < 20; ++i) ex.Run();
    ExpectOutputsMatch(c, ex);
    if (!c.overrun_pool.empty()) EXPECT_GE(m.SlackBytes(), c.overrun_bytes) << n;
  }
}

TEST(BoundsCheck, CheckingModeReportsTheOverrunEveryRun) {
  for (const std::string& n : OverrunCaseNames()) {
    Case c = GeneratedCase(n);
    Executor ex = Model::Load(c.library).CreateExecutor(DLDevice{kDLCPU, 0}, Checking());
    EXPECT_TRUE(ex.ChecksBounds());
    SetCaseInputs(c, ex);
    for (int run = 0; run < 3; ++run) {  // the canary is restored: each run is checked afresh
      try {
        ex.Run();
        ADD_FAILURE() << n << ": run " << run << " not reported";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::kModelError) << e.what();
        ExpectOverrunMessage(c, e.what());
      }
      ExpectOutputsMatch(c, ex);  // the run itself completed
    }
  }
}

TEST(BoundsCheck, CheckingModeAcceptsEveryCorrectModel) {
  std::vector<std::pair<Case, std::string>> cases;
  for (const std::string& n : GeneratedCaseNames()) cases.emplace_back(GeneratedCase(n), n);
  for (const std::string& dir : FixturesDir().empty() ? std::vector<std::string>() : ListDir(FixturesDir())) {
    std::ifstream in(FixturesDir() + "/" + dir + "/case.json");
    if (!in) continue;
    nlohmann::json artifact = nlohmann::json::parse(in).at("artifact");
    const std::string so = ".so";  // not the system-lib fixture (model.tar)
    if (artifact.is_string() && artifact.get<std::string>().size() > so.size() &&
        artifact.get<std::string>().compare(artifact.get<std::string>().size() - so.size(), so.size(), so) == 0)
      cases.emplace_back(LoadCase(FixturesDir() + "/" + dir, artifact.get<std::string>()), dir);
  }
  int checked = 0;
  for (auto& [c, n] : cases) {
    if (c.overrun_bytes || !c.expect_error.empty() || c.library.empty()) continue;
    std::ifstream so(c.library);
    if (!so.good()) continue;
    Executor ex = Model::Load(c.library).CreateExecutor(DLDevice{kDLCPU, 0}, Checking());
    SetCaseInputs(c, ex);
    for (int i = 0; i < 3; ++i) ASSERT_NO_THROW(ex.Run()) << n;
    ExpectOutputsMatch(c, ex);
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

// The environment is read when the model is loaded; its executors follow it.
TEST(BoundsCheck, EnvironmentTurnsItOnForThePackedFactory) {
  Case c = GeneratedCase("overrun_usmp_llvm");
  {
    ScopedEnv env("AOTRT_CHECK_BOUNDS", "1");
    Module lib = Module::LoadFromFile(c.library);
    EXPECT_TRUE(Model::FromModule(lib).CreateExecutor().ChecksBounds());
    // TVM's way: factory["default"](dev), then the executor's packed "run" through the C ABI.
    TVMRetValue rv;
    TVMValue dev;
    dev.v_device = DLDevice{kDLCPU, 0};
    int code = kDLDevice;
    lib.GetFunction(c.mod_name).CallPacked(TVMArgs(&dev, &code, 1), &rv);
    void* ex = rv.value().v_handle;
    void* run = nullptr;
    ASSERT_EQ(TVMModGetFunction(ex, "run", 0, &run), 0);
    TVMValue ret;
    int ret_code;
    EXPECT_EQ(TVMFuncCall(run, nullptr, nullptr, 0, &ret, &ret_code), -1);
    EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(ErrorCode::kModelError));
    ExpectOverrunMessage(c, TVMGetLastError());
    TVMFuncFree(run);
  }
  {
    ScopedEnv env("AOTRT_CHECK_BOUNDS", "0");
    Module lib = Module::LoadFromFile(c.library);
    Executor ex = Model::FromModule(lib).CreateExecutor();
    EXPECT_FALSE(ex.ChecksBounds());
    SetCaseInputs(c, ex);
    // Through the C ABI as TVM's hosts call it: the run succeeds, the outputs are exact.
    void* run = nullptr;
    ASSERT_EQ(TVMModGetFunction(static_cast<Object*>(ex.module().node().get()), "run", 0, &run), 0);
    TVMValue ret;
    int ret_code;
    for (int i = 0; i < 3; ++i) EXPECT_EQ(TVMFuncCall(run, nullptr, nullptr, 0, &ret, &ret_code), 0) << TVMGetLastError();
    TVMFuncFree(run);
    ExpectOutputsMatch(c, ex);
  }
  {
    ScopedEnv env("AOTRT_CHECK_BOUNDS", "yes please");
    try {
      Module::LoadFromFile(c.library);
      ADD_FAILURE() << "bad AOTRT_CHECK_BOUNDS accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      EXPECT_NE(std::string(e.what()).find("AOTRT_CHECK_BOUNDS='yes please'"), std::string::npos) << e.what();
    }
  }
}

// Models that write past their workspace (issues 10, 26): the reserve after every pool and block
// makes the write harmless, the checking mode (ExecutorOptions::Heap::check_bounds, AOTRT_CHECK_BOUNDS=1)
// reports it as an error with the exact bytes, and a write past even the reserve is reported
// before the process dies of it.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

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

std::string Grouped(size_t n) {
  std::string d = std::to_string(n), out;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i > 0 && (d.size() - i) % 3 == 0) out += ',';
    out += d[i];
  }
  return out;
}

// What the error must name: the model, the bytes past, the pool (or block) and its size.
void ExpectOverrunMessage(const Case& c, const std::string& msg) {
  std::vector<std::string> parts = {"model '" + c.mod_name + "' wrote " + Grouped(c.overrun_bytes) + " bytes past",
                                    c.library};
  if (c.overrun_pool.empty()) {
    parts.push_back("a TVMBackendAllocWorkspace block");
  } else {
    parts.push_back("workspace pool '" + c.overrun_pool + "'");
  }
  parts.push_back("(" + Grouped(c.overrun_buffer_bytes) + " bytes)");
  for (const std::string& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "missing '" << p << "' in: " << msg;
}

// How a process dies of the guard's fault: SIGSEGV, or under a sanitizer, whose handler aotrt's
// hands the signal on to, the sanitizer's own exit after its report.
bool DiedOfTheFault(int status) {
  return (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) || (WIFEXITED(status) && WEXITSTATUS(status) != 0);
}

ExecutorOptions Checking() {
  ExecutorOptions o;
  o.memory = ExecutorOptions::Heap{/*check_bounds=*/true, /*huge_pages=*/false};
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

// Issue 26's shape: the last buffer of a 5.2 MB pool written, then 1,247,056 bytes (24%) past the
// pool. Bit-exact outputs, and an executor that ran it keeps no more memory than it wrote.
TEST(BoundsCheck, AQuarterOfAMultiMiBPoolPastItsEndIsHarmless) {
  Case c = GeneratedCase("overrun_reserve_usmp_llvm");
  ASSERT_EQ(c.overrun_bytes, 1247056u);
  ASSERT_GT(c.overrun_buffer_bytes, 5000000u);
  Model m = Model::Load(c.library);
  EXPECT_GE(m.SlackBytes(), c.overrun_buffer_bytes);  // a reserve at least the pool's size
  Executor ex = m.CreateExecutor();
  SetCaseInputs(c, ex);
  for (int i = 0; i < 3; ++i) ex.Run();
  ExpectOutputsMatch(c, ex);
}

// Past even the reserve: the guard page faults; asked to (AOTRT_REPORT_GUARD_FAULTS=1, read when
// libaotrt loads: in the death test's new process, or, where death tests only fork (a cross build
// under qemu), in this one, started with the variable set by tests/CMakeLists.txt), aotrt reports it
// on stderr, naming the pool, the model, the bytes and the operator, then the process dies of
// SIGSEGV as it would have.
TEST(BoundsCheckDeathTest, PastTheReserveIsReportedThenFatal) {
  GTEST_FLAG_SET(death_test_style, AOTRT_TEST_DEATH_TEST_STYLE);  // tests/CMakeLists.txt
  if (std::string(AOTRT_TEST_DEATH_TEST_STYLE) == "fast" && std::getenv("AOTRT_REPORT_GUARD_FAULTS") == nullptr) {
    GTEST_SKIP() << "death tests fork only here: run by the ctest test *_AskedAtStart, started with "
                    "AOTRT_REPORT_GUARD_FAULTS=1";
  }
  ScopedEnv report("AOTRT_REPORT_GUARD_FAULTS", "1");
  // The model writes 7,169 bytes past a 1,024-byte pool: past the reserve with 4 KiB pages only.
  if (::sysconf(_SC_PAGESIZE) != 4096) GTEST_SKIP() << "overrun_past_reserve_c is sized for 4 KiB pages";
  const std::string dir = AOTRT_TEST_CRASHING_DIR;
  Case c = LoadCase(dir + "/overrun_past_reserve_c.case", dir + "/overrun_past_reserve_c.so");
  ASSERT_EQ(c.overrun_buffer_bytes, 1024u);
  for (bool check : {false, true}) {
    ExecutorOptions o;
    o.memory = ExecutorOptions::Heap{check, /*huge_pages=*/false};
    EXPECT_EXIT(
        {
          Executor ex = Model::Load(c.library).CreateExecutor(DLDevice{kDLCPU, 0}, o);
          SetCaseInputs(c, ex);
          ex.Run();
        },
        DiedOfTheFault,
        "aotrt: fatal: generated code (wrote|accessed) 7,169 bytes past workspace pool 'global_workspace' \\(1,024 "
        "bytes\\) of model 'default' \\([^)]*overrun_past_reserve_c.so\\), beyond the 7,168-byte reserve after it "
        "\\(address 0x[0-9a-f]+\\); the instruction is in tvmgen_default_fused_nn_relu \\([^)]*overrun_past_reserve_c.so\\)");
  }
}

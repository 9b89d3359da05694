// Heap use of the hot path and of load/free cycles, counted with a malloc hook.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <tvm/runtime/c_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include "common/alloc_counter.h"
#include "common/mlf_cases.h"
#include "common/run_case.h"

using namespace aotrt;
using namespace aotrt_test;

TEST(Allocations, RunAllocatesNothing) {
  if (!AllocHookActive()) GTEST_SKIP() << "malloc hook disabled under sanitizers";
  for (const std::string& name : GeneratedCaseNames()) {
    Case c = GeneratedCase(name);
    if (!c.expect_error.empty()) continue;
    Model m = Model::Load(c.library);
    Executor ex = m.CreateExecutor();
    SetCaseInputs(c, ex);
    ex.Run();  // warm: the workspace pool has its blocks now
    int64_t before = CurrentAllocStats().calls;
    for (int i = 0; i < 100; ++i) ex.Run();
    EXPECT_EQ(CurrentAllocStats().calls - before, 0) << name << ": Run() allocated";
    ExpectOutputsMatch(c, ex);
  }
}

// Real graph exports (../shared/fixtures/graph): the operators' parallel launches included.
TEST(Allocations, GraphRunAllocatesNothing) {
  if (!AllocHookActive()) GTEST_SKIP() << "malloc hook disabled under sanitizers";
  std::string dir = AOTRT_TEST_GRAPH_FIXTURES_NPY_DIR;
  if (dir.empty()) GTEST_SKIP() << "../shared/fixtures/graph not present";
  for (const std::string& name : ListDir(dir)) {
    std::ifstream in(dir + "/" + name + "/case.json");
    if (!in) continue;
    Case c = LoadCase(dir + "/" + name, nlohmann::json::parse(in).at("artifact").get<std::string>());
    Executor ex = Model::Load(c.library).CreateExecutor();
    SetCaseInputs(c, ex);
    ex.Run();  // warm: the workspace pool and the thread pool's workers exist now
    int64_t before = CurrentAllocStats().calls;
    for (int i = 0; i < 20; ++i) ex.Run();
    EXPECT_EQ(CurrentAllocStats().calls - before, 0) << name << ": Run() allocated";
    ExpectOutputsMatch(c, ex);
  }
}

TEST(Allocations, RunCheckingBoundsAllocatesNothing) {
  if (!AllocHookActive()) GTEST_SKIP() << "malloc hook disabled under sanitizers";
  ExecutorOptions checking;
  checking.memory = ExecutorOptions::Heap{/*check_bounds=*/true, /*huge_pages=*/false};
  int checked = 0;
  for (const std::string& name : GeneratedCaseNames()) {
    Case c = GeneratedCase(name);
    if (!c.expect_error.empty() || c.overrun_bytes) continue;
    Executor ex = Model::Load(c.library).CreateExecutor(DLDevice{kDLCPU, 0}, checking);
    SetCaseInputs(c, ex);
    ex.Run();
    int64_t before = CurrentAllocStats().calls;
    for (int i = 0; i < 100; ++i) ex.Run();
    EXPECT_EQ(CurrentAllocStats().calls - before, 0) << name << ": Run() allocated";
    ExpectOutputsMatch(c, ex);
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

TEST(Allocations, RunThroughTVMFuncCallAllocatesNothing) {
  if (!AllocHookActive()) GTEST_SKIP() << "malloc hook disabled under sanitizers";
  Case c = GeneratedCase("multi_io_llvm");
  Executor ex = Model::Load(c.library).CreateExecutor();
  SetCaseInputs(c, ex);
  PackedFunc run = ex.module().GetFunction("run");
  auto* handle = run.object().get();
  TVMValue ret;
  int code;
  ASSERT_EQ(TVMFuncCall(handle, nullptr, nullptr, 0, &ret, &code), 0);
  int64_t before = CurrentAllocStats().calls;
  for (int i = 0; i < 100; ++i) TVMFuncCall(handle, nullptr, nullptr, 0, &ret, &code);
  EXPECT_EQ(CurrentAllocStats().calls - before, 0);
  ExpectOutputsMatch(c, ex);
}

// Caller-owned memory (ExecutorOptions::Arena): creating the executor and running it, the first
// run included, take nothing from the heap, for packed exports and C-interface archives alike.
int64_t AllocationsOfCreateAndRunInArena(const Case& c, const Model& m, int64_t* create_calls) {
  size_t bytes = m.ArenaBytes();  // measured (and the thread pool started) before counting
  void* memory = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  ExecutorOptions o;
  o.memory = ExecutorOptions::Arena{memory, bytes};
  int64_t run_calls = 0;
  {
    int64_t before = CurrentAllocStats().calls;
    Executor ex = m.CreateExecutor(DLDevice{kDLCPU, 0}, o);
    *create_calls = CurrentAllocStats().calls - before;
    SetCaseInputs(c, ex);  // by name: a long name may allocate its sanitized copy
    before = CurrentAllocStats().calls;
    for (int i = 0; i < 20; ++i) ex.Run();
    run_calls = CurrentAllocStats().calls - before;
    for (size_t i = 0; i < c.expected.size(); ++i) {
      DLTensor out = ex.GetOutput(i).tensor();
      EXPECT_EQ(std::memcmp(out.data, c.expected[i].data(), c.expected[i].NumBytes()), 0) << c.name << " output " << i;
    }
  }
  std::free(memory);
  return run_calls;
}

TEST(Allocations, ArenaExecutorCreateAndRunAllocateNothing) {
  if (!AllocHookActive()) GTEST_SKIP() << "malloc hook disabled under sanitizers";
  std::vector<std::pair<Case, Model>> models;
  for (const std::string& name : GeneratedCaseNames()) {
    Case c = GeneratedCase(name);
    if (!c.expect_error.empty() || c.overrun_bytes || c.system_lib) continue;
    models.emplace_back(c, Model::Load(c.library));
  }
  std::string fixture = FixturesDir().empty() ? "" : FixturesDir() + "/mobilenet_llvm_nousmp";
  if (!fixture.empty() && std::ifstream(fixture + "/case.json")) {
    std::ifstream in(fixture + "/case.json");
    Case c = LoadCase(fixture, nlohmann::json::parse(in).at("artifact").get<std::string>());
    models.emplace_back(c, Model::Load(c.library));  // TVMBackendAllocWorkspace scratch served by the arena
  }
  ScratchDir cache;
  int archives = 0;
  for (const char* name : {"mlf_conv_usmp", "mlf_user_pool"}) {
    Case c = MlfCase(name);
    if (c.name.empty()) continue;
    models.emplace_back(c, Model::Load(c.library, CacheIn(cache)));
    ++archives;
  }
  for (auto& [c, m] : models) {
    int64_t create_calls = -1;
    EXPECT_EQ(AllocationsOfCreateAndRunInArena(c, m, &create_calls), 0) << c.name << ": Run() in an arena allocated";
    EXPECT_EQ(create_calls, 0) << c.name << ": CreateExecutor in an arena allocated";
  }
  EXPECT_GE(models.size(), 15u);
  if (!MlfFixturesDir().empty()) EXPECT_EQ(archives, 2);
}

// Graph exports in caller memory: the storage block, the argument arrays and the run-time
// workspace are all the arena's, parallel operators included.
TEST(Allocations, GraphArenaExecutorCreateAndRunAllocateNothing) {
  if (!AllocHookActive()) GTEST_SKIP() << "malloc hook disabled under sanitizers";
  std::string dir = AOTRT_TEST_GRAPH_FIXTURES_NPY_DIR;
  if (dir.empty()) GTEST_SKIP() << "../shared/fixtures/graph not present";
  int checked = 0;
  for (const std::string& name : ListDir(dir)) {
    std::ifstream in(dir + "/" + name + "/case.json");
    if (!in) continue;
    Case c = LoadCase(dir + "/" + name, nlohmann::json::parse(in).at("artifact").get<std::string>());
    Model m = Model::Load(c.library);
    int64_t create_calls = -1;
    EXPECT_EQ(AllocationsOfCreateAndRunInArena(c, m, &create_calls), 0) << name << ": Run() in an arena allocated";
    EXPECT_EQ(create_calls, 0) << name << ": CreateExecutor in an arena allocated";
    ++checked;
  }
  EXPECT_GE(checked, 1);
}

// Load, create, run and free every model variant many times: nothing may stay behind.
TEST(Allocations, LoadFreeCyclesDoNotLeak) {
  std::vector<Case> cases;
  for (const std::string& name : GeneratedCaseNames()) cases.push_back(GeneratedCase(name));
  auto cycle = [&](const Case& c) {
    void* h = nullptr;
    ASSERT_EQ(TVMModLoadFromFile(c.library.c_str(), "so", &h), 0) << TVMGetLastError();
    {
      Model m = Model::FromModule(Module(ObjectPtr<ModuleNode>(static_cast<ModuleNode*>(h))));
      Executor ex = m.CreateExecutor();
      SetCaseInputs(c, ex);
      try {
        ex.Run();
      } catch (const Error&) {
        // the failing models fail; they must not leak either (their workspace is the pool's)
      }
    }
    ASSERT_EQ(TVMModFree(h), 0);
  };
  // Warm-up: lazily built statics, and the workspace pool settling on its blocks.
  for (int i = 0; i < 3; ++i) {
    for (const Case& c : cases) cycle(c);
  }
  // The hook counts live allocations exactly, so anything kept per cycle shows after one cycle;
  // 64 cycles also pass the doubling points (2, 4, ..., 64) of a container that would grow in place
  // without allocating every time. (1000 cycles per model proved nothing more and took 40 s.)
  int iterations = AllocHookActive() ? 64 : 20;
  for (const Case& c : cases) {
    int64_t before = CurrentAllocStats().live;
    for (int i = 0; i < iterations; ++i) cycle(c);
    if (AllocHookActive()) EXPECT_LE(CurrentAllocStats().live - before, 0) << c.name << " leaked";
  }
}

namespace {

// One Load + CreateExecutor + Run of `library` with allocation `n` (from now) failing. Returns
// whether the failure was clean or there was none; *code is kOk on success, *fired whether the
// allocation failure happened at all (if not, the path needs fewer than n + 1 allocations). `failure` gets the
// message, written into capacity reserved by the caller so that the leak count is not disturbed.
bool LoadCreateRunFailingAfter(const std::string& library, int64_t n, ErrorCode* code, bool* fired,
                               std::string* failure) {
  auto note = [&](const char* prefix, const char* what) {
    failure->assign(prefix);
    failure->append(what, std::min(std::strlen(what), failure->capacity() - failure->size()));
  };
  *code = ErrorCode::kOk;
  failure->clear();
  FailAllocationsAfter(n);
  bool clean = true;
  try {
    Model m = Model::Load(library);
    Executor ex = m.CreateExecutor();
    ex.Run();
  } catch (const Error& e) {
    *code = e.code();
    note("aotrt::Error: ", e.what());
  } catch (const std::exception& e) {
    *code = ErrorCode::kInternal;
    note("escaped std::exception: ", e.what());
    clean = false;
  } catch (...) {
    *code = ErrorCode::kInternal;
    note("escaped a non-std exception", "");
    clean = false;
  }
  *fired = FailAllocationsAfter(-1);
  // glibc keeps a failed dlopen's message until dlerror() is called twice: its memory, not ours.
  dlerror();
  dlerror();
  return clean;
}

}  // namespace

// ExecuTorch-style fault injection: fail the N-th allocation for N = 0, 1, 2, ... until the whole
// path succeeds. Every earlier attempt must end in a clean aotrt::Error (never a crash, never a
// bad_alloc or other exception escaping) and leave the live allocation count where it was.
TEST(Allocations, EveryAllocationFailureOnLoadCreateRunIsACleanError) {
  if (!AllocHookActive()) GTEST_SKIP() << "malloc hook disabled under sanitizers";
  for (const char* name : {"mlp_compute", "multi_io_llvm", "multi_io_c", "usmp_both_c", "big_params"}) {
    Case c = GeneratedCase(name);
    {  // warm-up: lazily built statics (registry, logger, thread pools) are not leaks, nor is
       // glibc's per-thread dlerror record, made at the first failed dlopen
      Model m = Model::Load(c.library);
      m.CreateExecutor().Run();
      EXPECT_EQ(dlopen("/nonexistent/aotrt_warm_up.so", RTLD_NOW), nullptr);
      dlerror();
      dlerror();
    }
    std::map<ErrorCode, int> codes;
    std::string failure;
    failure.reserve(4096);
    int64_t n = 0;
    for (;; ++n) {
      ASSERT_LT(n, 100000) << name << ": never succeeded";
      int64_t live = CurrentAllocStats().live;
      ErrorCode code;
      bool fired = false;
      bool clean = LoadCreateRunFailingAfter(c.library, n, &code, &fired, &failure);
      bool in_loader = fired && LastFailureInDynamicLoader();
      if (!in_loader) {
        EXPECT_EQ(CurrentAllocStats().live, live) << name << ": allocation " << n << " failing leaked; " << failure;
      }
      ASSERT_TRUE(clean) << name << ", allocation " << n << ": " << failure;
      if (!fired) {
        EXPECT_EQ(code, ErrorCode::kOk) << failure;
        break;
      }
      ++codes[code];  // kOk: a failure the runtime (or libc) absorbed
      // Inside dlopen, glibc reports its own allocation failures in words of its choosing (even
      // "No such file or directory"): a load error (kIOError) is all aotrt can say there.
      EXPECT_TRUE(code == ErrorCode::kOk || code == ErrorCode::kOutOfMemory || (in_loader && code == ErrorCode::kIOError))
          << name << ", allocation " << n << ": " << failure;
    }
    std::string seen;
    for (const auto& kv : codes) seen += std::string(ErrorCodeName(kv.first)) + " x" + std::to_string(kv.second) + " ";
    std::cout << name << ": succeeded in " << n << " allocations; failures: " << seen << "\n";
    EXPECT_GT(codes[ErrorCode::kOutOfMemory], 0) << name << ": " << seen;
  }
}

// A GPU export (../shared/fixtures/gpu) on `dev`: run() allocates nothing of aotrt's; what the
// driver allocates per enqueued command (pocl: its command and event records; lavapipe: its
// recorded commands and descriptor sets) it frees again, so a run holds no more memory than the one
// before it. The count per run is printed for bench/README.
void ExpectDeviceRunHoldsNothingMore(DLDevice dev, const std::string& name) {
  if (!AllocHookActive()) GTEST_SKIP() << "malloc hook disabled under sanitizers";
  std::string dir = AOTRT_TEST_GPU_FIXTURES_NPY_DIR;
  if (dir.empty()) GTEST_SKIP() << "../shared/fixtures/gpu not present";
  try {
    NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1}, dev);
  } catch (const Error& e) {
    GTEST_SKIP() << e.what();
  }
  std::ifstream in(dir + "/" + name + "/case.json");
  Case c = LoadCase(dir + "/" + name, nlohmann::json::parse(in).at("artifact").get<std::string>());
  Executor ex = Model::Load(c.library).CreateExecutor(dev);
  SetCaseInputs(c, ex);
  for (int i = 0; i < 3; ++i) ex.Run();  // warm: the host code's kernel handles found
  ex.Synchronize();
  AllocStats before = CurrentAllocStats();
  for (int i = 0; i < 20; ++i) ex.Run();
  ex.Synchronize();
  AllocStats after = CurrentAllocStats();
  std::cout << name << ": " << (after.calls - before.calls) / 20.0 << " driver allocations per run\n";
  EXPECT_LE(after.live, before.live) << "runs on " << name << " hold more memory than before";
}

TEST(Allocations, OpenCLRunHoldsNothingMore) { ExpectDeviceRunHoldsNothingMore(DLDevice{kDLOpenCL, 0}, "o_conv"); }
TEST(Allocations, VulkanRunHoldsNothingMore) { ExpectDeviceRunHoldsNothingMore(DLDevice{kDLVulkan, 0}, "k_conv"); }

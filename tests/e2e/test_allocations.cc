// Heap use of the hot path and of load/free cycles, counted with a malloc hook.
#include <gtest/gtest.h>

#include <tvm/runtime/c_runtime_api.h>

#include "common/alloc_counter.h"
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

TEST(Allocations, RunCheckingBoundsAllocatesNothing) {
  if (!AllocHookActive()) GTEST_SKIP() << "malloc hook disabled under sanitizers";
  ExecutorOptions checking;
  checking.check_bounds = true;
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

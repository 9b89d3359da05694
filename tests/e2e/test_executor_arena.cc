// Executors built in caller-owned memory (ExecutorOptions::Arena), for packed exports and
// C-interface archives: sizes, bit-exact runs, refusals, independence.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>

#include "aotrt/c_api.h"
#include "common/expect_error.h"
#include "common/mlf_cases.h"
#include "common/run_case.h"

using namespace aotrt;
using namespace aotrt_test;

namespace {

// 64-byte aligned memory of `bytes`, filled with `fill` (the caller's memory is not zero).
struct Arena {
  explicit Arena(size_t bytes, uint8_t fill = 0xA5)
      : data(static_cast<uint8_t*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64))), bytes(bytes) {
    std::memset(data, fill, (bytes + 63) / 64 * 64);
  }
  ~Arena() { std::free(data); }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ExecutorOptions Options() const {
    ExecutorOptions o;
    o.memory = ExecutorOptions::Arena{data, bytes};
    return o;
  }
  bool Holds(const void* p) const { return p >= data && p < data + bytes; }
  uint8_t* data;
  size_t bytes;
};

// 1234567 -> "1,234,567", as messages print sizes.
std::string Grouped(size_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

Case FixtureCase(const std::string& name) {
  if (FixturesDir().empty()) return Case();
  std::ifstream in(FixturesDir() + "/" + name + "/case.json");
  if (!in) return Case();
  return LoadCase(FixturesDir() + "/" + name, nlohmann::json::parse(in).at("artifact").get<std::string>());
}

void ExpectRunsInArena(const Case& c, const Model& m) {
  Arena arena(m.ArenaBytes());
  Executor ex = m.CreateExecutor(DLDevice{kDLCPU, 0}, arena.Options());
  for (size_t i = 0; i < ex.NumOutputs(); ++i) EXPECT_TRUE(arena.Holds(ex.GetOutput(i).data())) << c.name;
  for (int run = 0; run < 2; ++run) {  // the second run starts from a used region
    SetCaseInputs(c, ex);
    ex.Run();
    ExpectOutputBytesMatch(c, ex);
  }
}

TEST(ExecutorArena, EveryGeneratedModelRunsBitExactInItsArena) {
  int ran = 0;
  for (const std::string& name : GeneratedCaseNames()) {
    Case c = GeneratedCase(name);
    if (!c.expect_error.empty() || c.overrun_bytes || c.system_lib) continue;
    SCOPED_TRACE(name);
    ExpectRunsInArena(c, Model::Load(c.library));
    ++ran;
  }
  EXPECT_GE(ran, 15);
}

TEST(ExecutorArena, RealExportsRunBitExact) {
  for (const char* name : {"mobilenet_llvm_nousmp", "mobilenet_c_usmp", "conv2d_llvm_nousmp", "tiny_add_c"}) {
    Case c = FixtureCase(name);
    if (c.name.empty()) GTEST_SKIP() << "../shared/fixtures/tvm not present";
    SCOPED_TRACE(name);
    ExpectRunsInArena(c, Model::Load(c.library));
  }
}

TEST(ExecutorArena, WithoutMemoryPlanningTheArenaHoldsTheRunTimeWorkspace) {
  Case c = FixtureCase("mobilenet_llvm_nousmp");
  if (c.name.empty()) GTEST_SKIP() << "../shared/fixtures/tvm not present";
  Model m = Model::Load(c.library);
  size_t io = 0;
  for (const TensorInfo& t : m.Inputs()) io += t.bytes;
  for (const TensorInfo& t : m.Outputs()) io += t.bytes;
  size_t need = m.ArenaBytes();
  // MobileNet's run takes megabytes of TVMBackendAllocWorkspace scratch beyond its I/O.
  EXPECT_GT(need, io + (size_t{1} << 20)) << need;
  EXPECT_EQ(m.ArenaBytes(), need);  // measured once, then the same
}

TEST(ExecutorArena, CInterfaceArchivesRunBitExactWithTheirPoolsInTheArena) {
  for (const char* name : {"mlf_conv_usmp", "mlf_user_pool"}) {
    Case c = MlfCase(name);
    AOTRT_SKIP_WITHOUT_MLF(c);
    SCOPED_TRACE(name);
    ScratchDir d;
    Model m = Model::Load(c.library, CacheIn(d));
    // The archive's pools (the user-named app_pool too) come from the arena.
    EXPECT_GE(m.ArenaBytes(), m.WorkspaceBytes());
    ExpectRunsInArena(c, m);
  }
}

TEST(ExecutorArena, TooSmallArenaIsRefusedNamingTheSizeNeeded) {
  Case c = FixtureCase("mobilenet_llvm_nousmp");
  if (c.name.empty()) c = GeneratedCase("conv_net_llvm");
  Model m = Model::Load(c.library);
  size_t need = m.ArenaBytes();
  std::string needed = Grouped(need);
  for (size_t bytes : {size_t{0} + 64, need / 2, need - 64}) {
    Arena small(bytes);
    EXPECT_AOTRT_ERROR(m.CreateExecutor(DLDevice{kDLCPU, 0}, small.Options()), ErrorCode::kInvalidArgument,
                       {"the arena (ExecutorOptions::Arena) of", "is too small", "it needs " + needed + " bytes"});
  }
  Arena exact(need);
  Executor ex = m.CreateExecutor(DLDevice{kDLCPU, 0}, exact.Options());
  SetCaseInputs(c, ex);
  ex.Run();
  ExpectOutputBytesMatch(c, ex);
}

TEST(ExecutorArena, NullOrUnalignedArenaIsRefused) {
  Model m = Model::Load(GeneratedCase("add_c").library);
  ExecutorOptions o;
  o.memory = ExecutorOptions::Arena{nullptr, 4096};
  EXPECT_AOTRT_ERROR(m.CreateExecutor(DLDevice{kDLCPU, 0}, o), ErrorCode::kInvalidArgument,
                     {"the arena (ExecutorOptions::Arena) is null with 4,096 bytes"});
  Arena a(m.ArenaBytes() + 64);
  o.memory = ExecutorOptions::Arena{a.data + 8, a.bytes - 64};
  EXPECT_AOTRT_ERROR(m.CreateExecutor(DLDevice{kDLCPU, 0}, o), ErrorCode::kInvalidArgument, {"is not 64-byte aligned"});
}

TEST(ExecutorArena, AFailingModelLeavesTheExecutorUsable) {
  Case c = GeneratedCase("failing_c");
  Model m = Model::Load(c.library);
  // Its size cannot be measured: the measuring run fails, and says so.
  EXPECT_AOTRT_ERROR(m.ArenaBytes(), ErrorCode::kModelError, {"run on zero inputs", c.expect_error});
  EXPECT_AOTRT_ERROR(m.ArenaBytes(), ErrorCode::kModelError, {"run on zero inputs", c.expect_error});
  // An arena given anyway is used; each run fails with the model's message, and the next works as well.
  Arena a(size_t{1} << 16);
  Executor ex = m.CreateExecutor(DLDevice{kDLCPU, 0}, a.Options());
  for (int i = 0; i < 3; ++i) EXPECT_AOTRT_ERROR(ex.Run(), ErrorCode::kModelError, {c.expect_error});
}

TEST(ExecutorArena, TheLoadsHeapSwitchesLeaveAnExecutorInAnArenaAlone) {
  Case c = GeneratedCase("conv_net_llvm");
  LoadOptions lo;
  lo.executor.check_bounds = true;
  lo.executor.huge_pages = true;
  lo.executor.num_threads = 1;
  Model m = Model::Load(c.library, lo);
  EXPECT_TRUE(m.CreateExecutor().ChecksBounds());  // on the heap they apply
  Arena a(m.ArenaBytes());
  Executor ex = m.CreateExecutor(DLDevice{kDLCPU, 0}, a.Options());
  EXPECT_FALSE(ex.ChecksBounds());  // in an arena there is no reserve to check
  SetCaseInputs(c, ex);
  ex.Run();
  for (size_t o = 0; o < c.expected.size(); ++o) EXPECT_TRUE(BytesEqual(ex.GetOutput(o), c.expected[o])) << o;
  EXPECT_TRUE(a.Holds(ex.GetOutput(0).data()));
}

TEST(ExecutorArena, ExecutorsInArenasAreIndependentAcrossThreads) {
  Case c = GeneratedCase("conv_net_llvm");
  Model m = Model::Load(c.library);
  size_t need = m.ArenaBytes();
  Arena a(need), b(need);
  Executor heap = m.CreateExecutor();
  std::vector<std::thread> threads;
  bool ok[2] = {false, false};
  Arena* arenas[2] = {&a, &b};
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      Executor ex = m.CreateExecutor(DLDevice{kDLCPU, 0}, arenas[t]->Options());
      SetCaseInputs(c, ex);
      bool same = true;
      for (int i = 0; i < 20; ++i) {
        ex.Run();
        for (size_t o = 0; o < c.expected.size(); ++o) same = same && BytesEqual(ex.GetOutput(o), c.expected[o]);
      }
      ok[t] = same;
    });
  }
  SetCaseInputs(c, heap);
  heap.Run();
  for (std::thread& t : threads) t.join();
  EXPECT_TRUE(ok[0]);
  EXPECT_TRUE(ok[1]);
  ExpectOutputsMatch(c, heap);
}

TEST(ExecutorArena, ParamInputsStaySharedUntilSet) {
  Case c = GeneratedCase("big_params");
  Model m = Model::Load(c.library);
  ASSERT_GT(m.ParamBytes(), 0u);
  // The arena holds no copy of the factory's params.
  EXPECT_LT(m.ArenaBytes(), m.ParamBytes());
  Arena a(m.ArenaBytes());
  Executor ex = m.CreateExecutor(DLDevice{kDLCPU, 0}, a.Options());
  SetCaseInputs(c, ex);
  ex.Run();
  ExpectOutputsMatch(c, ex);
}

}  // namespace

namespace {

void CountDestroyed(void* data) { ++*static_cast<int*>(data); }

TEST(ExecutorArena, OnDestroyedRunsOnceWhenTheLastHandleGoes) {
  Case c = GeneratedCase("conv_net_llvm");
  Model m = Model::Load(c.library);
  Arena a(m.ArenaBytes());
  for (bool in_arena : {true, false}) {
    int destroyed = 0;
    ExecutorOptions o = in_arena ? a.Options() : ExecutorOptions();
    o.on_destroyed = CountDestroyed;
    o.on_destroyed_data = &destroyed;
    PackedFunc run;
    {
      Executor ex = m.CreateExecutor(DLDevice{kDLCPU, 0}, o);
      run = ex.module().GetFunction("run");
    }
    EXPECT_EQ(destroyed, 0) << "a function handle still holds the executor";
    run();
    run = PackedFunc();
    EXPECT_EQ(destroyed, 1) << (in_arena ? "arena" : "heap");
  }
  // A refused arena is never reported.
  int destroyed = 0;
  Arena small(m.ArenaBytes() - 64);
  ExecutorOptions o = small.Options();
  o.on_destroyed = CountDestroyed;
  o.on_destroyed_data = &destroyed;
  EXPECT_THROW(m.CreateExecutor(DLDevice{kDLCPU, 0}, o), Error);
  EXPECT_EQ(destroyed, 0);
}

TEST(ExecutorArena, TheCApiCreatesExecutorsWithPoolsAndArenas) {
  Case c = GeneratedCase("conv_net_llvm");
  TVMModuleHandle lib = nullptr;
  ASSERT_EQ(TVMModLoadFromFile(c.library.c_str(), "", &lib), 0) << TVMGetLastError();
  AOTRTExecutorOptions o;
  AOTRTExecutorOptionsInit(&o);
  size_t need = 0;
  ASSERT_EQ(AOTRTExecutorArenaBytes(lib, &o, &need), 0) << TVMGetLastError();
  EXPECT_EQ(need, Model::FromModule(Module(ObjectPtr<ModuleNode>(static_cast<ModuleNode*>(lib)))).ArenaBytes());
  Arena a(need);
  o.arena = a.data;
  o.arena_bytes = need;
  TVMModuleHandle ex = nullptr;
  ASSERT_EQ(AOTRTExecutorCreate(lib, kDLCPU, 0, &o, &ex), 0) << TVMGetLastError();
  TVMFunctionHandle run = nullptr;
  ASSERT_EQ(TVMModGetFunction(ex, "run", 0, &run), 0);
  TVMValue rv;
  int rc = 0;
  EXPECT_EQ(TVMFuncCall(run, nullptr, nullptr, 0, &rv, &rc), 0) << TVMGetLastError();
  TVMFuncFree(run);
  TVMModFree(ex);
  // Refusals, each naming what is wrong.
  o.arena_bytes = need - 64;
  EXPECT_EQ(AOTRTExecutorCreate(lib, kDLCPU, 0, &o, &ex), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("too small"), std::string::npos) << TVMGetLastError();
  EXPECT_EQ(ex, nullptr);
  // The heap's switches with an arena: what C++ cannot express (ExecutorOptions::memory), C refuses.
  o.arena_bytes = need;
  o.huge_pages = 1;
  EXPECT_EQ(AOTRTExecutorCreate(lib, kDLCPU, 0, &o, &ex), -1);
  EXPECT_NE(std::string(TVMGetLastError())
                .find("AOTRTExecutorOptions.huge_pages is 1 with an arena: it applies to an executor in aotrt's own "
                      "memory only"),
            std::string::npos)
      << TVMGetLastError();
  o.huge_pages = 0;
  o.check_bounds = 1;
  EXPECT_EQ(AOTRTExecutorCreate(lib, kDLCPU, 0, &o, &ex), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("AOTRTExecutorOptions.check_bounds is 1 with an arena"),
            std::string::npos);
  EXPECT_EQ(ex, nullptr);
  o.struct_size = 8;
  EXPECT_EQ(AOTRTExecutorCreate(lib, kDLCPU, 0, &o, &ex), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("AOTRTExecutorOptions.struct_size is 8"), std::string::npos);
  AOTRTExecutorOptionsInit(&o);
  o.num_workspace_pools = 1;
  EXPECT_EQ(AOTRTExecutorCreate(lib, kDLCPU, 0, &o, &ex), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("workspace_pools is null"), std::string::npos);
  o.num_workspace_pools = 0;
  o.num_threads = 1025;
  EXPECT_EQ(AOTRTExecutorCreate(lib, kDLCPU, 0, &o, &ex), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("num_threads is 1025"), std::string::npos) << TVMGetLastError();
  o.num_threads = 2;
  ASSERT_EQ(AOTRTExecutorCreate(lib, kDLCPU, 0, &o, &ex), 0) << TVMGetLastError();
  TVMModFree(ex);
  o.num_threads = 0;
  EXPECT_EQ(AOTRTExecutorCreate(lib, kDLCUDA, 0, &o, &ex), -1);
  EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(ErrorCode::kInvalidArgument));
  EXPECT_EQ(AOTRTExecutorCreate(nullptr, kDLCPU, 0, &o, &ex), -1);
  TVMModFree(lib);
}

}  // namespace

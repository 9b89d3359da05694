// The one executor and the plan it runs (executor/planned_model.h, executor/planned_executor.h),
// on a model built by hand: what goes in the block and what stays out, aliases rebound together,
// the caller's pools, a write past a pool reported by name, and the arena size read from the plan.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include <tvm/runtime/c_backend_api.h>

#include "common/expect_error.h"
#include "executor/executor_in_arena.h"
#include "executor/planned_executor.h"

using namespace aotrt;

namespace {

constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDataType kU8{kDLUInt, 8, 1};
constexpr size_t kPoolBytes = 1000;
float g_constants[4] = {10, 20, 30, 40};
size_t g_write_past_pool = 0;  // bytes the call writes past its pool

// args: x, c (the shared constants) | y, pool. y = x + c; the pool holds x's first byte, and
// whatever g_write_past_pool asks past it.
int32_t AddConstants(TVMValue* args, int* codes, int32_t n, TVMValue*, int*, void*) {
  if (n != 4) return -1;
  auto data = [&](int i) { return static_cast<DLTensor*>(args[i].v_handle)->data; };
  for (int k = 0; k < 4; ++k) static_cast<float*>(data(2))[k] = static_cast<float*>(data(0))[k] + static_cast<float*>(data(1))[k];
  auto* pool = static_cast<uint8_t*>(data(3));
  pool[0] = 1;
  std::memset(pool + kPoolBytes, 7, g_write_past_pool);
  return 0;
}

// x (own storage), its reshape x2 (an alias in the same storage), c (shared), y, pool.
class HandModel final : public PlannedModel {
 public:
  HandModel() : PlannedModel("hand", "test.so", "model 'hand'") {
    uint32_t x = AddEntry({4}, kF32, 0, "x");
    x2_ = AddEntry({2, 2}, kF32, 0, "x2");
    Alias(x2_, x);
    uint32_t c = AddEntry({4}, kF32, 1, "c");
    uint32_t y = AddEntry({4}, kF32, 2, "y");
    uint32_t pool = AddEntry({kPoolBytes}, kU8, 3, "pool");
    AddInput(x, "x");
    AddOutput(y, "y");
    ShareEntry(c, g_constants);
    AddPool(pool, "ws_0_var", "ws");
    PlannedCall call;
    call.fn = AddConstants;
    AddCall(std::move(call), {x, c, y, pool}, {y, pool});
    Finish({});
  }
  void BuildInfo(ModelInfo*) const override {}
  void CheckDevice(DLDevice) const override {}
  const char* ExecutorTypeKey(bool) const override { return "AotExecutor"; }
  uint32_t x2_;
};

DLTensor Tensor(float* data) {
  static int64_t shape[1] = {4};
  DLTensor t{};
  t.data = data;
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = 1;
  t.dtype = kF32;
  t.shape = shape;
  return t;
}

TEST(PlannedModel, InputsAndOutputsShareOneBlockWhilePoolsAndSharedEntriesStayOut) {
  HandModel m;
  const MemoryPlan& plan = m.plan();
  ASSERT_EQ(plan.storage_offset.size(), 4u);
  EXPECT_EQ(plan.storage_offset[0], 0u);   // x and its alias
  EXPECT_EQ(plan.storage_offset[1], MemoryPlan::kNotInBlock);  // c: shared
  EXPECT_EQ(plan.storage_offset[2], 64u);  // y, 64-byte aligned after x
  EXPECT_EQ(plan.storage_offset[3], MemoryPlan::kNotInBlock);  // the pool: placed by the executor
  EXPECT_EQ(plan.block_bytes, 128u);
  EXPECT_EQ(m.alias_root(m.x2_), 0u);
  EXPECT_FALSE(m.read_only(2));
  EXPECT_TRUE(m.read_only(0));
  EXPECT_EQ(m.InputIndex("x"), 0u);
  EXPECT_AOTRT_ERROR(m.InputIndex("z"), ErrorCode::kNotFound, {"'z' is not an input of model 'hand' (test.so)"});
}

TEST(PlannedExecutor, RunsTheCallsOverTheBlockAndRebindsAnAliasGroupAtOnce) {
  auto m = std::make_shared<HandModel>();
  PlannedExecutor ex(m, DLDevice{kDLCPU, 0}, ExecutorOptions());
  float x[4] = {1, 2, 3, 4}, y[4] = {};
  ex.SetInput(0, Tensor(x));
  ex.Run();
  DLTensor out = Tensor(y);
  ex.CopyOutputTo(0, &out);
  EXPECT_EQ(y[3], 44.0f);
  alignas(64) float caller[4] = {5, 5, 5, 5};
  ex.SetZeroCopy(false, 0, Tensor(caller), NDArray());
  EXPECT_EQ(ex.EntryView(m->x2_).data(), caller);  // the reshape follows its input
  ex.Run();
  ex.CopyOutputTo(0, &out);
  EXPECT_EQ(y[0], 15.0f);
}

TEST(PlannedExecutor, OnTheHeapThePoolFollowsTheBlockInOneMappingWithItsReserve) {
  auto m = std::make_shared<HandModel>();
  PlannedExecutor ex(m, DLDevice{kDLCPU, 0}, ExecutorOptions());
  auto* block = static_cast<uint8_t*>(ex.GetInput(0).data());  // x is at the block's start
  auto* pool = static_cast<uint8_t*>(ex.EntryView(4).data());
  // The block's 128 bytes and their slack, then the pool on the next page, then its reserve.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % PageSize(), 0u);
  EXPECT_EQ(pool, block + PageSize());
  g_write_past_pool = PoolSlackBytes(kPoolBytes);  // all of it harmless
  ex.Run();
  g_write_past_pool = 0;
  // Without pools of its own (the caller gives it), the block alone.
  alignas(64) static uint8_t given[kPoolBytes] = {};
  ExecutorOptions o;
  o.workspace_pools = {{"ws", given, sizeof given}};
  PlannedExecutor with_given(m, DLDevice{kDLCPU, 0}, o);
  EXPECT_EQ(with_given.EntryView(4).data(), given);
}

TEST(PlannedExecutor, TheCallersPoolIsUsedAndAnUnknownPoolIsRefused) {
  auto m = std::make_shared<HandModel>();
  alignas(64) static uint8_t pool[kPoolBytes + 64] = {};
  ExecutorOptions o;
  o.workspace_pools = {{"ws", pool, sizeof pool}};
  PlannedExecutor ex(m, DLDevice{kDLCPU, 0}, o);
  ex.Run();
  EXPECT_EQ(pool[0], 1);
  o.workspace_pools = {{"other", pool, sizeof pool}};
  EXPECT_AOTRT_ERROR(PlannedExecutor(m, DLDevice{kDLCPU, 0}, o), ErrorCode::kNotFound,
                     {"model 'hand' has no workspace pool 'other'; its pools: 'ws'"});
  o.workspace_pools = {{"ws", pool, kPoolBytes - 1}};
  EXPECT_AOTRT_ERROR(PlannedExecutor(m, DLDevice{kDLCPU, 0}, o), ErrorCode::kInvalidArgument,
                     {"workspace pool 'ws' of model 'hand' needs 1000 bytes"});
}

TEST(PlannedExecutor, AWritePastAPoolLandsInItsReserveAndCheckingNamesIt) {
  auto m = std::make_shared<HandModel>();
  ExecutorOptions checked;
  checked.memory = ExecutorOptions::Heap{/*check_bounds=*/true, /*huge_pages=*/false};
  PlannedExecutor ex(m, DLDevice{kDLCPU, 0}, checked);
  g_write_past_pool = 24;
  EXPECT_AOTRT_ERROR(ex.Run(), ErrorCode::kModelError,
                     {"model 'hand' wrote 24 bytes past workspace pool 'ws' (1,000 bytes) in test.so"});
  g_write_past_pool = 0;
  ex.Run();  // restored: the next run is checked afresh
}

TEST(PlannedExecutor, TheArenaSizeIsWhatAnExecutorTakesAndLessIsRefused) {
  std::shared_ptr<const PlannedModel> m = std::make_shared<HandModel>();
  size_t bytes = ArenaBytesNeeded(m, ExecutorOptions());
  void* region = std::aligned_alloc(64, bytes);
  ExecutorOptions options;
  options.memory = ExecutorOptions::Arena{region, bytes - 64};  // the size is rounded up to 64
  EXPECT_AOTRT_ERROR(CreateExecutorInArena(m, DLDevice{kDLCPU, 0}, options), ErrorCode::kInvalidArgument,
                     {"is too small for an executor of model 'hand': it needs", "Model::ArenaBytes"});
  options.memory = ExecutorOptions::Arena{region, bytes};
  {
    ObjectPtr<ExecutorModuleNode> node = CreateExecutorInArena(m, DLDevice{kDLCPU, 0}, options);
    PlannedExecutor& ex = node->executor();
    ex.Run();
    auto* y = static_cast<uint8_t*>(ex.GetOutput(0).data());
    EXPECT_TRUE(y >= static_cast<uint8_t*>(region) && y < static_cast<uint8_t*>(region) + bytes);  // a view of the arena
  }
  std::free(region);
}

}  // namespace

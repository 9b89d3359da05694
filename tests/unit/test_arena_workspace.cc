// The run-time workspace of an executor in caller-owned memory (backend/arena_workspace.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include <tvm/runtime/c_backend_api.h>
#include <tvm/runtime/c_runtime_api.h>

#include "backend/arena_workspace.h"
#include "backend/workspace.h"

using namespace aotrt;

namespace {

struct Region {
  explicit Region(size_t bytes) : data(static_cast<uint8_t*>(std::aligned_alloc(64, bytes))), bytes(bytes) {}
  ~Region() { std::free(data); }
  uint8_t* data;
  size_t bytes;
};

TEST(ArenaWorkspace, ServesLastInFirstOutAndGivesRoomBack) {
  Region r(4096);
  ArenaWorkspace ws(r.data, r.bytes);
  void* a = ws.Alloc(100);
  void* b = ws.Alloc(1);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 64, 0u);
  EXPECT_EQ(static_cast<uint8_t*>(b) - static_cast<uint8_t*>(a), static_cast<ptrdiff_t>(ArenaBlockBytes(100)));
  EXPECT_EQ(ws.peak(), ArenaBlockBytes(100) + ArenaBlockBytes(1));
  EXPECT_TRUE(ws.Free(b));
  EXPECT_TRUE(ws.Free(a));
  EXPECT_EQ(ws.Alloc(100), a);  // all room came back
  EXPECT_EQ(ws.peak(), ArenaBlockBytes(100) + ArenaBlockBytes(1));
}

TEST(ArenaWorkspace, OutOfOrderFreeReturnsRoomWithTheBlockAbove) {
  Region r(4096);
  ArenaWorkspace ws(r.data, r.bytes);
  void* a = ws.Alloc(64);
  void* b = ws.Alloc(64);
  void* c = ws.Alloc(64);
  EXPECT_TRUE(ws.Free(b));          // below the top: marked only
  EXPECT_EQ(ws.Alloc(64), static_cast<uint8_t*>(c) + ArenaBlockBytes(64));  // so b's room is still held
  ws.Reset();
  a = ws.Alloc(64);
  b = ws.Alloc(64);
  c = ws.Alloc(64);
  EXPECT_TRUE(ws.Free(b));
  EXPECT_TRUE(ws.Free(c));          // c and the freed b below it both return
  EXPECT_EQ(ws.Alloc(64), b);
}

TEST(ArenaWorkspace, RefusesForeignAndStalePointers) {
  Region r(4096);
  ArenaWorkspace ws(r.data, r.bytes);
  void* a = ws.Alloc(64);
  int on_stack = 0;
  EXPECT_FALSE(ws.Free(&on_stack));
  EXPECT_FALSE(ws.Free(static_cast<uint8_t*>(a) + 8));  // inside a block, not its start
  EXPECT_TRUE(ws.Free(a));
  EXPECT_FALSE(ws.Free(a));  // already given back
}

TEST(ArenaWorkspace, ExhaustionIsAnErrorNamingTheSizes) {
  Region r(1024);
  ArenaWorkspace ws(r.data, r.bytes);
  EXPECT_EQ(ws.Alloc(2000), nullptr);
  EXPECT_TRUE(ws.exhausted());
  std::string msg = TVMGetLastError();
  EXPECT_NE(msg.find("arena has 1,024 of its 1,024 workspace bytes free"), std::string::npos) << msg;
  EXPECT_NE(msg.find("request of 2,000 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Model::ArenaBytes"), std::string::npos) << msg;
  EXPECT_EQ(ws.Alloc(UINT64_MAX), nullptr);  // no overflow in the size arithmetic
}

TEST(ArenaWorkspace, ScopeRoutesTheBackendAllocatorOfThisThreadOnly) {
  Region r(1 << 16);
  ArenaWorkspace ws(r.data, r.bytes);
  void* outside = TVMBackendAllocWorkspace(kDLCPU, 0, 256, 2, 8);
  ASSERT_NE(outside, nullptr);
  {
    ArenaWorkspaceScope scope(&ws);
    void* p = TVMBackendAllocWorkspace(kDLCPU, 0, 256, 2, 8);
    EXPECT_GE(static_cast<uint8_t*>(p), r.data);
    EXPECT_LT(static_cast<uint8_t*>(p), r.data + r.bytes);
    EXPECT_EQ(ws.peak(), ArenaBlockBytes(256));
    size_t pool_before = WorkspacePoolBytes();
    EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, p), 0);
    // A block of the thread's pool allocated before the scope is still freed into that pool.
    EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, outside), 0);
    EXPECT_EQ(WorkspacePoolBytes(), pool_before);
  }
  EXPECT_EQ(CurrentArenaWorkspace(), nullptr);
}

}  // namespace

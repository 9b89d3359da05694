#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include <tvm/runtime/c_backend_api.h>

#include "aotrt/c_api.h"
#include "aotrt/error.h"
#include "aotrt/profiling.h"
#include "backend/workspace.h"
#include "memory/guard_call.h"

TEST(Workspace, AlignedAndReusedBestFit) {
  void* a = TVMBackendAllocWorkspace(kDLCPU, 0, 1 << 20, kDLFloat, 32);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, a), 0);
  size_t held = aotrt::WorkspacePoolBytes();
  void* b = TVMBackendAllocWorkspace(kDLCPU, 0, 1 << 20, kDLFloat, 32);
  EXPECT_EQ(a, b);  // reused, no new memory
  EXPECT_EQ(aotrt::WorkspacePoolBytes(), held);
  void* small = TVMBackendAllocWorkspace(kDLCPU, 0, 0, 0, 0);  // 0 bytes still gives a block
  ASSERT_NE(small, nullptr);
  EXPECT_NE(small, b);
  EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, small), 0);
  EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, b), 0);
}

TEST(Workspace, NestedLifoAllocations) {
  std::vector<void*> ptrs;
  for (int i = 1; i <= 8; ++i) ptrs.push_back(TVMBackendAllocWorkspace(kDLCPU, 0, 1000 * i, 0, 0));
  for (size_t i = 0; i < ptrs.size(); ++i) {
    for (size_t j = i + 1; j < ptrs.size(); ++j) EXPECT_NE(ptrs[i], ptrs[j]);
  }
  for (auto it = ptrs.rbegin(); it != ptrs.rend(); ++it) EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, *it), 0);
}

TEST(Workspace, Errors) {
  int x;
  EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, &x), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("not allocated by this thread"), std::string::npos);
  EXPECT_EQ(TVMBackendAllocWorkspace(kDLCPU, 0, uint64_t{1} << 62, 0, 0), nullptr);
  EXPECT_NE(std::string(TVMGetLastError()).find("too large"), std::string::npos);
  EXPECT_EQ(TVMBackendAllocWorkspace(kDLROCM, 0, 16, 0, 0), nullptr);  // a device type without a driver
  EXPECT_NE(std::string(TVMGetLastError()).find("no driver for rocm"), std::string::npos);
}

// A request no machine can serve: NULL with kOutOfMemory and the size, never an exception.
TEST(Workspace, HugeRequestIsOutOfMemoryNamingTheSize) {
  for (uint64_t n : {(uint64_t{1} << 46) + 1, uint64_t{1} << 62, ~uint64_t{0}}) {
    void* p = nullptr;
    EXPECT_NO_THROW(p = TVMBackendAllocWorkspace(kDLCPU, 0, n, 0, 0));
    EXPECT_EQ(p, nullptr);
    EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(aotrt::ErrorCode::kOutOfMemory)) << n;
    EXPECT_NE(std::string(TVMGetLastError()).find(std::to_string(n) + " bytes"), std::string::npos)
        << TVMGetLastError();
  }
}

// The helper every backend entry point goes through: each exception kind to its code.
TEST(Workspace, GuardBackendCallTurnsExceptionsIntoErrors) {
  using aotrt::ErrorCode;
  using aotrt::GuardBackendCall;
  EXPECT_EQ(GuardBackendCall<void*>(nullptr, "f", []() -> void* { throw std::bad_alloc(); }), nullptr);
  EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(ErrorCode::kOutOfMemory));
  EXPECT_STREQ(TVMGetLastError(), "f: out of memory");
  EXPECT_EQ(GuardBackendCall(-1, "g", []() -> int { throw aotrt::Error(ErrorCode::kNotFound, "no x"); }), -1);
  EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(ErrorCode::kNotFound));
  EXPECT_STREQ(TVMGetLastError(), "no x");
  EXPECT_EQ(GuardBackendCall(-1, "h", []() -> int { throw 42; }), -1);
  EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(ErrorCode::kInternal));
  EXPECT_STREQ(TVMGetLastError(), "h: unknown C++ exception");
  EXPECT_EQ(GuardBackendCall(-1, "i", [] { return 7; }), 7);
}

TEST(Workspace, PoolsArePerThread) {
  void* mine = TVMBackendAllocWorkspace(kDLCPU, 0, 4096, 0, 0);
  int rc = 0;
  std::thread t([&] { rc = TVMBackendFreeWorkspace(kDLCPU, 0, mine); });
  t.join();
  EXPECT_EQ(rc, -1);  // another thread's pool does not know it
  EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, mine), 0);
}

TEST(Workspace, BlocksHaveTailSlack) {
  for (uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{4096}, uint64_t{4096 - 63}, uint64_t{1} << 20}) {
    auto* p = static_cast<unsigned char*>(TVMBackendAllocWorkspace(kDLCPU, 0, n, 0, 0));
    ASSERT_NE(p, nullptr);
    std::memset(p, 1, n + 64);  // a cache line past the request is the runtime's own memory
    EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, p), 0);
  }
}

TEST(Workspace, BoundsCheckRecordsTheFirstOverrunOnFree) {
  {
    aotrt::WorkspaceBoundsCheck check;
    auto* a = static_cast<unsigned char*>(TVMBackendAllocWorkspace(kDLCPU, 0, 1000, 0, 0));
    auto* b = static_cast<unsigned char*>(TVMBackendAllocWorkspace(kDLCPU, 0, 4096, 0, 0));
    std::memset(a, 0, 1000);
    std::memset(b, 0, 4096 + 8);
    EXPECT_EQ(check.overrun().bytes_past, 0u);  // seen when freed
    EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, b), 0);
    a[1000 + 30] = 0;
    EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, a), 0);  // the first one is kept
    EXPECT_EQ(check.overrun().bytes_past, 8u);
    EXPECT_EQ(check.overrun().block_bytes, 4096u);
    {
      aotrt::WorkspaceBoundsCheck inner;
      EXPECT_EQ(inner.overrun().bytes_past, 0u);
    }
    EXPECT_EQ(check.overrun().bytes_past, 8u);  // resumed
  }
  // Without a check nothing is recorded, even for a block reused from a checked run.
  auto* c = static_cast<unsigned char*>(TVMBackendAllocWorkspace(kDLCPU, 0, 1000, 0, 0));
  std::memset(c, 0, 1100);
  EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, c), 0);
  aotrt::WorkspaceBoundsCheck after;
  EXPECT_EQ(after.overrun().bytes_past, 0u);
}

TEST(Workspace, RequestedPeakCountsBytesHeldAtOnce) {
  using namespace aotrt;
  WorkspaceResetPeak();
  const size_t base = WorkspaceRequestedPeak();  // blocks already held by this thread, if any
  void* a = WorkspaceAlloc(100);
  void* b = WorkspaceAlloc(200);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(WorkspaceFree(b));
  void* c = WorkspaceAlloc(50);  // reuses b's block: the peak counts requests, not blocks
  EXPECT_EQ(WorkspaceRequestedPeak(), base + 300);
  ASSERT_TRUE(WorkspaceFree(c));
  ASSERT_TRUE(WorkspaceFree(a));
  WorkspaceResetPeak();
  EXPECT_EQ(WorkspaceRequestedPeak(), base);
  size_t mark = WorkspaceMark();
  ASSERT_TRUE(WorkspaceAlloc(1000));  // a failed model call: released by the caller, not freed
  WorkspaceReleaseTo(mark);
  EXPECT_EQ(WorkspaceRequestedPeak(), base + 1000);
  WorkspaceResetPeak();
  EXPECT_EQ(WorkspaceRequestedPeak(), base);
}

// A miss replaces the largest free block too small for it instead of adding one, so the pool
// holds the live peak of a run (here MobileNet's: two buffers live throughout, and temporaries
// of growing size one at a time), and a repeated run finds every block in place.
TEST(Workspace, MissReplacesTheLargestTooSmallBlockSoThePoolHoldsTheLivePeak) {
  std::thread([] {
    constexpr uint64_t kKiB = 1024;
    auto run = [](std::vector<void*>* got) {
      void* a = TVMBackendAllocWorkspace(kDLCPU, 0, 1568 * kKiB, 0, 0);
      void* b = TVMBackendAllocWorkspace(kDLCPU, 0, 3136 * kKiB, 0, 0);
      got->push_back(a);
      got->push_back(b);
      for (uint64_t kib : {596, 1628, 3196, 1684, 900, 512}) {
        void* t = TVMBackendAllocWorkspace(kDLCPU, 0, kib * kKiB - 100, 0, 0);
        ASSERT_NE(t, nullptr);
        got->push_back(t);
        EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, t), 0);
      }
      EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, b), 0);
      EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, a), 0);
    };
    std::vector<void*> first, second;
    run(&first);
    // The two long-lived buffers and one block for the largest temporary; the 596 and 1628 KiB
    // blocks were replaced when a larger temporary came.
    EXPECT_EQ(aotrt::WorkspacePoolBytes(), (1568 + 3136 + 3196) * kKiB);
    run(&second);
    EXPECT_EQ(aotrt::WorkspacePoolBytes(), (1568 + 3136 + 3196) * kKiB);
    EXPECT_EQ(second[0], first[0]);
    EXPECT_EQ(second[1], first[1]);
    for (size_t i = 2; i < second.size(); ++i) EXPECT_EQ(second[i], second[2]) << "temporary " << i;
  }).join();
}

// A smaller free block that still serves the request is reused, and nothing is released.
TEST(Workspace, HitKeepsEveryBlock) {
  std::thread([] {
    void* a = TVMBackendAllocWorkspace(kDLCPU, 0, 256 << 10, 0, 0);
    void* b = TVMBackendAllocWorkspace(kDLCPU, 0, 512 << 10, 0, 0);
    EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, a), 0);
    EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, b), 0);
    size_t held = aotrt::WorkspacePoolBytes();
    void* c = TVMBackendAllocWorkspace(kDLCPU, 0, 200 << 10, 0, 0);
    EXPECT_EQ(c, a);  // best fit
    EXPECT_EQ(aotrt::WorkspacePoolBytes(), held);
    EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, c), 0);
  }).join();
}

// Checking mode keeps a block of more than twice a request for larger ones; the replacement of
// too-small blocks must still settle: from the second run on, the same blocks serve the same
// requests (no map or unmap per run).
TEST(Workspace, CheckingModeSettlesAfterARun) {
  std::thread([] {
    aotrt::WorkspaceBoundsCheck check;
    constexpr uint64_t kKiB = 1024;
    auto run = [] {
      std::vector<void*> got;
      void* a = TVMBackendAllocWorkspace(kDLCPU, 0, 1568 * kKiB, 0, 0);
      got.push_back(a);
      for (uint64_t kib : {596, 1628, 3196, 100, 1684, 4, 900, 512, 64, 2}) {
        void* t = TVMBackendAllocWorkspace(kDLCPU, 0, kib * kKiB - 10, 0, 0);
        got.push_back(t);
        EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, t), 0);
      }
      EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, a), 0);
      return got;
    };
    run();
    std::vector<void*> second = run();
    size_t held = aotrt::WorkspacePoolBytes();
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(run(), second);
      EXPECT_EQ(aotrt::WorkspacePoolBytes(), held);
    }
    EXPECT_FALSE(check.overrun().found());
  }).join();
}

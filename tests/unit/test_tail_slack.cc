// Tail slack, canaries and pool buffers (memory/reserve.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "memory/reserve.h"

using namespace aotrt;

TEST(TailSlack, AtLeastACacheLinePageForLargeBuffers) {
  EXPECT_EQ(TailSlack(0), 64u);
  EXPECT_EQ(TailSlack(1), 127u);  // ends on the second cache line after it
  EXPECT_EQ(TailSlack(60), 68u);
  EXPECT_EQ(TailSlack(64), 64u);
  EXPECT_EQ(TailSlack(248), 72u);
  for (size_t b : {size_t{0}, size_t{1}, size_t{63}, size_t{65535}, size_t{65536}, size_t{5233328}}) {
    EXPECT_GE(TailSlack(b), kCacheLine) << b;
    EXPECT_EQ((b + TailSlack(b)) % kCacheLine, 0u) << b;
  }
  EXPECT_EQ(TailSlack(5233328), 1360u);  // the MobileNet pool of issue 10: to the next page
  EXPECT_EQ((5233328 + TailSlack(5233328)) % kSlackPage, 0u);
  EXPECT_EQ(TailSlack(65536), 4096u);
}

TEST(TailSlack, CanaryDamageCountsToTheLastChangedByte) {
  unsigned char b[100];
  FillCanary(b, sizeof(b));
  EXPECT_EQ(CanaryDamage(b, sizeof(b)), 0u);
  b[23] = 0;
  EXPECT_EQ(CanaryDamage(b, sizeof(b)), 24u);
  b[5] = 1;
  EXPECT_EQ(CanaryDamage(b, sizeof(b)), 24u);
  b[99] = 2;  // in the byte-wise tail of the fast path
  EXPECT_EQ(CanaryDamage(b, sizeof(b)), 100u);
  FillCanary(b, sizeof(b));
  b[0] = 3;
  EXPECT_EQ(CanaryDamage(b, 1), 1u);
  EXPECT_EQ(CanaryDamage(b, 0), 0u);
}

TEST(TailSlack, GroupedNumber) {
  EXPECT_EQ(GroupedNumber(0), "0");
  EXPECT_EQ(GroupedNumber(999), "999");
  EXPECT_EQ(GroupedNumber(1000), "1,000");
  EXPECT_EQ(GroupedNumber(5233328), "5,233,328");
  EXPECT_EQ(GroupedNumber(100000), "100,000");
}

TEST(PoolBuffer, AlignedZeroedWithCanaryTailAndReserve) {
  PoolBuffer p(PoolDisplayName("global_workspace_1_var"), 100);
  EXPECT_EQ(p.name(), "global_workspace");
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p.data()) % 4096, 0u);
  EXPECT_EQ(p.bytes(), 100u);
  EXPECT_EQ(p.reserve(), PageSize());
  EXPECT_EQ(p.slack(), PageSize() - 100u + PageSize());  // the rest of the page, then the reserve
  EXPECT_EQ(p.slack(), PoolSlackBytes(100));
  for (size_t i = 0; i < 100; ++i) ASSERT_EQ(p.data()[i], 0) << i;
  EXPECT_FALSE(p.TakeOverrun().found());
  std::memset(p.data(), 7, 100);  // writing the whole pool is fine
  EXPECT_FALSE(p.TakeOverrun().found());
  p.data()[100 + 24 - 1] = 0;
  EXPECT_EQ(p.TakeOverrun().bytes_past, 24u);
  EXPECT_FALSE(p.TakeOverrun().found());  // restored
  PoolBuffer empty("x", 0);
  EXPECT_TRUE(empty.defined());
  EXPECT_FALSE(PoolBuffer().defined());
  PoolBuffer moved = std::move(p);
  EXPECT_EQ(moved.bytes(), 100u);
  EXPECT_FALSE(p.defined());
}

TEST(PoolBuffer, DisplayNameDropsTheVarSuffixOnly) {
  EXPECT_EQ(PoolDisplayName("global_workspace_0_var"), "global_workspace");
  EXPECT_EQ(PoolDisplayName("my_pool_12_var"), "my_pool");
  EXPECT_EQ(PoolDisplayName("pool"), "pool");
  EXPECT_EQ(PoolDisplayName("pool_var"), "pool_var");
  EXPECT_EQ(PoolDisplayName("_1_var"), "_1_var");
}

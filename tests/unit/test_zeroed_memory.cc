// memory/zeroed_memory: small blocks from the heap, large ones fresh mappings (zero, page aligned),
// mappings of 2 MiB and more on a 2 MiB boundary, and huge-page advice on their whole 2 MiB pages.
#include "memory/reserve.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

using aotrt::AdviseHugePages;
using aotrt::AllocZeroed;
using aotrt::FreeZeroed;
using aotrt::kHugePage;

namespace {

uintptr_t Addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }

bool AllZero(const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) {
    if (b[i] != 0) return false;
  }
  return true;
}

}  // namespace

TEST(ZeroedMemory, SmallBlocksComeFromTheHeapZeroedAndAligned) {
  size_t mapped = 1;
  void* p = AllocZeroed(1000, 64, &mapped);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(mapped, 0u);
  EXPECT_EQ(Addr(p) % 64, 0u);
  EXPECT_TRUE(AllZero(p, 1000));
  FreeZeroed(p, mapped);
}

TEST(ZeroedMemory, LargeBlocksAreMappingsAndFromTwoMiBOnHugePageAligned) {
  for (size_t bytes : {size_t{64} << 10, (size_t{1} << 20) + 1, kHugePage, 2 * kHugePage + 4096 + 7}) {
    size_t mapped = 0;
    void* p = AllocZeroed(bytes, 64, &mapped);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_GE(mapped, bytes);
    EXPECT_EQ(mapped % 4096, 0u);
    EXPECT_EQ(Addr(p) % (bytes >= kHugePage ? kHugePage : 4096), 0u) << bytes;
    EXPECT_TRUE(AllZero(p, bytes));
    std::memset(p, 0xab, bytes);  // the whole block is writable
    FreeZeroed(p, mapped);
  }
}

TEST(ZeroedMemory, HugePageAdviceCoversOnlyWholeTwoMiBPages) {
  size_t mapped = 0;
  void* p = AllocZeroed(2 * kHugePage + 4096, 64, &mapped);
  ASSERT_NE(p, nullptr);
  size_t advised = AdviseHugePages(p, 2 * kHugePage + 4096);
  // 0 only on a kernel without transparent huge pages (madvise refuses the advice).
  if (advised != 0) EXPECT_EQ(advised, 2 * kHugePage);
  EXPECT_EQ(AdviseHugePages(static_cast<char*>(p) + 4096, kHugePage), 0u);  // no whole 2 MiB page inside
  FreeZeroed(p, mapped);
}

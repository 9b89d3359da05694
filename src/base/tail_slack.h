// Tail slack: memory the runtime adds after every buffer it hands to generated code (pools and
// workspace blocks), so that a compiler bug storing a little past a planned buffer (a vector
// store at its end, issue 10) lands in memory the runtime owns instead of the heap.
//
// The slack is filled with a canary byte. Checking mode (AOTRT_CHECK_BOUNDS, executor option)
// compares it after every run and reports a write past the end as an error; without checking the
// slack only absorbs the write. A write that stores exactly the canary byte goes unseen, and a
// write beyond the slack is outside what the runtime can absorb or see.
#pragma once

#include <cstddef>
#include <string>

namespace aotrt {

constexpr size_t kCacheLine = 64;
constexpr size_t kSlackPage = 4096;
// From this size on, buffers end on a page boundary: a page costs < 6% there, and an overrun of
// up to the rounding lands in slack too.
constexpr size_t kSlackPageFrom = 64 * 1024;
constexpr unsigned char kCanaryByte = 0xA5;

// Bytes of slack after a buffer of `bytes` (bytes + slack is a multiple of 64): at least one
// cache line; buffers of kSlackPageFrom bytes or more are extended to the next page boundary.
size_t TailSlack(size_t bytes);

void FillCanary(void* p, size_t n);

// How far the canary over [p, p + n) was overwritten: 1 + the offset of the last byte that is not
// the canary, 0 when intact.
size_t CanaryDamage(const void* p, size_t n);

// 5233328 -> "5,233,328": byte counts in messages.
std::string GroupedNumber(size_t n);

}  // namespace aotrt

// The canary that fills the rest of a buffer's last page (or a reused block's pages) after what the
// model may use, so that checking mode sees writes there (README, 'When a model writes past its
// memory'; a write of exactly the canary byte goes unseen), and the tail slack the shared constant
// pool keeps after its bytes (canary-filled, read-only, not checked).
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

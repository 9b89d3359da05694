// Canary bytes, and tail slack for the constant pool.
//
// The canary fills the part of a buffer's last page (or a reused block's pages) after what the
// model may use, so that checking mode (AOTRT_CHECK_BOUNDS, executor option) can see writes there:
// a byte that is no longer the canary was written (a write that stores exactly the canary byte
// goes unseen). Workspace pools and blocks also get a lazily committed reserve after their pages
// (memory/reserve.h), where the mark of a write is a byte no longer zero.
//
// TailSlack sizes the slack the shared constant pool keeps after its bytes (filled with the
// canary, read-only, not checked): at least a cache line, to the next page from 64 KiB on.
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

// Memory the runtime hands to generated code (workspace pools, TVMBackendAllocWorkspace blocks of
// 64 KiB and more) with a reserve after it, so that a model writing past its memory lands where
// nothing lives, and checking mode finds out how far it went (README, 'When a model writes past
// its memory'; costs in bench/README.md). One reservation of address space holds:
//
//   [data, data + bytes)                 the buffer: read-write, zero; page aligned (2 MiB aligned
//                                        from 2 MiB, for transparent huge pages)
//   [data + bytes, data + capacity)      the rest of its last page: the canary (memory/tail_slack.h)
//   [capacity, capacity + reserve)       the reserve: read-write, zero, MAP_NORESERVE and
//                                        MADV_NOHUGEPAGE, so resident only where written
//   [capacity + reserve, + kGuardBytes)  the guard: PROT_NONE (memory/guard_fault.h)
//
// MapReserved and UnmapReserved are thread-safe; the checks on one span, one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/page_size.h"

namespace aotrt {

constexpr size_t kGuardBytes = 64 * 1024;

// The reserve after a buffer of `bytes`: its own size rounded up to pages, at least one page.
size_t ReserveBytes(size_t bytes);

// One mapping made by MapReserved. A plain value: UnmapReserved releases it.
struct ReservedSpan {
  uint8_t* data = nullptr;
  size_t capacity = 0;  // the buffer's pages: the bytes asked for, rounded up to pages (PageSize())
  size_t reserve = 0;   // ReserveBytes(capacity), after them
  size_t mapped = 0;    // capacity + reserve + kGuardBytes
  int guard = -1;       // RegisterGuard's handle (memory/guard_fault.h)
};

// A buffer of `bytes` zero bytes with its reserve and guard; `label` names the buffer in the message
// of a fault on the guard ("workspace pool 'x' (N bytes) of model 'm' (lib.so)"). data == nullptr
// when the address space or memory cannot be had. `bytes` 0 maps one page.
ReservedSpan MapReserved(size_t bytes, const char* label);
void UnmapReserved(ReservedSpan* s);

struct Overrun {
  size_t bytes_past = 0;  // 1 + the offset past `used` of the last byte found changed; 0: none
  size_t zeros_to = 0;    // pages past that written with zeros only, up to this many bytes past `used`; 0: none
  bool found() const { return bytes_past != 0 || zeros_to != 0; }
};

// Checking mode for a span of which generated code may use `used` bytes (<= capacity).
// ArmOverrunCheck: the canary from `used` to the end of the buffer's pages (a block reused for a
// smaller request has more than its last page), and nothing written in the reserve (its pages are
// given back: zero, not resident). TakeOverrun: what was written past `used` since, then the same
// state again. Neither allocates; TakeOverrun makes a mincore() call per 8 MiB of reserve and
// reads only resident pages.
// zeros_to is reported only where ReadsMapTheZeroPage(): where a read fault maps a page of the
// process's own (some kernels do), a page only read cannot be told from one written with zeros.
void ArmOverrunCheck(const ReservedSpan& s, size_t used);
Overrun TakeOverrun(const ReservedSpan& s, size_t used);
// Whether reading an untouched private page maps the shared zero page here (told once, by trying).
bool ReadsMapTheZeroPage();

}  // namespace aotrt

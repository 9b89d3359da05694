// Memory the runtime hands to generated code (workspace pools, TVMBackendAllocWorkspace blocks of
// 64 KiB and more), with room after it for the model's own bugs.
//
// TVM's memory planning can under-size a buffer, and the code writing it then stores past its end:
// 24 bytes past a pool (issue 10), 1,247,056 bytes (24%) past the 5,233,328-byte workspace pool of
// a vectorized MobileNet built for llvm (issue 26). One reservation of address space holds:
//
//   [data, data + bytes)                 the buffer: read-write, zero; page aligned (2 MiB aligned
//                                        from 2 MiB, for transparent huge pages)
//   [data + bytes, data + capacity)      the rest of its last page: the canary (memory/tail_slack.h)
//   [capacity, capacity + reserve)       the reserve: read-write, zero, committed lazily
//   [capacity + reserve, + kGuardBytes)  the guard: PROT_NONE (memory/guard_fault.h)
//
// The reserve is the buffer's own size (rounded up to pages): every buffer the planner placed in
// a pool is at most the pool's size, so a write past the pool by up to a whole buffer's length
// (a loop bound or vector width that is wrong by up to 2x) lands in the reserve. It costs address
// space only: anonymous pages that are never touched are neither resident nor private memory
// (test_reserve.cc reads /proc/self/smaps to show it). It is mapped MAP_NORESERVE (not counted
// against the commit limit under the default heuristic overcommit; under vm.overcommit_memory=2
// Linux counts it anyway) and MADV_NOHUGEPAGE (so that a huge page of the buffer cannot spill
// resident memory into it). A write into the reserve makes only the pages it touches resident.
// A write past the reserve faults on the guard: fatal, with a message (memory/guard_fault.h).
//
// Checking mode (ExecutorOptions::check_bounds) finds writes anywhere past the buffer without
// making the reserve resident: the canary in the last page is compared; of the reserve, mincore()
// lists the resident pages (untouched ones are not) and only those are read. A byte that is no
// longer the canary, or no longer zero in the reserve, was written; the count of bytes past is up
// to the last such byte. Pages written with zeros only are found through /proc/self/pagemap (a
// written page is the process's own; a page only read is the shared zero page). Restoring
// refills the canary and gives the touched reserve pages back (MADV_DONTNEED), so the next check
// starts afresh and a model that wrote past once does not keep the memory.
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

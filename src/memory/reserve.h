// Memory the runtime hands to tensors, pools and generated code, with room after it (README, 'When
// a model writes past its memory'; costs in bench/README.md):
// - zeroed, aligned blocks (AllocZeroed): small ones from aligned_alloc and a memset; from 64 KiB
//   on, fresh anonymous mappings, zero without a memset and free until touched; from 2 MiB on
//   starting on a 2 MiB boundary, so that transparent huge pages can back them;
// - the canary filling the rest of a buffer's last page after what the model may use, so that
//   checking mode sees writes there (a write of exactly the canary byte goes unseen), and the tail
//   slack the shared constant pool keeps after its bytes (canary-filled, read-only, not checked);
// - reserved spans (workspace pools, placed in their executor's one mapping by PlaceReserved;
//   TVMBackendAllocWorkspace blocks of 64 KiB and more, one mapping each by MapReserved):
//
//   [data, data + bytes)                 the buffer: read-write, zero; page aligned (2 MiB aligned
//                                        from 2 MiB, for transparent huge pages)
//   [data + bytes, data + capacity)      the rest of its last page: the canary
//   [capacity, capacity + reserve)       the reserve: read-write, zero, MAP_NORESERVE and
//                                        MADV_NOHUGEPAGE, so resident only where written
//   [capacity + reserve, + kGuardBytes)  the guard: PROT_NONE (memory/guard_fault.h)
//
// - PoolBuffer: one USMP workspace pool passed to a model's entry function (one per executor),
//   with its reserve and guard, in a mapping of its own or placed in the executor's one block.
//   Move-only; owns its span; not thread-safe (a workspace pool belongs to one executor).
// MapReserved and UnmapReserved are thread-safe; the checks on one span, one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/page_size.h"

namespace aotrt {

constexpr size_t kMappedFrom = 64 * 1024;
constexpr size_t kHugePage = 2 * 1024 * 1024;

// `bytes` zero bytes aligned to `align` (a power of two, at most 4096 for mapped blocks); nullptr
// when out of memory. *mapped is set to what FreeZeroed needs (0: from aligned_alloc).
void* AllocZeroed(size_t bytes, size_t align, size_t* mapped);
void FreeZeroed(void* p, size_t mapped);

// A fresh mmap(prot, MAP_PRIVATE | MAP_ANONYMOUS | flags) of `size` bytes (a multiple of
// PageSize()) starting on a multiple of `align` (a power of two); nullptr on failure. munmap frees it.
void* MapAligned(size_t size, size_t align, int prot, int flags);

// madvise(MADV_HUGEPAGE) on the whole 2 MiB pages inside [p, p + bytes) of a mapping from
// AllocZeroed. Not the default: a huge page can be slow to obtain (bench/README.md). Returns the
// bytes advised (0: none, or refused).
size_t AdviseHugePages(void* p, size_t bytes);

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

constexpr size_t kGuardBytes = 64 * 1024;

// One span made by MapReserved or PlaceReserved. A plain value: UnmapReserved releases it.
struct ReservedSpan {
  uint8_t* data = nullptr;
  size_t capacity = 0;  // the buffer's pages: the bytes asked for, rounded up to pages (PageSize())
  size_t reserve = 0;   // after them: the capacity again (at least a page)
  size_t mapped = 0;    // capacity + reserve + kGuardBytes; 0: placed in the caller's mapping
  int guard = -1;       // RegisterGuard's handle (memory/guard_fault.h)
};

// The address space a span of `bytes` takes (buffer pages, reserve, guard; 0 on overflow), and
// where it starts: on a page, on a 2 MiB boundary from 2 MiB (for transparent huge pages).
size_t ReservedSpanBytes(size_t bytes);
size_t ReservedSpanAlignment(size_t bytes);

// A buffer of `bytes` zero bytes with its reserve and guard; `label` names the buffer in the message
// of a fault on the guard ("workspace pool 'x' (N bytes) of model 'm' (lib.so)"). data == nullptr
// when the address space or memory cannot be had. `bytes` 0 maps one page.
ReservedSpan MapReserved(size_t bytes, const char* label);
// The same inside the caller's read-write MAP_NORESERVE mapping, at `at` (ReservedSpanBytes(bytes)
// there, aligned by ReservedSpanAlignment): one mapping can hold several spans. The caller unmaps
// it, after UnmapReserved (which then unregisters the guard only).
ReservedSpan PlaceReserved(uint8_t* at, size_t bytes, const char* label);
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

class PoolBuffer {
 public:
  PoolBuffer() = default;
  // `label` names the pool in the message of a write past the reserve, e.g. "workspace pool 'x'
  // (N bytes) of model 'm' (lib.so)". `at`: placed there in the caller's mapping (PlaceReserved),
  // which must outlive it; null: a mapping of its own. Throws Error(kOutOfMemory).
  PoolBuffer(std::string name, size_t bytes, const std::string& label = std::string(), uint8_t* at = nullptr);
  PoolBuffer(PoolBuffer&& o) noexcept;
  PoolBuffer(const PoolBuffer&) = delete;
  PoolBuffer& operator=(const PoolBuffer&) = delete;
  ~PoolBuffer();

  bool defined() const { return span_.data != nullptr; }
  uint8_t* data() const { return span_.data; }
  size_t bytes() const { return bytes_; }
  // Bytes after the pool that a write may reach harmlessly: the rest of its last page + the reserve.
  size_t slack() const { return span_.capacity - bytes_ + span_.reserve; }
  size_t reserve() const { return span_.reserve; }
  // The pool's name for messages: the metadata name without TVM's "_<k>_var" suffix.
  const std::string& name() const { return name_; }
  // What was written past the end since the last call (nothing found: !found()); restores.
  Overrun TakeOverrun();

 private:
  ReservedSpan span_;
  size_t bytes_ = 0;
  std::string name_;
};

// "global_workspace_1_var" -> "global_workspace" (ABI.md 7.1: <pool_name>_<k>_var); other names as is.
std::string PoolDisplayName(const std::string& var_name);

// The bytes after a pool of `bytes` that PoolBuffer makes harmless to write (its slack()).
size_t PoolSlackBytes(size_t bytes);

}  // namespace aotrt
